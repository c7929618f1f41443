import Observation
import Synchronization
import Testing
import TransduceTestSupport

@testable import Transduce

@Suite struct LifecycleTests {
    @Test func firstLatchWins() async throws {
        // Scenario 30.
        let host = BaseRuntime(of: CounterFeature.self)
        host.cancel(with: Boom())
        host.cancel(with: Later())
        host.cancel()
        #expect(host.failure is Boom)
        #expect(host.lifecycle == .failed)
    }

    @Test func cancelWithTrackedTasks() async throws {
        // Scenario 31.
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let request = Task { try await host.input.request(.load) }
        try await env.gate.waitForArrivals()
        host.cancel()
        await expectThrows(RuntimeError.cancelled) { _ = try await withTimeout { try await request.value } }
        await expectThrows(RuntimeError.cancelled) { _ = try await host.input.request(.noop) }
        #expect(await host.state.events == ["load"])
        #expect(host.liveTaskCount == 0)
        env.gate.open()
    }

    @Test func cancelWithErrorGivesWaitersTheError() async throws {
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let request = Task { try await host.input.request(.fetchShared) }
        try await env.gate.waitForArrivals()
        host.cancel(with: Boom())
        await expectThrows(Boom()) { _ = try await withTimeout { try await request.value } }
        await expectThrows(RuntimeError.systemError) { _ = try await host.input.request(.noop) }
    }

    @Test func taskSeesCancellationOnRuntimeCancel() async throws {
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        let request = Task { try await host.input.request(.fetchShared) }
        try await env.gate.waitForArrivals()
        host.cancel()
        await expectThrows(RuntimeError.cancelled) { _ = try await withTimeout { try await request.value } }
        // The cooperative gate wait in the task ends because the task was cancelled.
        try await eventually("task unwound") { env.log.all.contains("cancelled-1") }
    }

    @Test func dispatchAfterCancelThrows() async throws {
        // Scenario 32.
        let host = BaseRuntime(of: CounterFeature.self)
        host.cancel()
        await expectThrows(RuntimeError.cancelled) { try host.input.post(.increment) }
        await expectThrows(RuntimeError.cancelled) { try await host.input.send(.increment) }
        await expectThrows(RuntimeError.cancelled) { _ = try await host.input.request(.increment) }
        await expectThrows(RuntimeError.cancelled) { _ = try await host.input.uniqueRequest(.increment) }
        #expect(await host.state.count == 0)
        #expect(host.lifecycle == .cancelled)
    }

    @Test func inputOutlivesHost() async throws {
        // Scenario 34.
        var host: BaseRuntime<CounterFeature>? = BaseRuntime(of: CounterFeature.self)
        let input = host!.input
        try await input.send(.increment)
        host = nil
        await expectThrows(RuntimeError.deallocated) { try input.post(.increment) }
        await expectThrows(RuntimeError.deallocated) { try await input.send(.increment) }
        await expectThrows(RuntimeError.deallocated) { _ = try await input.request(.increment) }
    }

    @Test(arguments: 0..<20) func hostDeinitCancelsTasks(_ iteration: Int) async throws {
        // Scenario 35.
        let env = TaskProbe.Env()
        var host: BaseRuntime<TaskProbe>? = BaseRuntime(of: TaskProbe.self, env: env)
        weak let weakHost = host
        let input = host!.input
        let request = Task { try await input.request(.fetchShared) }
        try await env.gate.waitForArrivals()
        host = nil
        #expect(weakHost == nil)
        await expectThrows(RuntimeError.deallocated) { _ = try await withTimeout { try await request.value } }
        try await eventually("task saw cancellation") { env.log.all.contains("cancelled-1") }
    }

    @Test func postIntoAFullQueueThrowsAndLosesNothing() async throws {
        let env = GateProbe.Env()
        let host = BaseRuntime(of: GateProbe.self, env: env, queueCapacity: 3)
        try host.input.post(.first)
        try await env.gate.waitForArrivals()
        try host.input.post(.a)
        try host.input.post(.b)
        try host.input.post(.c)
        await expectThrows(RuntimeError.queueFull(capacity: 3)) { try host.input.post(.x) }
        env.gate.open()
        try await host.input.send(.noop)
        #expect(await host.state.events == ["first", "firstFinished", "a", "b", "c", "noop"])
    }

