import Synchronization

/// A host's drain entry points, holding the host weakly (a runtime never keeps its host alive).
///
/// `startDrain` creates a task on the host's isolation that runs the drain. It is called with the
/// core's control lock held, so it must only create the task; it returns `nil` once the host is
/// gone. `drain` runs the drain in the calling task, on the host's isolation: a managed task whose
/// result re-enters an idle gate drains it itself rather than start a task for it. It returns at
/// once when the host is gone.
@usableFromInline
struct HostHooks: Sendable {
    @usableFromInline
    let startDrain: @Sendable () -> Task<Void, Never>?
    @usableFromInline
    let drain: @Sendable () async -> Void
    /// The host's state, read on its isolation (`nil` once the host is gone): what a `cycleLeave`
    /// carries to an instrument that captures states.
    @usableFromInline
    let state: @Sendable () -> Any?

    @inlinable
    init(
        startDrain: @escaping @Sendable () -> Task<Void, Never>?, drain: @escaping @Sendable () async -> Void,
        state: @escaping @Sendable () -> Any?
    ) {
        self.startDrain = startDrain
        self.drain = drain
        self.state = state
    }
}

/// The task-local context of a managed task, so dispatches from inside it name it as origin.
@usableFromInline
enum ManagedTaskContext {
    @usableFromInline
    struct Value: Sendable {
        @usableFromInline
        var runtime: RuntimeID
        @usableFromInline
        var task: UInt64

        @inlinable
        init(runtime: RuntimeID, task: UInt64) {
            self.runtime = runtime
            self.task = task
        }
    }
    /// The task-local itself (not the `@TaskLocal` wrapper, whose projection could not be used
    /// from inlinable code).
    @usableFromInline
    static let current = TaskLocal<Value?>(wrappedValue: nil)

    /// The context of the managed task the caller runs in, if any.
    @inlinable
    static var value: Value? { current.get() }

    /// Runs `operation` with `value` as the context. Inlinable, so that it is specialized for the
    /// operation's result (unspecialized, it looked the result type's metadata up on every call).
    @inlinable
    static func run<R: Sendable>(_ value: Value, _ operation: @Sendable () async throws -> R) async throws -> R {
        try await current.withValue(value) { try await operation() }
    }
}

