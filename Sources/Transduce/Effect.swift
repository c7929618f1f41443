/// A declarative description of the work that follows one `transduce` call.
///
/// Built only through the static factories; the runtime executes it. Effects are not `Sendable`:
/// they never leave the host's isolation. Use ``summary`` to assert in a test which effect came
/// back without running it.
public struct TransducerEffect<Event, Env, Response> {
    /// The work of an async action: runs on the host's isolation with the gate held across its
    /// suspensions, and may return an event to chain in the same cycle.
    public typealias AsyncAction = nonisolated(nonsending) (Env) async throws -> Event?
    @usableFromInline
    typealias TaskOperation = @Sendable (TransducerInput<Event, Response>, Env) async throws -> TaskReturn<Event>

    /// A task effect's description. A class, so that the effect's enum stays one word of payload
    /// per case: its copies are then inline, not through the enum's generic value witnesses.
    @usableFromInline
    final class TaskSpec {
        @usableFromInline
        let id: TaskIdentifier?
        @usableFromInline
        let option: TaskAdditionPolicy
        @usableFromInline
        let priority: TaskPriority?
        @usableFromInline
        let operation: TaskOperation
        /// Where the effect was written, for a test store that names a task still running.
        @usableFromInline
        let fileID: StaticString
        @usableFromInline
        let line: UInt

        @inlinable
        init(
            id: TaskIdentifier?, option: TaskAdditionPolicy, priority: TaskPriority?, fileID: StaticString, line: UInt,
            operation: @escaping TaskOperation
        ) {
            self.id = id
            self.option = option
            self.priority = priority
            self.fileID = fileID
            self.line = line
            self.operation = operation
        }
    }

    @usableFromInline
    enum Kind {
        case none
        case event(Event)
        case action((Env) -> Event?)
        case asyncAction(operation: AsyncAction)
        case task(TaskSpec)
        indirect case cancel(TaskIdentifier)
        case sequence([TransducerEffect])
    }

    @usableFromInline
    let kind: Kind

    @inlinable
    init(_ kind: Kind) { self.kind = kind }

    /// No further work: the computation settles.
    @inlinable
    public static var none: Self { Self(.none) }

    /// Transduce `event` next, in this same cycle, before any queued admission.
    @inlinable
    public static func event(_ event: Event) -> Self { Self(.event(event)) }

    /// Run `body` synchronously inside the cycle (gate held). A returned event is transduced next;
    /// `nil` settles.
    @inlinable
    public static func action(_ body: @escaping (Env) -> Event?) -> Self { Self(.action(body)) }

    /// Run `body` synchronously inside the cycle (gate held); the computation then settles.
    @inlinable
    public static func action(_ body: @escaping (Env) -> Void) -> Self {
        Self(
            .action({ env in
                body(env); return nil
            }))
    }

    /// Run `body` on the host's isolation while the gate stays held, even across suspensions.
    ///
    /// When it resumes, the runtime re-checks its lifecycle: after a cancel the returned event is
    /// discarded. Throwing `CancellationError` fails only this cycle's waiters; any other error
    /// latches the runtime's failure.
    @inlinable
    public static func action(nonsendingOperation body: @escaping AsyncAction) -> Self {
        Self(.asyncAction(operation: body))
    }

    /// Cancel the live task registered under `id`; an absent id is a no-op.
    @inlinable
    public static func cancel(_ id: TaskIdentifier) -> Self { Self(.cancel(id)) }

    /// Run `effects` left to right. Only the last may continue the chain or carry the caller's
    /// waiter; events the others yield are dropped (and reported to the instrument).
    @inlinable
    public static func sequence(_ effects: [Self]) -> Self { Self(.sequence(effects)) }

    /// A closure-free description of this effect.
    public var summary: EffectSummary {
        switch kind {
        case .none: .none
        case .event: .event
        case .action: .action
        case .asyncAction: .asyncAction
        case .task(let spec): .task(id: spec.id, option: spec.option)
        case .cancel(let id): .cancel(id)
        case .sequence(let effects): .sequence(effects.map(\.summary))
        }
    }
}

extension TransducerEffect where Event: Sendable, Env: Sendable {
    /// The operation of a task: it runs on the isolation it declares (or the global executor) and
    /// receives the host's `Input` and `Env`.
    public typealias Operation<R> = @Sendable @isolated(any) (TransducerInput<Event, Response>, Env) async throws -> R

    /// Start a managed task whose result says how it re-enters the runtime.
    ///
    /// - Parameters:
    ///   - id: registers the task; tasks without an id always get their own instance.
    ///   - option: what happens when a live task with the same `id` exists.
    ///   - priority: the task's priority (default: inherited).
    ///   - fileID: where the effect is written, for a test that names a task still running
    ///     (leave the default).
    ///   - line: likewise.
    ///   - operation: the task's work; gets the host's `Input` and `Env`.
    ///
    /// Disfavored, like the `Event?` form, so that a multi-statement closure without `return`
    /// resolves to the `Void` form.
    @inlinable
    @_disfavoredOverload
    public static func task(
        id: TaskIdentifier? = nil, option: TaskAdditionPolicy = .switchToLatest, priority: TaskPriority? = nil,
        fileID: StaticString = #fileID, line: UInt = #line, operation: @escaping Operation<TaskReturn<Event>>
    ) -> Self {
        Self(
            .task(
                TaskSpec(
                    id: id, option: option, priority: priority, fileID: fileID, line: line,
                    operation: { try await operation($0, $1) })))
    }

    /// Start a managed task; a returned event re-enters as `.request(event)`, `nil` settles.
    ///
    /// Disfavored so that a multi-statement closure without `return` resolves to the `Void` form.
    @inlinable
    @_disfavoredOverload
    public static func task(
        id: TaskIdentifier? = nil, option: TaskAdditionPolicy = .switchToLatest, priority: TaskPriority? = nil,
        fileID: StaticString = #fileID, line: UInt = #line, operation: @escaping Operation<Event?>
    ) -> Self {
        Self(
            .task(
                TaskSpec(id: id, option: option, priority: priority, fileID: fileID, line: line) { input, env in
                    if let event = try await operation(input, env) { .request(event) } else { .settle }
                }))
    }

    /// Start a managed task that settles when it returns.
    @inlinable
    public static func task(
        id: TaskIdentifier? = nil, option: TaskAdditionPolicy = .switchToLatest, priority: TaskPriority? = nil,
        fileID: StaticString = #fileID, line: UInt = #line, operation: @escaping Operation<Void>
    ) -> Self {
        Self(
            .task(
                TaskSpec(id: id, option: option, priority: priority, fileID: fileID, line: line) { input, env in
                    try await operation(input, env)
                    return .settle
                }))
    }
}

/// A closure-free description of an effect, for tests and observability.
public indirect enum EffectSummary: Hashable, Sendable {
    /// `.none`, `.event`, `.action` and an async action (`.action(nonsendingOperation:)`).
    case none, event, action, asyncAction
    /// `.task`, with its id (`nil`: anonymous) and overlap policy.
    case task(id: TaskIdentifier?, option: TaskAdditionPolicy)
    /// `.cancel(id)`.
    case cancel(TaskIdentifier)
    /// `.sequence`, with its effects' summaries in order.
    case sequence([EffectSummary])
}
