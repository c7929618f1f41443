import Synchronization
import Testing
import TransduceTestSupport

@testable import Transduce

@Suite struct DispatchTests {
    @Test func initialStateIsKept() async {
        let host = BaseRuntime(of: CounterFeature.self, initialState: .init(count: 0, label: "custom"))
        #expect(await host.state.label == "custom")
    }

    @Test func sendCommitsBeforeReturning() async throws {
        let host = BaseRuntime(of: CounterFeature.self)
        try await host.input.send(.increment)
        #expect(await host.state.count == 1)
    }

    @Test func sequentialRequests() async throws {
        let host = BaseRuntime(of: CounterFeature.self)
        for expected in 1...3 {
            let response = try await withTimeout { try await host.input.request(.increment) }
            #expect(response == expected)
        }
        #expect(await host.state.count == 3)
    }

    @Test func orderedResponses() async throws {
        let host = BaseRuntime(of: LogFeature.self)
        for i in 1...5 {
            let log = try await host.input.request(.record(i))
            #expect(log == Array(1...i))
        }
    }

    @Test(arguments: 0..<3) func postIsFIFO(_ iteration: Int) async throws {
        let host = BaseRuntime(of: LogFeature.self)
        for i in 1...1_000 { try host.input.post(.record(i)) }
        try await host.input.send(.noop)
        #expect(await host.state.log == Array(1...1_000))
    }

    @Test func concurrentPostersKeepTheirOwnOrder() async throws {
        let host = BaseRuntime(of: LogFeature.self, queueCapacity: 10_000)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for poster in 0..<8 {
                group.addTask {
                    for i in 0..<200 { try host.input.post(.record(poster * 1_000 + i)) }
                }
            }
            try await group.waitForAll()
        }
        try await host.input.send(.noop)
        let log = await host.state.log
        #expect(log.count == 1_600)
        for poster in 0..<8 {
            let mine = log.filter { $0 / 1_000 == poster }
            #expect(mine == (0..<200).map { poster * 1_000 + $0 })
        }
    }

    @Test func actionChainRunsInOneCycle() async throws {
        let host = BaseRuntime(of: GateProbe.self, env: .init())
        let response = try await withTimeout { try await host.input.request(.begin) }
        #expect(await host.state.events == ["begin", "step", "done"])
        #expect(response == "response-to-done")
    }

    @Test func initialEventIsFirst() async throws {
        let host = BaseRuntime(of: GateProbe.self, env: .init(), initialEvent: .ping)
        try await host.input.send(.noop)
        #expect(await host.state.events == ["ping", "noop"])
    }

    @Test func freshHostFreshState() async throws {
        let one = BaseRuntime(of: CounterFeature.self)
        try await one.input.send(.increment)
        try await one.input.send(.increment)
        let two = BaseRuntime(of: CounterFeature.self)
        #expect(await two.state.count == 0)
        #expect(await one.state.count == 2)
    }

    @Test func inputIdentityIsStable() async throws {
        let one = BaseRuntime(of: CounterFeature.self)
        let a = one.input
        try await one.input.send(.increment)
        #expect(a == one.input)
        #expect(a.id == one.input.id)
        let two = BaseRuntime(of: CounterFeature.self)
        #expect(one.input != two.input)
    }

    @Test func callAsFunctionPosts() async throws {
        let host = BaseRuntime(of: CounterFeature.self)
        try host.input(.increment)
        try await host.input.send(.noop)
        #expect(await host.state.count == 1)
    }

}

/// Serialized: `PeakFeature` counts active `transduce` calls in one process-wide atomic.
@Suite(.serialized) struct GateExclusionTests {
    @Test(arguments: 0..<50) func gateIsNeverReentered(_ iteration: Int) async throws {
        // Scenario 8, the transducer tracks the peak of concurrently active transduce calls.
        let host = BaseRuntime(of: PeakFeature.self, env: PeakFeature.Env())
        // A hang detector, not a speed bound: 5 s timed out under ThreadSanitizer with the trace
        // tests starting children on both cores at once.
        try await withTimeout(30) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for t in 0..<8 {
                    group.addTask {
                        for i in 0..<25 {
                            switch (t + i) % 4 {
                            case 0: try host.input.post(.tick)
                            case 1: try await host.input.send(.tick)
                            case 2: try await host.input.request(.tick)
                            default: try await host.input.request(.asyncTick)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        try await host.input.send(.tick)
        #expect(await host.state.peak == 1)
        #expect(await host.state.count == 8 * 25 + 1 + 8 * 25 / 4)
    }
}

/// Tracks the peak number of concurrently active `transduce` calls.
nonisolated enum PeakFeature: Transducer {
    static let active = Atomic<Int>(0)
    struct State: Sendable {
        var count = 0
        var peak = 0
    }
    enum Event: Sendable { case tick, asyncTick }
    struct Env: Sendable {}
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        let now = active.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
        defer { active.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
        state.peak = max(state.peak, now)
        state.count += 1
        switch event {
        case .tick: return .none
        case .asyncTick:
            return .action(nonsendingOperation: { _ in
                await Task.yield()
                return .tick
            })
        }
    }
}
