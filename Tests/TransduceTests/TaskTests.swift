import Synchronization
import Testing
import TransduceTestSupport

@testable import Transduce

@Suite struct TaskTests {
    @Test func taskMutatesStateWithEnv() async throws {
        // Scenario 13.
        let host = BaseRuntime(of: LoaderFeature.self, env: .init(fetch: { ["hello from env"] }))
        try await host.input.send(.load)
        try await eventually("items loaded") { await host.state.items == ["hello from env"] }
    }

    @Test(arguments: 0..<50) func requestLifecycleChart(_ iteration: Int) async throws {
        // Scenario 14: the request is suspended on its task while `.ping` gets through the gate.
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let request = Task { try await host.input.request(.load) }
        try await env.gate.waitForArrivals()
        try await withTimeout { try await host.input.send(.ping) }
        #expect(await host.state.events == ["load", "ping"])
        env.gate.open()
        let response = try await withTimeout { try await request.value }
        #expect(response == "x")
        #expect(await host.state.events == ["load", "ping", "loaded(x)"])
        #expect(env.log.all == ["task-start", "task-end"])
    }

    @Test func taskRequestFollowsTheChain() async throws {
        // Scenario 15.
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let request = Task { try await host.input.request(.chainA) }
        try await env.gate.waitForArrivals()
        #expect(await host.state.events == ["chainA", "chainB"])
        env.gate.open()
        #expect(try await withTimeout { try await request.value } == "done")
    }

    @Test func taskResponseStopsAfterOneCycle() async throws {
        // Scenario 16.
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let response = try await withTimeout { try await host.input.request(.respondA) }
        #expect(response == "step")
        env.gate.open()
        try await eventually("B finished") { await host.state.value == "done" }
    }

    @Test func anonymousSettleGivesNil() async throws {
        // Scenario 17.
        let host = BaseRuntime(of: AnonFeature.self, env: .init())
        let one = Task { try await host.input.request(.run) }
        let two = Task { try await host.input.request(.run) }
        #expect(try await withTimeout { try await one.value } == nil)
        #expect(try await withTimeout { try await two.value } == nil)
        #expect(await host.state.spawned == 2)
    }

    @Test func requestReturnsTaskResult() async throws {
        // Scenario 18.
        let host = BaseRuntime(of: SleepyFeature.self)
        #expect(try await withTimeout { try await host.input.request(.load) } == "hello")
    }

    @Test(arguments: 0..<50) func shareableSharesOneInstance(_ iteration: Int) async throws {
        // Scenario 19.
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let one = Task { try await host.input.request(.fetchShared) }
        try await env.gate.waitForArrivals()
        let two = Task { try await host.input.request(.fetchShared) }
        try await eventually("second request transduced") { await host.state.events.count == 2 }
        env.gate.open()
        let a = try await withTimeout { try await one.value }
        let b = try await withTimeout { try await two.value }
        #expect(a == "result-1" && b == "result-1")
        #expect(env.counter.count == 1)
    }

    @Test func shareableFailureFailsBothAndLatches() async throws {
        // Scenario 20.
        var env = TaskProbe.Env()
        env.taskResult = { _ in throw Boom() }
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let one = Task { try await host.input.request(.fetchShared) }
        try await env.gate.waitForArrivals()
        let two = Task { try await host.input.request(.fetchShared) }
        try await eventually("second request transduced") { await host.state.events.count == 2 }
        env.gate.open()
        await expectThrows(Boom()) { _ = try await withTimeout { try await one.value } }
        await expectThrows(Boom()) { _ = try await withTimeout { try await two.value } }
        #expect(env.counter.count == 1)
        #expect(host.lifecycle == .failed)
        await expectThrows(RuntimeError.systemError) { try await host.input.send(.noop) }
    }

    @Test func shareableStartsFreshAfterCompletion() async throws {
        // Scenario 21.
        let env = TaskProbe.Env()
        env.gate.open()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        #expect(try await withTimeout { try await host.input.request(.fetchShared) } == "result-1")
        #expect(try await withTimeout { try await host.input.request(.fetchShared) } == "result-2")
        #expect(env.counter.count == 2)
    }

