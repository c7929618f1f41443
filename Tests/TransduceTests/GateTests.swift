import Synchronization
import Testing
import TransduceTestSupport

@testable import Transduce

@Suite struct GateTests {
    @Test(arguments: 0..<50) func asyncActionHoldsTheGate(_ iteration: Int) async throws {
        // Scenario 9.
        let env = GateProbe.Env()
        let instrument = TestInstrument()
        let host = BaseRuntime(of: GateProbe.self, env: env, instrument: instrument)
        let first = Task { try await host.input.send(.first) }
        try await env.gate.waitForArrivals()
        let second = Task { try await host.input.send(.second) }
        // Queued behind the async action, which still holds the gate: both callers wait (the
        // first for the drain task its cycle moved to), so each has a waiter.
        try await instrument.waitForDispatch(of: "second")
        #expect(await host.state.events == ["first"])
        #expect(host.waitersMade == 2)
        env.gate.open()
        try await withTimeout { try await first.value }
        try await withTimeout { try await second.value }
        #expect(await host.state.events == ["first", "firstFinished", "second"])
    }

    @Test func cancelDuringAsyncActionThrowsBeforeTheGateOpens() async throws {
        // Scenario 10: the action ignores cancellation.
        let env = GateProbe.Env()
        let host = BaseRuntime(of: GateProbe.self, env: env)
        let request = Task { try await host.input.request(.start) }
        try await env.gate.waitForArrivals()
        host.cancel()
        await expectThrows(RuntimeError.cancelled) { _ = try await withTimeout { try await request.value } }
        #expect(!env.gate.isOpen)
        env.gate.open()
        try await eventually("action returned") { env.log.all == ["start-returned"] }
        #expect(await host.state.events == ["start"])
        await expectThrows(RuntimeError.cancelled) { try host.input.post(.noop) }
    }

    @Test func cancelInsideActionDiscardsItsEvent() async throws {
        // Scenario 11: cancel() runs inside the action, just before it returns.
        let box = Lock<BaseRuntime<GateProbe>?>(nil)
        var env = GateProbe.Env()
        env.cancelInside = { box.withLock { $0?.cancel() } }
        env.gate.open()
        let host = BaseRuntime(of: GateProbe.self, env: env)
        box.withLock { $0 = host }
        await expectThrows(RuntimeError.cancelled) { _ = try await withTimeout { try await host.input.request(.start) } }
        #expect(await host.state.events == ["start"])
        #expect(host.lifecycle == .cancelled)
        box.withLock { $0 = nil }
    }

    @Test func queuedEventsAreDiscardedOnCancel() async throws {
        // Scenario 33.
        let env = GateProbe.Env()
        let instrument = TestInstrument()
        let host = BaseRuntime(of: GateProbe.self, env: env, instrument: instrument)
        try host.input.post(.first)
        try await env.gate.waitForArrivals()
        try host.input.post(.a)
        try host.input.post(.b)
        let awaited = Task { try await host.input.send(.c) }
        try await instrument.waitForDispatch(of: "c")
        host.cancel()
        await expectThrows(RuntimeError.cancelled) { try await withTimeout { try await awaited.value } }
        env.gate.open()
        await expectThrows(RuntimeError.cancelled) { try host.input.post(.noop) }
        #expect(await host.state.events == ["first"])
    }

    @Test func reentrantAwaitedDispatchThrows() async throws {
        // Scenario 39.
        let env = GateProbe.Env()
        let host = BaseRuntime(of: GateProbe.self, env: env)
        env.box.input = host.input
        try await withTimeout { try await host.input.send(.reenter) }
        #expect(env.log.all == [RuntimeError.reentrantDispatch.description])
        try await host.input.send(.noop)
        #expect(await host.state.events == ["reenter", "x", "noop"])
    }

    @Test func asyncActionRunsOnTheHostActor() async throws {
        let host = BaseRuntime(of: IsolationProbe.self, env: IsolationProbe.Env())
        try await withTimeout { try await host.input.send(.check) }
        #expect(await host.state.onHost == true)
    }

    @Test func initBuffersBehindAnAsyncAction() async throws {
        // Scenario 40: three clients wait behind the bootstrap action, then run in order.
        let env = GateProbe.Env()
        let instrument = TestInstrument()
        let host = BaseRuntime(of: GateProbe.self, env: env, initialEvent: .bootstrap, instrument: instrument)
        try await env.gate.waitForArrivals()
        let clients = (0..<3).map { _ in Task { try await host.input.send(.fetch) } }
        try await instrument.waitForDispatch(of: "fetch", count: 3)
        #expect(await host.state.events == ["bootstrap"])
        env.gate.open()
        for client in clients { try await withTimeout { try await client.value } }
        #expect(await host.state.events == ["bootstrap", "didInit", "fetch", "fetch", "fetch"])
    }

    @Test func bootstrapTaskDoesNotBuffer() async throws {
        // Control case of scenario 40: a task releases the gate.
        let env = GateProbe.Env()
        let host = BaseRuntime(of: GateProbe.self, env: env, initialEvent: .bootstrapTask)
        try await env.gate.waitForArrivals()
        for _ in 0..<3 { try await withTimeout { try await host.input.send(.fetch) } }
        #expect(await host.state.events == ["bootstrapTask", "fetch", "fetch", "fetch"])
        env.gate.open()
        try await eventually("didInit") { await host.state.events.last == "didInit" }
    }

    @Test func failingAsyncActionLatches() async throws {
        let host = BaseRuntime(of: GateProbe.self, env: .init())
        await expectThrows(Boom()) { _ = try await withTimeout { try await host.input.request(.failingAction) } }
        #expect(host.lifecycle == .failed)
        #expect(host.failure is Boom)
        await expectThrows(RuntimeError.systemError) { try await host.input.send(.noop) }
    }

    @Test func cancellingAsyncActionDoesNotEscalate() async throws {
        let host = BaseRuntime(of: GateProbe.self, env: .init())
        await expectCancellation { _ = try await withTimeout { try await host.input.request(.cancellingAction) } }
        #expect(host.lifecycle == .active)
        try await host.input.send(.noop)
    }

    @Test func sequenceDropsIntermediateEvents() async throws {
        // Scenario 28.
        let host = BaseRuntime(of: GateProbe.self, env: .init())
        let response = try await host.input.request(.seqDrop)
        #expect(await host.state.events == ["seqDrop", "c"])
        #expect(response == "c")
    }

    @Test func runawayChainFailsWithAClearError() async throws {
        let host = BaseRuntime(of: GateProbe.self, env: .init(), stepLimit: 100)
        await expectThrows(RuntimeError.runawayEventChain(event: "loop", limit: 100)) {
            _ = try await withTimeout { try await host.input.request(.loop(0)) }
        }
        #expect(host.lifecycle == .failed)
        #expect(await host.state.events.count == 100)
        await expectThrows(RuntimeError.systemError) { try host.input.post(.noop) }
    }
}

nonisolated enum IsolationProbe: Transducer {
    struct State: Sendable { var onHost: Bool? }
    enum Event: Sendable { case check, result(Bool) }
    struct Env: Sendable {}
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .check:
            return .action(nonsendingOperation: { _ in
                let isolation = #isolation
                await Task.yield()
                return .result(isolation is BaseRuntime<IsolationProbe>)
            })
        case .result(let value):
            state.onHost = value
            return .none
        }
    }
}
