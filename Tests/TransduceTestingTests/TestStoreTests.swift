import Testing
import Transduce
import TransduceTestSupport
import TransduceTesting
import TransduceTrace

/// A checkout: items add up; paying starts a payment task that takes a second on `env.clock`,
/// whose result chains a receipt; a coupon applies in a chain of its own.
nonisolated enum Checkout: Transducer {
    struct State: Sendable, Equatable {
        var items: [String] = []
        var total = 0
        var status = "open"
        var receipts = 0
    }
    enum Event: Sendable, Equatable { case add(String, Int), coupon(Int), discounted(Int), pay, paid(Int), receipt }
    struct Env: Sendable { let clock: any Clock<Duration> }
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .add(let item, let price):
            state.items.append(item)
            state.total += price
            return .none
        case .coupon(let off):
            return .event(.discounted(off))
        case .discounted(let off):
            state.total -= off
            return .none
        case .pay:
            state.status = "paying"
            let total = state.total
            return .task(id: "payment") { _, env in
                try await env.clock.sleep(for: .seconds(1))
                return .paid(total)
            }
        case .paid(let amount):
            state.status = "paid \(amount)"
            return .event(.receipt)
        case .receipt:
            state.receipts += 1
            return .none
        }
    }
}

/// The failures `body` reports, as messages, without failing the test (each is a known issue).
func failures(of body: () async -> Void) async -> [String] {
    let seen = Lock<[String]>([])
    await withKnownIssue(isIntermittent: true) {
        await body()
    } matching: { issue in
        seen.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
        return true
    }
    return seen.withLock { $0 }
}

@Suite struct TestStoreTests {
    /// The whole checkout, exhaustively: each step's state, the task's result and the chained
    /// receipt in order, nothing left at the end; and the store's trace has the shape of it.
    @Test func anExhaustiveTestOfAFeatureWithATask() async throws {
        let clock = TestClock()
        let store = TestStore(of: Checkout.self, initialState: .init(), env: .init(clock: clock))
        await store.send(.add("tea", 3)) {
            $0.items = ["tea"]
            $0.total = 3
        }
        await store.send(.coupon(1))
        await store.receive(.discounted(1)) { $0.total = 2 }
        await store.send(.pay) { $0.status = "paying" }
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        await store.receive(.paid(2)) { $0.status = "paid 2" }
        await store.receive(.receipt) { $0.receipts = 1 }
        await store.finish()
        #expect(store.state == Checkout.State(items: ["tea"], total: 2, status: "paid 2", receipts: 1))

        let trace = store.trace
        try trace.checkInvariants()
        try trace.expectShape(
            [.spawn("payment"), .settle("payment", outcome: .request, event: "paid")], in: .task("payment"),
            exhaustive: false)
        try trace.expectShape(
            [.transduce("paid"), .transduce("receipt")], in: .all(runtime: store.runtimeID), exhaustive: false)
    }