    @Test func awaitedDispatchWaitsForRoom() async throws {
        let env = GateProbe.Env()
        let host = BaseRuntime(of: GateProbe.self, env: env, queueCapacity: 2)
        try host.input.post(.first)
        try await env.gate.waitForArrivals()
        try host.input.post(.a)
        try host.input.post(.b)
        let waiting = (0..<3).map { _ in Task { try await host.input.send(.c) } }
        await expectThrows(RuntimeError.queueFull(capacity: 2)) { try host.input.post(.x) }
        env.gate.open()
        for task in waiting { try await withTimeout { try await task.value } }
        #expect(await host.state.events == ["first", "firstFinished", "a", "b", "c", "c", "c"])
    }

    @Test func stateStaysFrozenAfterLatch() async throws {
        let host = BaseRuntime(of: CounterFeature.self)
        try await host.input.send(.increment)
        host.cancel(with: Boom())
        #expect(await host.state.count == 1)
        #expect(await host.withState { $0.count } == 1)
    }
}

@Suite struct ObservableHostTests {
    @Test @MainActor func sendCommitsAndFiresOneChange() async throws {
        let host = EffectObservable(of: CounterFeature.self)
        let changes = Counter()
        withObservationTracking {
            _ = host.state
        } onChange: {
            changes.increment()
        }
        try await host.send(.increment)
        #expect(host.state.count == 1)
        #expect(changes.count == 1)
    }

    @Test @MainActor func requestsAreOrdered() async throws {
        let host = EffectObservable(of: LogFeature.self)
        for i in 1...5 { #expect(try await host.request(.record(i)) == Array(1...i)) }
    }

    @Test @MainActor func observationsStreamTheCount() async throws {
        // Scenario 44.
        let host = EffectObservable(of: CounterFeature.self)
        let seen = Task { @MainActor in
            var values: [Int] = []
            for await count in Observations({ host.state.count }) {
                values.append(count)
                if count == 3 { break }
            }
            return values
        }
        for _ in 0..<3 { try await host.send(.increment) }
        let values = try await withTimeout { await seen.value }
        #expect(values.last == 3)
    }

    @Test @MainActor func deinitCancelsTasks() async throws {
        let env = TaskProbe.Env()
        var host: EffectObservable<TaskProbe>? = EffectObservable(of: TaskProbe.self, env: env)
        let input = host!.input
        let request = Task { try await input.request(.fetchShared) }
        try await env.gate.waitForArrivals()
        host = nil
        await expectThrows(RuntimeError.deallocated) { _ = try await withTimeout { try await request.value } }
        try await eventually("task saw cancellation") { env.log.all.contains("cancelled-1") }
    }

    @Test @MainActor func cancelAndFailureWork() async throws {
        let host = EffectObservable(of: CounterFeature.self, initialState: .init(count: 5, label: "custom"))
        #expect(host.state.label == "custom")
        host.cancel(with: Boom())
        #expect(host.lifecycle == .failed)
        await expectThrows(RuntimeError.systemError) { try await host.send(.increment) }
    }

    @Test @MainActor func asyncActionHoldsTheGate() async throws {
        let env = GateProbe.Env()
        let host = EffectObservable(of: GateProbe.self, env: env)
        let first = Task { try await host.send(.first) }
        try await env.gate.waitForArrivals()
        let second = Task { try await host.send(.second) }
        await Task.yield()
        #expect(host.state.events == ["first"])
        env.gate.open()
        try await withTimeout { try await first.value }
        try await withTimeout { try await second.value }
        #expect(host.state.events == ["first", "firstFinished", "second"])
    }

    @Test @MainActor func switchToLatestOnMainActor() async throws {
        let env = TaskProbe.Env()
        let host = EffectObservable(of: TaskProbe.self, env: env)
        let one = Task { try await host.request(.fetchSwitch) }
        try await env.gate.waitForArrivals()
        let two = Task { try await host.request(.fetchSwitch) }
        #expect(try await withTimeout { try await one.value } == "result-2")
        #expect(try await withTimeout { try await two.value } == "result-2")
    }
}
