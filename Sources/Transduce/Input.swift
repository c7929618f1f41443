/// The awaited dispatch styles.
public enum DispatchStyle: Sendable, Hashable {
    /// Resumes when the event's cycle ends (settled or handed off to a task); never waits for tasks.
    case send
    /// Resumes when the whole chain settles, following task results, with the response.
    case request
    /// Like `request`, but at admission every live task is cancelled first.
    case uniqueRequest
}

/// The dispatch handle of one runtime: `Sendable`, cheap to copy, and it does not retain the host.
///
/// All copies from one host are equal and share an ``id``. After the host is gone every call
/// throws ``RuntimeError/deallocated``.
public struct TransducerInput<Event, Response>: Sendable, Identifiable, Equatable {
    public let id: RuntimeID
    // Inlinable, so that a client module calls them directly from its specialized code.
    @usableFromInline
    let postHandler: @Sendable (Event) throws -> Void
    @usableFromInline
    let dispatchHandler: @Sendable (Event, DispatchStyle) async throws -> Response?

    /// A handle over arbitrary closures: the seam for driving a task operation in a test without
    /// a host, or for adapting another runtime.
    public init(
        post: @escaping @Sendable (Event) throws -> Void,
        dispatch: @escaping @Sendable (Event, DispatchStyle) async throws -> Response?
    ) {
        self.init(id: RuntimeID.next(), post: post, dispatch: dispatch)
    }

    @usableFromInline
    init(
        id: RuntimeID, post: @escaping @Sendable (Event) throws -> Void,
        dispatch: @escaping @Sendable (Event, DispatchStyle) async throws -> Response?
    ) {
        self.id = id
        self.postHandler = post
        self.dispatchHandler = dispatch
    }

    /// Enqueue `event` and return at once; never suspends.
    ///
    /// Throws only admission errors: ``RuntimeError/cancelled``, ``RuntimeError/deallocated``,
    /// ``RuntimeError/systemError`` or ``RuntimeError/queueFull(capacity:)``. Failures while the
    /// event is processed later are not reported back here.
    @inlinable
    public func post(_ event: Event) throws { try postHandler(event) }

    /// The same as ``post(_:)``: `try? input(.tapped)`.
    @inlinable
    public func callAsFunction(_ event: Event) throws { try postHandler(event) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
}

extension TransducerInput where Event: Sendable, Response: Sendable {
    /// Dispatch `event` and resume once its cycle has committed state.
    ///
    /// Cancelling the calling task gives up only the wait (throws `CancellationError`); the event is
    /// still processed.
    @inlinable
    public func send(_ event: Event) async throws { _ = try await dispatchHandler(event, .send) }

    /// Dispatch `event` and resume with the response once the whole chain has settled.
    ///
    /// Returns `nil` when the chain ends in a task that settles without an event.
    @discardableResult
    @inlinable
    public func request(_ event: Event) async throws -> Response? { try await dispatchHandler(event, .request) }

    /// Like ``request(_:)``, but every live task is cancelled when this event's cycle enters the
    /// gate (after every admission queued ahead of it has run, so tasks those started are
    /// cancelled too; not at the call), and the tasks its cycle starts replace any same-named
    /// task whatever their policy.
    @discardableResult
    @inlinable
    public func uniqueRequest(_ event: Event) async throws -> Response? {
        try await dispatchHandler(event, .uniqueRequest)
    }
}
