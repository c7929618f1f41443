/// The shell every host shares: what a host is to its ``RuntimeCore``.
///
/// A host supplies only what needs its isolation — running a claimed inline cycle
/// (``runClaimed(_:_:)``, the fast path's one hop) and the drain (``drain(_:)``), both of which
/// touch its state — and the shell does the rest once: the input's entry and the drain hooks.
/// Everything here is `@inlinable` and static, called with the concrete host from its
/// initializer, so a client module specializes the whole path for its transducer (a class
/// method could be overridden, so its callers would go through the generic one).
@usableFromInline
protocol RuntimeHost<T>: AnyObject, Sendable {
    associatedtype T: Transducer
    where
        T.Event: Sendable, T.Env: Sendable, T.Response: Sendable,
        T.Effect == TransducerEffect<T.Event, T.Env, T.Response>

    /// The runtime; nonisolated.
    var core: RuntimeCore<T> { get }

    /// Runs the cycle of a dispatch that claimed the idle gate on `host`'s isolation:
    /// ``RuntimeCore/runClaimed(_:transduce:respond:continueInDrainTask:)`` with the host's state.
    static func runClaimed(_ host: Self, _ admission: RuntimeCore<T>.InlineAdmission) async throws
        -> RuntimeCore<T>.DispatchRest

    /// Runs the compute plane's drain on `host`'s isolation:
    /// ``RuntimeCore/drain(transduce:respond:isolation:)`` with the host's state.
    static func drain(_ host: Self) async

    /// `host`'s state; called only on its isolation (in a cycle), for an instrument that
    /// captures states.
    static func committedState(_ host: Self) -> Any
}

/// A value carried across an isolation check that the caller knows it is already on.
@usableFromInline
struct AlreadyIsolated<Value>: @unchecked Sendable {
    @usableFromInline
    let value: Value

    @inlinable
    init(_ value: Value) { self.value = value }
}

extension RuntimeHost {
    /// The input for `core`, whose dispatches enter through ``entry(_:)``. Call once, from the
    /// host's initializer, then ``attach(_:)`` — both through the host's type name, not `Self`:
    /// inside a class or an actor `Self` is the dynamic type, and the entry was then left
    /// unspecialized (24,000 instructions a send instead of 2,200, in callgrind).
    @inlinable
    static func makeInput(_ core: RuntimeCore<T>) -> T.Input {
        core.makeInput(entry(core), making: entry)
    }

    /// Connects `host` to its core: the drain hooks, holding it weakly (a runtime never keeps
    /// its host alive). Call once, from the host's initializer, before the input is used.
    @inlinable
    static func attach(_ host: Self) {
        host.core.attach(
            HostHooks(
                startDrain: { [weak host] in
                    guard host != nil else { return nil }
                    return Task { [weak host] in
                        guard let host else { return }
                        await Self.drain(host)
                    }
                },
                drain: { [weak host] in
                    guard let host else { return }
                    await Self.drain(host)
                },
                state: { [weak host] in host.map { Self.committedState($0) } }),
            host: host)
    }

    /// The input's dispatch for `core`: a managed task's dispatch queues with its origin, without
    /// a hop; any other hops to the host once (``runClaimed(_:_:)``, after claiming the idle
    /// gate). The wait, if any, happens here, after the host is let go: a waiting caller must not
    /// keep the host alive. Inlined into the initializer, where the closure is specialized best.
    @inline(__always)
    @inlinable
    static func entry(_ core: RuntimeCore<T>) -> RuntimeCore<T>.DispatchEntry {
        { [core] event, style in
            var rest = RuntimeCore<T>.DispatchRest.notAdmitted
            if core.callerTask == nil, let host = core.host {
                switch try core.admit(event, style: style, task: nil) {
                case .claimed(let admission):
                    rest = try await Self.runClaimed(unsafeDowncast(host, to: Self.self), admission)
                case .queue(let start, let task): rest = .queue(start, task: task)
                }
            }
            if case .finished(let response) = rest { return response }
            return try await core.complete(rest, event, style: style)
        }
    }
}
