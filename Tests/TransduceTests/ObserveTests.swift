import Observation
import Testing
import TransduceTestSupport

@testable import Transduce

/// An observable model that is safe to read and write from any thread: the registrar tracks
/// access and mutation, the lock guards the value.
final class Session: Observable, Sendable {
    private let registrar = ObservationRegistrar()
    private let storage: Lock<String>
    init(_ user: String) { storage = Lock(user) }
    var user: String {
        get {
            registrar.access(self, keyPath: \.user)
            return storage.withLock { $0 }
        }
        set { registrar.withMutation(of: self, keyPath: \.user) { storage.withLock { $0 = newValue } } }
    }
}

nonisolated enum Profile: Transducer {
    struct State: Sendable { var seen: [String] = [] }
    enum Event: Sendable { case start, startRequesting, startFailing, stop, seen(String), noop }
    struct Env: Sendable {
        /// Weak: the observation must end when the session goes away.
        weak var session: Session?
        var strong: Session?
        var gate = Latch("gate")
        var blockOn: String? = nil
        var calls = Counter()
    }
    typealias Response = Int
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .start:
            return .observe(\.session, keyPath: \.user, id: "observe-user") { input, user in try input.post(.seen(user)) }
        case .startRequesting:
            return .observe(\.session, keyPath: \.user, id: "observe-user") { input, user in
                _ = try await input.request(.seen(user))
            }
        case .startFailing:
            return .observe(\.session, keyPath: \.user, id: "observe-user") { _, user in
                if user == "boom" { throw Boom() }
            }
        case .stop:
            return .cancel("observe-user")
        case .seen(let user):
            state.seen.append(user)
            return .action(nonsendingOperation: { env in
                env.calls.increment()
                if env.blockOn == user { await env.gate.wait() }
                return nil
            })
        case .noop:
            return .none
        }
    }
    static func response(state: State, event: Event) -> Int { state.seen.count }
}

@Suite struct ObserveTests {
    @Test(arguments: 0..<10) func initialValueThenEachChangeInOrder(_ iteration: Int) async throws {
        let session = Session("a")
        let host = BaseRuntime(of: Profile.self, env: .init(session: session))
        try await host.input.send(.start)
        try await eventually("initial value") { await host.state.seen == ["a"] }
        for (i, user) in ["b", "c", "d"].enumerated() {
            await Task.detached { session.user = user }.value
            try await eventually("change \(user)") { await host.state.seen.count == i + 2 }
        }
        #expect(await host.state.seen == ["a", "b", "c", "d"])
        host.cancel()
    }

    @Test func burstsAreCoalescedIntoTheLatestValue() async throws {
        let session = Session("a")
        let host = BaseRuntime(of: Profile.self, env: .init(session: session))
        try await host.input.send(.start)
        try await eventually("initial value") { await host.state.seen == ["a"] }
        for i in 0..<100 { session.user = "v\(i)" }
        try await eventually("latest value") { await host.state.seen.last == "v99" }
        let seen = await host.state.seen
        let indices = seen.dropFirst().map { Int($0.dropFirst())! }
        #expect(indices == indices.sorted())
        host.cancel()
    }

    @Test func cancelEffectStopsTheObservation() async throws {
        let instrument = TestInstrument()
        let session = Session("a")
        let host = BaseRuntime(of: Profile.self, env: .init(session: session), instrument: instrument)
        try await host.input.send(.start)
        try await eventually("initial value") { await host.state.seen == ["a"] }
        try await host.input.send(.stop)
        try await eventually("observe task ended") { instrument.all.contains { $0.brief == "settle(cancelled)" } }
        session.user = "after-stop"
        try await host.input.send(.noop)
        #expect(await host.state.seen == ["a"])
        #expect(host.liveTaskCount == 0)
        // The trace shows the spawn, the event it dispatched, and its end.
        let briefs = instrument.all.map(\.brief)
        #expect(briefs.contains("spawn(observe-user,switchToLatest,0)"))
        let spawned = instrument.all.compactMap { event -> UInt64? in
            if case .taskSpawn(let task, _, _, _, _, _) = event.detail { return task } else { return nil }
        }
        #expect(
            instrument.all.contains { event in
                if case .dispatch(_, .post, let label, let origin, _) = event.detail {
                    return origin == spawned.first && label.description == "seen"
                }
                return false
            })
        #expect(briefs.contains("cancel(cancelEffect)"))
    }

    @Test func hostTeardownEndsTheObservationAndLeaksNothing() async throws {
        let instrument = TestInstrument()
        var session: Session? = Session("a")
        weak let weakSession = session
        var host: BaseRuntime<Profile>? = BaseRuntime(
            of: Profile.self, env: .init(session: session, strong: session), instrument: instrument)
        try await host!.input.send(.start)
        let running = host!
        try await eventually("initial value") { await running.state.seen == ["a"] }
        _ = consume running
        host = nil
        session = nil
        try await eventually("observe task ended") { instrument.all.contains { $0.brief == "settle(cancelled)" } }
        try await eventually("session released") { weakSession == nil }
        #expect(instrument.all.contains { $0.brief == "cancel(runtimeStop)" })
    }

    @Test func deallocatingTheObjectEndsTheObservation() async throws {
        let instrument = TestInstrument()
        var session: Session? = Session("a")
        weak let weakSession = session
        let host = BaseRuntime(of: Profile.self, env: .init(session: session), instrument: instrument)
        try await host.input.send(.start)
        try await eventually("initial value") { await host.state.seen == ["a"] }
        session = nil
        #expect(weakSession == nil)
        try await eventually("observe task settled") { instrument.all.contains { $0.brief == "settle(settle)" } }
        try await host.input.send(.noop)
        #expect(await host.state.seen == ["a"])
        #expect(host.liveTaskCount == 0)
        #expect(host.lifecycle == .active)
    }

    @Test func requestInTheHandlerGivesBackPressure() async throws {
        let instrument = TestInstrument()
        let session = Session("a")
        var env = Profile.Env(session: session)
        env.blockOn = "a"
        let host = BaseRuntime(of: Profile.self, env: env, instrument: instrument)
        try await host.input.send(.startRequesting)
        // The handler's request for "a" is held by the action waiting on the gate.
        try await env.gate.waitForArrivals()
        session.user = "b"
        session.user = "c"
        #expect(await host.state.seen == ["a"])
        #expect(env.calls.count == 1)
        env.gate.open()
        // The next delivery comes after the request settles, with the latest value.
        try await eventually("latest value after the request settled") { await host.state.seen == ["a", "c"] }
        #expect(env.calls.count == 2)
        host.cancel()
    }

    @Test func aThrowingHandlerFailsTheRuntime() async throws {
        let session = Session("ok")
        let host = BaseRuntime(of: Profile.self, env: .init(session: session))
        try await host.input.send(.startFailing)
        session.user = "boom"
        try await eventually("failure latched") { host.lifecycle == .failed }
        #expect(host.failure is Boom)
        await expectThrows(RuntimeError.systemError) { try await host.input.send(.noop) }
    }

    @Test func summaryIsATask() {
        var state = Profile.State()
        #expect(Profile.transduce(&state, event: .start).summary == .task(id: "observe-user", option: .switchToLatest))
    }
}