    @Test(arguments: 0..<50) func shareableAfterCancelStartsFresh(_ iteration: Int) async throws {
        // Scenario 22 (expected outcome changed by B.2-14).
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let one = Task { try await host.input.request(.fetchShared) }
        try await env.gate.waitForArrivals()
        try await host.input.send(.stop)
        await expectCancellation { _ = try await withTimeout { try await one.value } }
        let two = try await withTimeout { try await host.input.request(.fetchShared) }
        #expect(two == "result-2")
        #expect(env.counter.count == 2)
        env.gate.open()
        #expect(host.lifecycle == .active)
        #expect(host.liveTaskCount == 0)
    }

    @Test(arguments: 0..<50) func switchToLatestTransfersWaiters(_ iteration: Int) async throws {
        // Scenario 23.
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let one = Task { try await host.input.request(.fetchSwitch) }
        try await env.gate.waitForArrivals()
        let two = Task { try await host.input.request(.fetchSwitch) }
        let a = try await withTimeout { try await one.value }
        let b = try await withTimeout { try await two.value }
        #expect(a == "result-2" && b == "result-2")
        #expect(env.counter.count == 2)
        #expect(env.log.all.sorted() == ["cancelled-1", "run-1", "run-2"])
    }

    @Test func switchToLatestReplacementFailure() async throws {
        // Scenario 24.
        var env = TaskProbe.Env()
        env.taskResult = { n in if n == 2 { throw Boom() } else { "result-\(n)" } }
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let one = Task { try await host.input.request(.fetchSwitch) }
        try await env.gate.waitForArrivals()
        let two = Task { try await host.input.request(.fetchSwitch) }
        await expectThrows(Boom()) { _ = try await withTimeout { try await one.value } }
        await expectThrows(Boom()) { _ = try await withTimeout { try await two.value } }
        #expect(host.lifecycle == .failed)
    }

    @Test func postedSwitchToLatestKeepsWaiters() async throws {
        // Scenario 25.
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let request = Task { try await host.input.request(.restart) }
        try await env.gate.waitForArrivals()
        try host.input.post(.restart)
        #expect(try await withTimeout { try await request.value } == "instance-2")
    }

    @Test func cancelStopsATicker() async throws {
        // Scenario 26: after `.stopTicker` no tick arrives; checked against the task's own end.
        let host = BaseRuntime(of: LoaderFeature.self, env: .init(fetch: { [] }))
        try await host.input.send(.startTicker)
        try await eventually("two ticks", timeout: 10) { await host.state.ticks >= 2 }
        try await host.input.send(.stopTicker)
        #expect(host.liveTaskCount == 0)
        // A tick posted before the cancel may still be queued: flush it, then watch for 60 ms.
        try await host.input.send(.noop)
        let ticks = await host.state.ticks
        try await Task.sleep(for: .milliseconds(60))
        try await host.input.send(.noop)
        #expect(await host.state.ticks == ticks)
    }

    @Test func aCancelledTaskCannotDispatch() async throws {
        let env = CancelledPoster.Env()
        let host = BaseRuntime(of: CancelledPoster.self, env: env)
        try await host.input.send(.start)
        try await env.started.wait(timeout: 10)
        try await host.input.send(.stop)
        env.release.open()
        try await env.finished.wait(timeout: 10)
        #expect(env.outcome.all == ["post: CancellationError()", "send: CancellationError()"])
        try await host.input.send(.noop)
        #expect(await host.state.posted == 0)
    }

    @Test func sequenceCancelsThenStarts() async throws {
        // Scenario 27.
        let env = WorkerFeature.Env()
        let host = BaseRuntime(of: WorkerFeature.self, env: env)
        try await host.input.send(.refresh)
        try await env.started.wait(timeout: 10)
        try await host.input.send(.refresh)
        try await env.oldCancelled.wait(timeout: 10)
        try await eventually("one tick") { await host.state.ticks == 1 }
    }

    @Test func taskFailureLatches() async throws {
        // Scenario 29.
        var env = TaskProbe.Env()
        env.taskResult = { _ in throw Boom() }
        env.gate.open()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        await expectThrows(Boom()) { _ = try await withTimeout { try await host.input.request(.fetchAnon) } }
        await expectThrows(RuntimeError.systemError) { _ = try await host.input.request(.noop) }
        do {
            try await host.input.send(.noop)
        } catch {
            #expect("\(error)".contains("failed earlier"))
        }
        #expect(host.failure is Boom)
    }

    @Test func uniqueRequestCancelsPriorWork() async throws {
        // Scenario 36.
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let a = Task { try await host.input.request(.fetchShared) }
        try await env.gate.waitForArrivals()
        let unique = try await withTimeout { try await host.input.uniqueRequest(.fetchShared) }
        await expectCancellation { _ = try await withTimeout { try await a.value } }
        #expect(unique == "result-2")
        #expect(env.counter.count == 2)
    }

