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
        // A send that starts a task resolves at the hand-off: no waiter.
        try await host.input.send(.load)
        #expect(host.waitersMade == 1)
    }

    @Test func aTaskWhoseResultReentersAnIdleGateDrainsItItself() async throws {
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env)
        env.gate.open()
        for _ in 0..<20 { #expect(try await host.input.request(.load) == "x") }
        #expect(env.log.all.filter { $0 == "task-end" }.count == 20)
        #expect(host.drainTasksStarted == 0)
        // A post always queues: its cycle runs in a drain task.
        try host.input.post(.noop)
        try await eventually("the post's cycle ran") { host.drainTasksStarted == 1 && host.liveTaskCount == 0 }
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
