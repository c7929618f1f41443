import Observation

/// An Observation-based host whose compute plane runs on the main actor.
///
/// ``state`` is observable (`withObservationTracking`, `Observations { host.state }`, SwiftUI).
/// Like every host it owns the runtime's lifetime: its `deinit` cancels every task.
///
/// Observation is by hand rather than by the `@Observable` macro: the macro builds the key path
/// of a generic class's property at run time on every access, which cost most of a send; here it
/// is made once per host.
@MainActor
public final class EffectObservable<T: Transducer>: Observable, RuntimeHost
where
    T.Event: Sendable, T.Env: Sendable, T.Response: Sendable,
    T.Effect == TransducerEffect<T.Event, T.Env, T.Response>
{
    /// The current state; written only by the compute plane. Reading it registers an
    /// observation (`withObservationTracking`, `Observations`, SwiftUI).
    public var state: T.State {
        registrar.access(self, keyPath: stateKeyPath)
        return storedState
    }
    @usableFromInline
    @exclusivity(unchecked)  // touched only on the host's isolation, one access at a time
    var storedState: T.State
    @usableFromInline
    let registrar = ObservationRegistrar()
    /// `\.state`, made once (see the type's discussion).
    @usableFromInline
    let stateKeyPath: KeyPath<EffectObservable, T.State>
    /// The dispatch handle (`post`, `send`, `request`, `uniqueRequest`): `Sendable`, usable from any
    /// isolation, and never retains the host.
    public nonisolated let input: T.Input
    @usableFromInline
    nonisolated let core: RuntimeCore<T>

    /// A host on the main actor.
    ///
    /// - Parameters:
    ///   - of: the transducer (inferred when the context says).
    ///   - initialState: the state to start from (default ``Transducer/initialState``).
    ///   - env: the dependencies actions and tasks get.
    ///   - initialEvent: an event dispatched at once (style `initial`).
    ///   - instrument: where diagnostic events go (default ``RuntimeInstrumentation/current``).
    ///   - queueCapacity: admissions that may wait at once; a `post` beyond it throws
    ///     ``RuntimeError/queueFull(capacity:)``.
    ///   - stepLimit: internal events one cycle may chain before the runtime fails with
    ///     ``RuntimeError/runawayEventChain(event:limit:)``.
    @inlinable
    public init(
        of: T.Type = T.self, initialState: T.State = T.initialState, env: T.Env, initialEvent: T.Event? = nil,
        instrument: (any RuntimeInstrument)? = nil, queueCapacity: Int = 1_024, stepLimit: Int = 10_000
    ) {
        let core = RuntimeCore<T>(
            env: env, instrument: instrument, queueCapacity: queueCapacity, stepLimit: stepLimit,
            hostKind: "EffectObservable")
        self.core = core
        storedState = initialState
        stateKeyPath = \EffectObservable.state
        input = EffectObservable.makeInput(core)
        EffectObservable.attach(self)
        if let initialEvent { try? core.post(initialEvent, style: .initial) }
    }

    /// A host for a transducer without `Env`; see ``init(of:initialState:env:initialEvent:instrument:queueCapacity:stepLimit:)``.
    @inlinable
    public convenience init(
        of: T.Type = T.self, initialState: T.State = T.initialState, initialEvent: T.Event? = nil,
        instrument: (any RuntimeInstrument)? = nil, queueCapacity: Int = 1_024, stepLimit: Int = 10_000
    ) where T.Env == Void {
        self.init(
            of: of, initialState: initialState, env: (), initialEvent: initialEvent, instrument: instrument,
            queueCapacity: queueCapacity, stepLimit: stepLimit)
    }

    deinit { core.latch(.deallocated) }

    /// The process-unique identity of this runtime, as instruments record it.
    public nonisolated var runtimeID: RuntimeID { core.id }
    /// `active` until the runtime stops; then how it stopped. Readable from any thread.
    public nonisolated var lifecycle: RuntimeLifecycle { core.lifecycle }
    /// The error latched by a failure, if any.
    public nonisolated var failure: (any Error)? { core.failure }
    /// Stops the runtime at once: cancels every task, fails every waiter with
    /// ``RuntimeError/cancelled`` and discards queued admissions. Idempotent; never waits.
    public nonisolated func cancel() { core.latch(.cancelled) }
    /// Latches a failure with `error`: attached waiters get it, later dispatches fail.
    public nonisolated func cancel(with error: any Error) { core.latch(.failed, error: error) }

    /// `input.send(event)`: returns when the event's cycle has committed state. Called on the main
    /// actor, an idle runtime runs the cycle right here, without leaving the main actor.
    @inline(__always)
    @inlinable
    public func send(_ event: T.Event) async throws {
        _ = try await Self.dispatch(self, event, style: .send)
    }
    /// `input.request(event)`: the response once the whole chain has settled, tasks included.
    /// Called on the main actor, an idle runtime runs the first cycle right here.
    @discardableResult
    @inline(__always)
    @inlinable
    public func request(_ event: T.Event) async throws -> T.Response? {
        try await Self.dispatch(self, event, style: .request)
    }

    /// An awaited dispatch from the main actor: the cycle runs here at once if the dispatch
    /// claims the idle gate (and the caller is not a managed task). Always inlined into `send` and
    /// `request`: as a function of its own, it cost an async frame per dispatch.
    @inline(__always)
    @inlinable
    static func dispatch(_ host: EffectObservable, _ event: T.Event, style: DispatchStyle) async throws -> T.Response? {
        let core = host.core
        let rest: RuntimeCore<T>.DispatchRest
        switch try core.admit(event, style: style, task: core.callerTask) {
        case .claimed(let admission): rest = try runClaimed(host, admission)
        case .queue(let start, let task): rest = .queue(start, task: task)
        }
        if case .finished(let response) = rest { return response }
        return try await core.complete(rest, event, style: style)
    }

    /// Applies `event` to the state as one observed mutation.
    @inlinable
    func transduce(_ event: T.Event) -> T.Effect {
        registrar.withMutation(of: self, keyPath: stateKeyPath) { T.transduce(&storedState, event: event) }
    }

    /// The state, read in a cycle (on the main actor) for an instrument that captures it.
    @inlinable
    nonisolated static func committedState(_ host: EffectObservable) -> Any {
        MainActor.assumeIsolated { AlreadyIsolated(host.storedState) }.value
    }
    /// Runs the compute plane's drain on the main actor (see ``RuntimeHost``).
    @inlinable
    static func drain(_ host: EffectObservable) async {
        await host.core.drain(
            transduce: { event in host.transduce(event) }, respond: { event in T.response(state: host.storedState, event: event) }
        )
    }

    /// Runs the cycle of a dispatch that claimed the gate, on the main actor (the fast path, see
    /// ``RuntimeHost``).
    @inlinable
    static func runClaimed(_ host: EffectObservable, _ admission: RuntimeCore<T>.InlineAdmission) throws
        -> RuntimeCore<T>.DispatchRest
    {
        try host.core.runClaimed(
            admission, transduce: { event in host.transduce(event) },
            respond: { event in T.response(state: host.storedState, event: event) },
            continueInDrainTask: { rest in
                host.core.continueInDrainTask(
                    rest, transduce: { event in host.transduce(event) },
                    respond: { event in T.response(state: host.storedState, event: event) })
            })
    }

    package nonisolated var liveTaskCount: Int { core.liveTaskCount }
    /// Waiters made for this host's callers so far, for tests of the fast path.
    package nonisolated var waitersMade: Int { core.waitersMade.load(ordering: .relaxed) }
    /// Drain tasks this host's runtime started so far, for tests of the fast path.
    package nonisolated var drainTasksStarted: Int { core.drainTasksStarted.load(ordering: .relaxed) }
}
