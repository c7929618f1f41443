import Testing
import TransduceTestSupport

@testable import Transduce

/// The fast path: an awaited dispatch into an idle gate runs its cycle at once and returns its
/// result without a waiter; it is left exactly when the caller must wait.
@Suite struct FastPathTests {
    @Test func sendsIntoAnIdleGateMakeNoWaiter() async throws {
        let host = BaseRuntime(of: CounterFeature.self)
        for _ in 0..<100 { try await host.input.send(.increment) }
        #expect(await host.state.count == 100)
        #expect(host.waitersMade == 0)
    }

    @Test func aRequestThatSettlesInItsCycleMakesNoWaiter() async throws {
        let host = BaseRuntime(of: GateProbe.self, env: .init())
        #expect(try await host.input.request(.begin) == "response-to-done")
        #expect(try await host.input.request(.noop) == "noop")
        #expect(host.waitersMade == 0)
    }

    @Test func theFastPathWorksOnTheMainActorToo() async throws {
        let host = await EffectObservable(of: CounterFeature.self)
        for _ in 0..<10 { try await host.input.send(.increment) }
        #expect(await host.state.count == 10)
        #expect(host.waitersMade == 0)
    }

    @Test func aRequestCarriedByATaskWaits() async throws {
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        env.gate.open()
        #expect(try await host.input.request(.load) == "x")
        #expect(host.waitersMade == 1)
        // A send that starts a task resolves at the hand-off: no waiter. (Into an idle gate: the
        // first task's drain may still hold it after its caller resumed.)
        try await eventually("the first task's drain ended") { host.gateIsIdle }
        try await host.input.send(.load)
        #expect(host.waitersMade == 1)
    }

    @Test func aTaskWhoseResultReentersAnIdleGateDrainsItItself() async throws {
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        // The task's result must find the gate idle: it finishes only after the cycle that
        // spawned it has left. (Finishing first, its result queues behind that inline cycle,
        // which then rightly hands the gate to a drain task.)
        let request = Task { try await host.input.request(.load) }
        try await env.gate.waitForArrivals()
        try await eventually("the spawning cycle left the gate") { host.gateIsIdle }
        env.gate.open()
        #expect(try await withTimeout { try await request.value } == "x")
        #expect(env.log.all.filter { $0 == "task-end" }.count == 1)
        try await eventually("the task's drain ended") { host.gateIsIdle && host.liveTaskCount == 0 }
        #expect(host.drainTasksStarted == 0)
        // A post always queues: its cycle runs in a drain task.
        try host.input.post(.noop)
        try await eventually("the post's cycle ran") { host.drainTasksStarted == 1 && host.gateIsIdle }
        #expect(await host.state.events == ["load", "loaded(x)", "noop"])
    }

    @Test func anAsyncActionMovesTheRestToADrainTask() async throws {
        let env = GateProbe.Env()
        let host = BaseRuntime(of: GateProbe.self, env: env)
        let first = Task { try await host.input.send(.first) }
        try await env.gate.waitForArrivals()
        #expect(host.waitersMade == 1)
        env.gate.open()
        try await withTimeout { try await first.value }
        #expect(await host.state.events == ["first", "firstFinished"])
        // The gate is idle again: the next send is inline.
        try await host.input.send(.noop)
        #expect(host.waitersMade == 1)
    }

    @Test func aReentrantAwaitedDispatchIsRefusedOnTheDrainTask() async throws {
        let env = GateProbe.Env()
        let host = BaseRuntime(of: GateProbe.self, env: env)
        env.box.input = host.input
        try await withTimeout { try await host.input.send(.reenter) }
        #expect(env.log.all == [RuntimeError.reentrantDispatch.description])
    }
}