    @Test func laterShareableJoinsTheUniqueInstance() async throws {
        var env = TaskProbe.Env()
        let release = Latch("gate")
        env.taskResult = { n in
            if n == 2 { await release.wait() }
            return "result-\(n)"
        }
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let a = Task { try await host.input.request(.fetchShared) }
        try await env.gate.waitForArrivals()
        let unique = Task { try await host.input.uniqueRequest(.fetchShared) }
        try await release.waitForArrivals()
        let joiner = Task { try await host.input.request(.fetchShared) }
        try await eventually("joiner transduced") { await host.state.events.count == 3 }
        release.open()
        #expect(try await withTimeout { try await unique.value } == "result-2")
        #expect(try await withTimeout { try await joiner.value } == "result-2")
        await expectCancellation { _ = try await withTimeout { try await a.value } }
        #expect(env.counter.count == 2)
    }

    @Test func uniqueRequestKeepsFIFO() async throws {
        // Scenario 37.
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        try host.input.post(.first)
        try await env.gate.waitForArrivals()
        try host.input.post(.restart)
        let unique = Task { try await host.input.uniqueRequest(.ping) }
        try await eventually("unique enqueued") {
            await Task.yield(); return true
        }
        env.gate.open()
        #expect(try await withTimeout { try await unique.value } == "ping")
        let events = await host.state.events
        #expect(events.firstIndex(of: "restart")! < events.firstIndex(of: "ping")!)
        #expect(host.liveTaskCount == 0)
    }

    @Test(arguments: 0..<50) func callerCancellationDropsOnlyTheWait(_ iteration: Int) async throws {
        // Scenario 38.
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let request = Task { try await host.input.request(.load) }
        try await env.gate.waitForArrivals()
        request.cancel()
        await expectCancellation { _ = try await withTimeout { try await request.value } }
        #expect(host.liveTaskCount == 1)
        env.gate.open()
        try await eventually("load completed") { await host.state.value == "x" }
    }
}

nonisolated enum AnonFeature: Transducer {
    struct State: Sendable { var spawned = 0 }
    enum Event: Sendable { case run }
    struct Env: Sendable { var gate = Latch("gate") }
    typealias Response = Int
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        state.spawned += 1
        return .task { _, _ in }
    }
    static func response(state: State, event: Event) -> Int { state.spawned }
}

nonisolated enum SleepyFeature: Transducer {
    struct State: Sendable { var value = "" }
    enum Event: Sendable { case load, loaded(String) }
    typealias Response = String
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .load:
            return .task { _, _ -> TaskReturn in
                try await Task.sleep(for: .milliseconds(1))
                return .request(.loaded("hello"))
            }
        case .loaded(let v):
            state.value = v
            return .none
        }
    }
    static func response(state: State, event: Event) -> String { state.value }
}

nonisolated enum WorkerFeature: Transducer {
    struct State: Sendable { var ticks = 0 }
    enum Event: Sendable { case refresh, tick }
    struct Env: Sendable {
        var started = Latch("worker started")
        var oldCancelled = Latch("old worker cancelled")
        var runs = Counter()
    }
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .refresh:
            return .sequence([
                .cancel("worker"),
                .task(id: "worker") { input, env in
                    if env.runs.increment() == 1 {
                        env.started.open()
                        let gate = Latch("gate")
                        do { try await gate.waitCooperatively() } catch { env.oldCancelled.open() }
                    } else {
                        try input.post(.tick)
                    }
                },
            ])
        case .tick:
            state.ticks += 1
            return .none
        }
    }
}

/// A task that keeps dispatching after it was cancelled.
nonisolated enum CancelledPoster: Transducer {
    struct State: Sendable { var posted = 0 }
    enum Event: Sendable { case start, stop, posted, noop }
    struct Env: Sendable {
        var started = Latch("started")
        var release = Latch("gate")
        var finished = Latch("finished")
        var outcome = TraceLog()
    }
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .start:
            return .task(id: "poster") { input, env in
                env.started.open()
                await env.release.wait()
                do { try input.post(.posted) } catch { env.outcome.append("post: \(error)") }
                do { try await input.send(.posted) } catch { env.outcome.append("send: \(error)") }
                env.finished.open()
            }
        case .stop: return .cancel("poster")
        case .posted:
            state.posted += 1
            return .none
        case .noop: return .none
        }
    }
}