    /// A state closure that gets a field wrong fails with the diff of the two states, at the
    /// `send`'s line; the store goes on from the state the runtime committed.
    @Test func aWrongStateMutationShowsTheDiff() async {
        let store = TestStore(of: Checkout.self, initialState: .init(), env: .init(clock: TestClock()))
        let messages = await failures {
            await store.send(.add("tea", 3)) {
                $0.items = ["tea"]
                $0.total = 4
            }
        }
        #expect(
            messages == [
                """
                send(.add("tea", 3)): the state differs from what was expected (− expected, + actual):
                  State(
                    items: [
                      "tea"
                    ],
                −   total: 4,
                +   total: 3,
                    status: "open",
                    receipts: 0
                  )
                """
            ])
        #expect(store.state.total == 3)
        await store.send(.add("jam", 2)) {
            $0.items.append("jam")
            $0.total = 5
        }
        await store.finish()
    }

    /// An event a task fed back, and the one its cycle chained, fail at `finish` when the test
    /// did not receive them, naming where they came from.
    @Test func anUnreceivedEventFailsAtFinish() async throws {
        let clock = TestClock()
        let store = TestStore(of: Checkout.self, initialState: .init(), env: .init(clock: clock))
        await store.send(.pay) { $0.status = "paying" }
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        let messages = await failures { await store.finish() }
        #expect(messages.count == 2)
        #expect(
            messages.first?.wholeMatch(
                of: #/finish\(\): \.paid\(0\) was received \(cycle \d+, from task #\d+ "payment"\) and not asserted/#) != nil,
            "\(messages)")
        #expect(
            messages.last?.wholeMatch(of: #/finish\(\): \.receipt was received \(cycle \d+, chained\) and not asserted/#) != nil,
            "\(messages)")
        #expect(store.state.receipts == 1)
    }

    /// A task still running at `finish` fails it, named by instance and id, with the event that
    /// started it, where its effect is written and how long it has run.
    @Test func aRunningTaskFailsAtFinishAndIsNamed() async throws {
        let clock = TestClock()
        let store = TestStore(of: Checkout.self, initialState: .init(), env: .init(clock: clock))
        await store.send(.pay) { $0.status = "paying" }
        try await clock.sleepers(atLeast: 1)
        let messages = await failures { await store.finish(timeout: .milliseconds(100)) }
        #expect(messages.count == 1)
        let named =
            #/finish\(\): after waiting 0\.1 seconds, task #\d+ "payment" is still running: started by \.pay in cycle \d+ at TransduceTestingTests/TestStoreTests\.swift:(\d+), running for (\d+) ms/#
        let match = messages.first?.wholeMatch(of: named)
        #expect(match != nil, "\(messages)")
        // The `.task` of `.pay` in `Checkout.transduce`, and at least the time `finish` waited.
        #expect(match.map { Int($0.output.1) } == 33)
        #expect(match.flatMap { Int($0.output.2) }.map { $0 >= 100 } == true)
    }

    /// Receiving the chained receipt before the payment it follows fails, naming what came
    /// instead; a timeout names the running task.
    @Test func receivingInTheWrongOrderFails() async throws {
        let clock = TestClock()
        let store = TestStore(of: Checkout.self, initialState: .init(), env: .init(clock: clock))
        await store.send(.pay) { $0.status = "paying" }
        let early = await failures { await store.receive(.paid(0), timeout: .milliseconds(100)) }
        #expect(early.count == 1)
        #expect(
            early.first?.wholeMatch(
                of:
                    #/receive\(\.paid\(0\)\): no such event within 0\.1 seconds; nothing was received; task #\d+ "payment" is still running: .*/#
            ) != nil, "\(early)")
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        let messages = await failures { await store.receive(.receipt) { $0.receipts = 1 } }
        #expect(messages.count == 1)
        #expect(
            messages.first?.wholeMatch(
                of: #/receive\(\.receipt\): the next event received was \.paid\(0\) \(cycle \d+, from task #\d+ "payment"\)/#)
                != nil, "\(messages)")
        // The store moved past the payment: the receipt is next, matched by its case.
        await store.receive(".receipt", matching: { if case .receipt = $0 { true } else { false } }) { $0.receipts = 1 }
        await store.finish()
    }

    /// Non-exhaustive: assertions of a few fields pass, events not received are passed over, and
    /// the store says what it skipped; an assignment that does not hold still fails.
    @Test func nonExhaustiveModePassesAndReportsWhatItSkipped() async throws {
        let clock = TestClock()
        let store = TestStore(
            of: Checkout.self, initialState: .init(), env: .init(clock: clock), exhaustivity: .off)
        await store.send(.add("tea", 3)) { $0.total = 3 }
        await store.send(.pay)
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        await store.receive(.receipt) { $0.receipts = 1 }
        await store.finish()
        let skipped = store.skippedAssertions
        // The items and the status not asserted, and the payment's result not received (its
        // state is where the receipt's assertion starts from).
        try #require(skipped.count == 3, "\(skipped)")
        #expect(skipped[0].hasPrefix("send(.add(\"tea\", 3)): state changes not asserted (− expected, + actual):"))
        #expect(skipped[0].contains("+     \"tea\""))
        #expect(skipped[1].contains("+   status: \"paying\","))
        #expect(
            skipped[2].wholeMatch(
                of: #/receive\(\.receipt\): \.paid\(3\) was received \(cycle \d+, from task #\d+ "payment"\) and not asserted/#)
                != nil)
        #expect(store.state.status == "paid 3")

        let wrong = await failures { await store.send(.add("jam", 2)) { $0.total = 6 } }
        #expect(wrong.count == 1 && wrong[0].contains("−   total: 6,") && wrong[0].contains("+   total: 5,"))

        // Shown, the skipped assertions are known issues: the test still passes.
        store.exhaustivity = .off(showSkippedAssertions: true)
        await store.send(.add("bun", 1))
        #expect(store.skippedAssertions.count == 4)
    }

    /// Events passed over on purpose are not failures at `finish`; the next assertion starts from
    /// the state they left.
    @Test func skippedReceivedEventsAreNotFailures() async throws {
        let clock = TestClock()
        let store = TestStore(of: Checkout.self, initialState: .init(), env: .init(clock: clock))
        await store.send(.pay) { $0.status = "paying" }
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        await store.skipReceivedEvents()
        #expect(store.state == Checkout.State(status: "paid 0", receipts: 1))
        await store.send(.add("tea", 3)) {
            $0.items = ["tea"]
            $0.total = 3
        }
        await store.finish()
    }

    /// The debounced search, 100 times over on a test clock with a test store: no real waiting
    /// (an hour's debounce each time), every step asserted, no task left.
    @Test func aDebouncedSearchIsTestedExhaustively() async throws {
        let started = ContinuousClock.now
        for iteration in 0..<100 {
            let clock = TestClock()
            let store = TestStore(
                of: DebouncedSearch.self, initialState: .init(), env: DebouncedSearch.Env(clock: clock))
            let queries = (1...3).map { "q\(iteration)-\($0)" }
            for query in queries { await store.send(.typed(query)) { $0.query = query } }
            try await clock.sleepers(atLeast: 1)
            clock.advance(by: DebouncedSearch.debounce - .nanoseconds(1))
            #expect(clock.sleeperCount == 1)
            clock.advance(by: .nanoseconds(1))
            await store.receive(.found(queries[2])) { $0.found = [queries[2]] }
            await store.finish()
        }
        // A hundred hours of debounce in less than one of them: the clock never really waited.
        // (Not a measure of speed: on a loaded machine the 100 runs took minutes.)
        #expect(ContinuousClock.now - started < DebouncedSearch.debounce)
    }
}