/// The runtime shared by every host: a lock-based control plane and a compute plane that the
/// host runs on its own isolation.
///
/// Control plane: `control` (a `Lock`) holds ``RuntimeControl``, the pure state machine of the
/// lifecycle, the gate, the task registry and the waiters; this shell calls its transitions under
/// the lock and performs what they return (starting and cancelling tasks, resuming waiters after
/// the lock is released). Every control operation is synchronous, never suspends, and runs on any
/// thread.
///
/// Compute plane: ``drain(transduce:respond:isolation:)`` runs on the host's isolation, one cycle
/// at a time; state is touched only there, through the closures the host passes in.
@usableFromInline
// @unchecked: the mutable state is in `control` (a Lock) and `lifecycleState` (an Atomic).
final class RuntimeCore<T: Transducer>: @unchecked Sendable
where
    T.Event: Sendable, T.Env: Sendable, T.Response: Sendable,
    T.Effect == TransducerEffect<T.Event, T.Env, T.Response>
{
    @usableFromInline
    typealias Effect = TransducerEffect<T.Event, T.Env, T.Response>
    @usableFromInline
    typealias ResponseWaiter = Waiter<T.Response?>

    /// The control plane's state machine, with this runtime's waiters and task handles.
    @usableFromInline
    typealias Control = RuntimeControl<T, ResponseWaiter, Task<Void, Never>>
    @usableFromInline
    typealias Admission = Control.Admission
    @usableFromInline
    typealias Resumption = Control.Resumption
    @usableFromInline
    typealias TaskKey = Control.Tasks.Key

    @usableFromInline
    let id: RuntimeID
    @usableFromInline
    let env: T.Env
    @usableFromInline
    let instrument: (any RuntimeInstrument)?
    @usableFromInline
    let queueCapacity: Int
    @usableFromInline
    let stepLimit: Int
    /// Whether the instrument takes each cycle's committed state (read once, at creation).
    @usableFromInline
    let capturesStates: Bool
    /// Whether the instrument takes the event values of the events that concern one (read
    /// once, at creation: a witness call on every such event otherwise).
    @usableFromInline
    let capturesPayloads: Bool
    /// A test store's view of this runtime (``RuntimeObserver``); `nil` for every other host.
    @usableFromInline
    let observer: (any RuntimeObserver<T.Event>)?
    /// The lifecycle as ``Control`` has it, published for the lock-free reads of the compute
    /// plane (written only under the lock, as the machine stops).
    @usableFromInline
    let lifecycleState = Atomic<UInt8>(RuntimeLifecycle.active.rawValue)
    @usableFromInline
    let nextDispatch = Atomic<UInt64>(0)
    @usableFromInline
    let control: Lock<Control>
    /// Managed task bodies of this runtime still running (spawned, not yet past their end):
    /// while 0, no caller can be one of them, and the task-local read is skipped.
    @usableFromInline
    let runningTasks = Atomic<Int>(0)
    /// The drain task's identity bits while one runs (0 otherwise), for the re-entrancy check.
    @usableFromInline
    let drainTaskBits = Atomic<UInt>(0)
    /// Waiters made so far: the tests' evidence that the fast path made none (a relaxed add where
    /// one is made; the fast path's inline cycles make none unless they must wait).
    @usableFromInline
    let waitersMade = Atomic<Int>(0)
    /// Drain tasks started so far: the tests' evidence that a managed task drains its own
    /// re-entry (a relaxed add where one is started).
    @usableFromInline
    let drainTasksStarted = Atomic<Int>(0)
    /// The host, for the fast path's hop to its isolation. Held weakly (a runtime never keeps its
    /// host alive) and written once, by ``attach(_:host:)`` while the host is being created, before
    /// its input can reach another thread; then only read, without the lock.
    @usableFromInline
    @exclusivity(unchecked)
    weak var host: AnyObject?
    /// How to reach the host (every closure holds it weakly): written once, by
    /// ``attach(_:host:)``, like ``host``.
    @usableFromInline
    @exclusivity(unchecked)
    var hooks: HostHooks?
    /// Makes the host's dispatch entry, for managed tasks' inputs too: written once by
    /// ``makeInput(_:making:)`` in the host's initializer, like ``host``.
    @usableFromInline
    @exclusivity(unchecked)
    var hostDispatch: (@Sendable (RuntimeCore) -> DispatchEntry)?

    @inlinable
    init(
        env: T.Env, instrument: (any RuntimeInstrument)?, observer: (any RuntimeObserver<T.Event>)? = nil,
        queueCapacity: Int, stepLimit: Int, hostKind: StaticString
    ) {
        control = Lock(Control(queueCapacity: queueCapacity))
        precondition(stepLimit > 0, "stepLimit must be positive")
        self.id = RuntimeID.next()
        self.env = env
        self.instrument = instrument ?? RuntimeInstrumentation.current
        capturesStates = self.instrument?.capturesStates ?? false
        capturesPayloads = self.instrument?.capturesPayloads ?? false
        self.queueCapacity = queueCapacity
        self.stepLimit = stepLimit
        self.observer = observer
        if let instrument = recording {
            emit(
                .runtimeStart(
                    transducer: LabelInterner.shared.label(forType: T.self), host: EventLabel(hostKind),
                    queueCapacity: queueCapacity), instrument)
        }
    }

    /// Connects the host. Each host builds its hooks itself, so that they call its own methods
    /// directly: a client module then specializes the whole compute path for its transducer.
    /// Call once, from the host's initializer, before the input is handed out.
    @inlinable
    func attach(_ hooks: HostHooks, host: AnyObject) {
        self.host = host
        self.hooks = hooks
    }

    /// An input's dispatch: the host's entry for this core.
    @usableFromInline
    typealias DispatchEntry = @Sendable (T.Event, DispatchStyle) async throws -> T.Response?

    /// The host's `Input`: `post` enqueues here; `entry` is `dispatch(self)`; `dispatch` makes the
    /// host's own entry for a core
    /// (it hops to the host's isolation and calls ``admit(_:style:task:)``), a
    /// host's static function so that it is specialized for the transducer. The core keeps that
    /// function (not the entry, which holds the core) for its managed tasks' inputs. The input
    /// holds the core, never the host. Call once, from the host's initializer.
    @inlinable
    func makeInput(
        _ entry: @escaping DispatchEntry, making dispatch: @escaping @Sendable (RuntimeCore) -> DispatchEntry
    ) -> TransducerInput<T.Event, T.Response> {
        hostDispatch = dispatch
        return TransducerInput(id: id, post: { [self] event in try post(event, style: .post) }, dispatch: entry)
    }

    /// The input managed tasks get: with the host's entry, or (without a host) one that always
    /// queues.
    @inlinable
    var taskInput: TransducerInput<T.Event, T.Response> {
        let dispatch: DispatchEntry
        if let hostDispatch {
            dispatch = hostDispatch(self)
        } else {
            dispatch = { [self] event, style in try await self.dispatch(event, style: style) }
        }
        return TransducerInput(id: id, post: { [self] event in try post(event, style: .post) }, dispatch: dispatch)
    }
}
