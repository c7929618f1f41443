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
    @ObservationIgnored public nonisolated let input: T.Input
    @ObservationIgnored private nonisolated let core: RuntimeCore<T>

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

    public convenience init(
        of: T.Type = T.self, initialState: T.State = T.initialState, initialEvent: T.Event? = nil,
        instrument: (any RuntimeInstrument)? = nil, queueCapacity: Int = 1_024, stepLimit: Int = 10_000
    ) where T.Env == Void {
        self.init(
            of: of, initialState: initialState, env: (), initialEvent: initialEvent, instrument: instrument,
            queueCapacity: queueCapacity, stepLimit: stepLimit)
    }

    deinit { core.latch(.deallocated) }

    public nonisolated var runtimeID: RuntimeID { core.id }
    public nonisolated var lifecycle: RuntimeLifecycle { core.lifecycle }
    public nonisolated var failure: (any Error)? { core.failure }
    public nonisolated func cancel() { core.latch(.cancelled) }
    public nonisolated func cancel(with error: any Error) { core.latch(.failed, error: error) }

    public func send(_ event: T.Event) async throws { try await input.send(event) }
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
