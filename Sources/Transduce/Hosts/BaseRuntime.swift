/// The generic host: an actor whose isolation runs the compute plane.
///
/// The host owns the runtime's lifetime. Neither ``input`` nor any task retains it, so dropping
/// the last strong reference cancels every task and resolves every waiter with
/// ``RuntimeError/deallocated``.
///
/// ```swift
/// let runtime = BaseRuntime(of: Loader.self, env: api)
/// let items = try await runtime.input.request(.load)
/// let count = await runtime.withState { $0.items.count }
/// ```
public actor BaseRuntime<T: Transducer>: RuntimeHost
where
    T.Event: Sendable, T.Env: Sendable, T.Response: Sendable,
    T.Effect == TransducerEffect<T.Event, T.Env, T.Response>
{
    /// Default bound of the admission queue.
    public static var defaultQueueCapacity: Int { 1_024 }
    /// Default limit of internal events chained in one cycle.
    public static var defaultStepLimit: Int { 10_000 }

    @usableFromInline
    let core: RuntimeCore<T>
    /// The current state; written only by the compute plane.
    public var state: T.State { storedState }
    @usableFromInline
    @exclusivity(unchecked)  // touched only on the host's isolation, one access at a time
    var storedState: T.State
    /// The dispatch handle: stable, `Sendable`, and weak to this host.
    public nonisolated let input: T.Input

    /// Creates a host and, when given, enqueues `initialEvent` as its first admission (post
    /// semantics).
    ///
    /// - Parameters:
    ///   - of: the transducer (inferred when the context says).
    ///   - initialState: the state to start from (default ``Transducer/initialState``).
    ///   - env: the dependencies actions and tasks get.
    ///   - initialEvent: an event enqueued at once (style `initial`).
    ///   - instrument: receives the runtime's diagnostics; `nil` uses
    ///     ``RuntimeInstrumentation/current``.
    ///   - queueCapacity: admissions that may wait at once; a `post` beyond it throws
    ///     ``RuntimeError/queueFull(capacity:)``, awaited dispatches wait for room.
    ///   - stepLimit: internal events one cycle may chain before the runtime fails with
    ///     ``RuntimeError/runawayEventChain(event:limit:)``.
    @inlinable
    public init(
        of: T.Type = T.self, initialState: T.State = T.initialState, env: T.Env, initialEvent: T.Event? = nil,
        instrument: (any RuntimeInstrument)? = nil, queueCapacity: Int = defaultQueueCapacity,
        stepLimit: Int = defaultStepLimit
    ) {
        self.init(
            initialState: initialState, env: env, initialEvent: initialEvent, instrument: instrument, observer: nil,
            queueCapacity: queueCapacity, stepLimit: stepLimit)
    }

    /// A host that also reports to `observer` (a test store's view of it, ``RuntimeObserver``).
    /// Inlinable, as the public initializers are: the input's entry is made here, and a client
    /// module must specialize it for its transducer (unspecialized, a send costs 12× the
    /// instructions).
    @inlinable
    package init(
        initialState: T.State, env: T.Env, initialEvent: T.Event?, instrument: (any RuntimeInstrument)?,
        observer: (any RuntimeObserver<T.Event>)?, queueCapacity: Int, stepLimit: Int
    ) {
        let core = RuntimeCore<T>(
            env: env, instrument: instrument, observer: observer, queueCapacity: queueCapacity, stepLimit: stepLimit,
            hostKind: "BaseRuntime")
        self.core = core
        storedState = initialState
        input = BaseRuntime.makeInput(core)
        BaseRuntime.attach(self)
        if let initialEvent { try? core.post(initialEvent, style: .initial) }
    }

    /// A host for a transducer without `Env`; see ``init(of:initialState:env:initialEvent:instrument:queueCapacity:stepLimit:)``.
    @inlinable
    public init(
        of: T.Type = T.self, initialState: T.State = T.initialState, initialEvent: T.Event? = nil,
        instrument: (any RuntimeInstrument)? = nil, queueCapacity: Int = defaultQueueCapacity,
        stepLimit: Int = defaultStepLimit
    ) where T.Env == Void {
        self.init(
            of: of, initialState: initialState, env: (), initialEvent: initialEvent, instrument: instrument,
            queueCapacity: queueCapacity, stepLimit: stepLimit)
    }

    deinit { core.latch(.deallocated) }

    /// Reads the state on the host's isolation.
    public func withState<R: Sendable>(_ body: (T.State) throws -> R) rethrows -> R { try body(storedState) }

    /// The process-unique identity of this runtime, as instruments record it.
    public nonisolated var runtimeID: RuntimeID { core.id }
    /// `active` until the runtime stops; then how it stopped. Readable from any thread.
    public nonisolated var lifecycle: RuntimeLifecycle { core.lifecycle }
    /// The error latched by a failure, if any.
    public nonisolated var failure: (any Error)? { core.failure }

    /// Stops the runtime at once: cancels every task, fails every waiter with
    /// ``RuntimeError/cancelled`` and discards queued admissions. Idempotent; never waits.
    public nonisolated func cancel() { core.latch(.cancelled) }

    /// Latches a failure with `error`: attached waiters get `error`, later dispatches
    /// ``RuntimeError/systemError``. Only the first latch counts.
    public nonisolated func cancel(with error: any Error) { core.latch(.failed, error: error) }

    /// Runs the compute plane's drain on `host`'s isolation (see ``RuntimeHost``).
    ///
    /// The witnesses hop through a function with an `isolated` parameter rather than take one
    /// themselves: such a witness crashes Swift 6.3's IR generation (its thunk asks a concrete
    /// conformance for `Actor.unownedExecutor` as if it were abstract).
    @inline(__always)
    @inlinable
    static func drain(_ host: BaseRuntime) async { await drainIsolated(host) }

    @inlinable
    static func drainIsolated(_ host: isolated BaseRuntime) async {
        await host.core.drain(
            transduce: { event in T.transduce(&host.storedState, event: event) },
            respond: { event in T.response(state: host.storedState, event: event) })
    }

    /// Runs the cycle of a dispatch that claimed the gate, on `host`'s isolation (the fast path,
    /// see ``RuntimeHost``): with closures that do not escape; escaping ones are made only when
    /// the cycle continues in a drain task.
    @inlinable
    static func runClaimed(_ host: BaseRuntime, _ admission: RuntimeCore<T>.InlineAdmission) async throws
        -> RuntimeCore<T>.DispatchRest
    {
        try await runClaimedIsolated(host, admission)
    }

    @inlinable
    static func runClaimedIsolated(_ host: isolated BaseRuntime, _ admission: RuntimeCore<T>.InlineAdmission) throws
        -> RuntimeCore<T>.DispatchRest
    {
        try host.core.runClaimed(
            admission, transduce: { event in T.transduce(&host.storedState, event: event) },
            respond: { event in T.response(state: host.storedState, event: event) },
            continueInDrainTask: { rest in
                host.core.continueInDrainTask(
                    rest, transduce: { event in T.transduce(&host.storedState, event: event) },
                    respond: { event in T.response(state: host.storedState, event: event) })
            })
    }

    /// The state, read in a cycle (on this host's isolation) for an instrument that captures it.
    @inlinable
    static func committedState(_ host: BaseRuntime) -> Any {
        host.assumeIsolated { AlreadyIsolated($0.storedState) }.value
    }

    /// Whether nothing is left to happen on its own (``RuntimeCore/isQuiet``), for test stores.
    package nonisolated var isQuiet: Bool { core.isQuiet }
    /// Live managed tasks, for tests.
    package nonisolated var liveTaskCount: Int { core.liveTaskCount }
    /// Whether nobody holds the gate, for tests that need a quiet gate before their next step.
    package nonisolated var gateIsIdle: Bool { core.gateIsIdle }
    /// Waiters made for this host's callers so far, for tests of the fast path.
    package nonisolated var waitersMade: Int { core.waitersMade.load(ordering: .relaxed) }
    /// Drain tasks this host's runtime started so far, for tests of the fast path.
    package nonisolated var drainTasksStarted: Int { core.drainTasksStarted.load(ordering: .relaxed) }
}
