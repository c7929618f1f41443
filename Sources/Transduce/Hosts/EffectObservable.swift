import Observation

/// An Observation-based host whose compute plane runs on the main actor.
///
/// ``state`` is observable (`withObservationTracking`, `Observations { host.state }`, SwiftUI).
/// Like every host it owns the runtime's lifetime: its `deinit` cancels every task.
@MainActor @Observable
public final class EffectObservable<T: Transducer>
where
    T.Event: Sendable, T.Env: Sendable, T.Response: Sendable,
    T.Effect == TransducerEffect<T.Event, T.Env, T.Response>
{
    /// The current state; written only by the compute plane.
    public private(set) var state: T.State
    /// The dispatch handle (`post`, `send`, `request`, `uniqueRequest`): `Sendable`, usable from any
    /// isolation, and never retains the host.
    @ObservationIgnored public nonisolated let input: T.Input
    @ObservationIgnored private nonisolated let core: RuntimeCore<T>

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
    public init(
        of: T.Type = T.self, initialState: T.State = T.initialState, env: T.Env, initialEvent: T.Event? = nil,
        instrument: (any RuntimeInstrument)? = nil, queueCapacity: Int = 1_024, stepLimit: Int = 10_000
    ) {
        core = RuntimeCore(
            env: env, instrument: instrument, queueCapacity: queueCapacity, stepLimit: stepLimit,
            hostKind: "EffectObservable")
        state = initialState
        input = core.makeInput()
        core.attach(
            HostHooks(
                startDrain: { [weak self] in self?.startDrain() },
                drain: { [weak self] dispatch in await self?.drain(until: dispatch) }))
        if let initialEvent { try? core.post(initialEvent, style: .initial) }
    }

    /// A host for a transducer without `Env`; see ``init(of:initialState:env:initialEvent:instrument:queueCapacity:stepLimit:)``.
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

    /// `input.send(event)`: returns when the event's cycle has committed state.
    public func send(_ event: T.Event) async throws { try await input.send(event) }
    /// `input.request(event)`: the response once the whole chain has settled, tasks included.
    @discardableResult
    public func request(_ event: T.Event) async throws -> T.Response? { try await input.request(event) }

    nonisolated func startDrain() -> Task<Void, Never> {
        Task { @MainActor [weak self] in await self?.drain(until: nil) }
    }

    func drain(until dispatch: UInt64?) async {
        await core.drain(
            until: dispatch, transduce: { event in T.transduce(&self.state, event: event) },
            respond: { event in T.response(state: self.state, event: event) })
    }

    package nonisolated var liveTaskCount: Int { core.liveTaskCount }
}
