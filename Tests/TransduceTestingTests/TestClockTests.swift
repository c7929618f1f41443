import Testing
import Transduce
import TransduceTestSupport
import TransduceTesting

/// A search debounced by an hour: a typed query starts a task that sleeps on `env.clock`, then
/// finds; a newer query replaces it (`switchToLatest`).
nonisolated enum DebouncedSearch: Transducer {
    static let debounce = Duration.seconds(3_600)

    struct State: Sendable, Equatable {
        var query = ""
        var found: [String] = []
    }
    enum Event: Sendable, Equatable { case typed(String), found(String) }
    struct Env: Sendable { let clock: any Clock<Duration> }
    typealias Response = [String]
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .typed(let query):
            state.query = query
            return .task(id: "search") { _, env in
                try await env.clock.sleep(for: debounce)
                return .found(query)
            }
        case .found(let query):
            state.found.append(query)
            return .none
        }
    }
    static func response(state: State, event: Event) -> [String] { state.found }
}

@Suite struct TestClockTests {
    /// Sleepers resume when the time reaches their deadlines, earliest first; the others keep
    /// sleeping, and the time is where the test put it.
    @Test func anAdvanceResumesTheSleepersItReaches() async throws {
        let clock = TestClock()
        let ended = Lock<[Int]>([])
        var tasks: [Task<Void, any Error>] = []
        for seconds in [30, 10, 20] {
            tasks.append(
                Task {
                    try await clock.sleep(for: .seconds(seconds))
                    ended.withLock { $0.append(seconds) }
                })
        }
        try await clock.sleepers(atLeast: 3)
        #expect(clock.deadlines.map(\.offset) == [.seconds(10), .seconds(20), .seconds(30)])
        clock.advance(by: .seconds(15))
        #expect(clock.now.offset == .seconds(15))
        #expect(clock.deadlines.map(\.offset) == [.seconds(20), .seconds(30)])
        try await tasks[1].value
        #expect(ended.withLock { $0 } == [10])
        clock.run()
        try await tasks[0].value
        try await tasks[2].value
        #expect(clock.now.offset == .seconds(30) && clock.sleeperCount == 0)
        #expect(Set(ended.withLock { $0 }) == [10, 20, 30])
    }

    /// A cancelled sleeper throws at once and leaves the clock; a sleep whose deadline has passed
    /// returns at once; waiting for sleepers that never come times out with what it saw.
    @Test func cancellationPastDeadlinesAndTimeouts() async throws {
        let clock = TestClock(now: .init(offset: .seconds(5)))
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        try await clock.sleepers(atLeast: 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
        try await clock.sleep(until: .init(offset: .seconds(4)))
        let error = await #expect(throws: TestClock.Timeout.self) {
            try await clock.sleepers(atLeast: 1, timeout: .milliseconds(50))
        }
        #expect(error?.description == "TestClock: waited 0.05 seconds for 1 sleeper(s); 0 sleeping")
        let alreadyCancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await alreadyCancelled.value }
        #expect(clock.sleeperCount == 0)
    }

    /// An hour's debounce on the real runtime, 100 times over with no real waiting: queries
    /// replaced before their hour is up never search; the last one searches once the test moves
    /// the clock by the debounce, and not a nanosecond before.
    @Test func aDebouncedSearchIsTestedWithoutWaiting() async throws {
        for iteration in 0..<100 {
            let clock = TestClock()
            let instrument = TestInstrument()
            let runtime = BaseRuntime(
                of: DebouncedSearch.self, env: DebouncedSearch.Env(clock: clock), instrument: instrument)
            let queries = (1...3).map { "q\(iteration)-\($0)" }
            for query in queries { try await runtime.input.send(.typed(query)) }
            // The replaced tasks were cancelled in the cycles above; the last one sleeps.
            try await clock.sleepers(atLeast: 1)
            clock.advance(by: DebouncedSearch.debounce - .nanoseconds(1))
            #expect(clock.sleeperCount == 1)
            clock.advance(by: .nanoseconds(1))
            #expect(clock.sleeperCount == 0)
            // Three typed cycles, then the found one.
            try await instrument.waitFor("the found cycle", count: 4) {
                if case .cycleLeave = $0.detail { return true }
                return false
            }
            let state = await runtime.state
            #expect(state == DebouncedSearch.State(query: queries[2], found: [queries[2]]), "iteration \(iteration)")
        }
    }

    /// On an `ImmediateClock` the hour passes at once, and the clock's time with it.
    @Test func anImmediateClockEndsEverySleepAtOnce() async throws {
        let clock = ImmediateClock()
        let runtime = BaseRuntime(of: DebouncedSearch.self, env: DebouncedSearch.Env(clock: clock))
        #expect(try await runtime.input.request(.typed("now")) == ["now"])
        #expect(clock.now.offset == DebouncedSearch.debounce)
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }
}
