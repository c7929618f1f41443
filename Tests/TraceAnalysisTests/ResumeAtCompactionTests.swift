import Testing
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

/// A request resumed at the very event that makes its runtime's kept events reach the keeper's
/// first compaction (``BreakdownKeeper/firstCompaction``) is broken down like any other. It
/// once was not: the compaction ran before the resumed requests were broken down, and as the
/// request was no longer waiting, its window's events went; its row of the CSV requests table,
/// its OTLP span and its `diff` count were lost (found by `diff`'s tests: 199 of 200 requests).
@Suite struct ResumeAtCompactionTests {
    enum Holder: Transducer {
        struct State: Sendable {}
        enum Event: Sendable { case hold, held, ping, pingTask, pinged }
        typealias Env = Latch
        typealias Response = Int
        static var initialState: State { State() }

        static func transduce(_ state: inout State, event: Event) -> Effect {
            switch event {
            case .hold:
                return .task(id: "hold") { _, latch -> TaskReturn in
                    await latch.wait()
                    return .request(.held)
                }
            case .pingTask:
                return .task(id: "ping") { _, _ -> TaskReturn in .response(.pinged) }
            case .held, .ping, .pinged:
                return .none
            }
        }

        static func response(state: State, event: Event) -> Int { 0 }
        static func traceLabel(of event: Event) -> EventLabel {
            switch event {
            case .hold: "hold"
            case .held: "held"
            case .ping: "ping"
            case .pingTask: "pingTask"
            case .pinged: "pinged"
            }
        }
    }

    /// One request held open while `sends` sends (6 events each) and `tasks` requests answered by
    /// a task (13 events each) go by, one after another, then answered: the trace.
    static func trace(sends: Int, tasks: Int) async throws -> [TraceEvent] {
        let latch = Latch("hold")
        let recorder = TraceRecorder(capacity: 1 << 14, lttng: false)
        let runtime = BaseRuntime(of: Holder.self, env: latch, instrument: recorder)
        let input = runtime.input
        try await withTimeout(60) {
            async let held = input.request(.hold)
            try await latch.waitForArrivals(1, timeout: 30)
            for _ in 0..<tasks { _ = try await input.request(.pingTask) }
            for _ in 0..<sends { try await input.send(.ping) }
            latch.open()
            _ = try await held
        }
        runtime.cancel()
        let trace = recorder.snapshot()
        #expect(trace.counts.overwritten == 0)
        return trace.events
    }

    /// With every number of events between the held request's dispatch and its resume from
    /// about 900 to 1,150 (sends and task requests mixed so that each count is met), every
    /// request is broken down at its resume, as the whole trace's index breaks it down.
    @Test(.timeLimit(.minutes(Patience.minutes(3)))) func everyRequestIsBrokenDownWhateverTheEventItResumesAt() async throws {
        var configurations = 0
        for sends in 150...175 {
            for tasks in 0...5 {
                let events = try await Self.trace(sends: sends, tasks: tasks)
                let whole = TraceIndex(events).latencyBreakdowns().map { "\($0.dispatch) \($0.total)" }.sorted()
                var resumed = ResumeBreakdowns()
                var found: [String] = []
                for e in events {
                    resumed.consume(e)
                    found += resumed.take().map { "\($0.dispatch) \($0.total)" }
                }
                let configuration = "\(sends) sends, \(tasks) task requests"
                #expect(resumed.missed.isEmpty, "\(configuration): \(resumed.missed)")
                #expect(whole.count == 1 + sends + tasks)
                #expect(
                    found.sorted() == whole,
                    "\(configuration): not found \(Set(whole).subtracting(found).sorted()), found otherwise \(Set(found).subtracting(whole).sorted())"
                )
                configurations += 1
            }
        }
        #expect(configurations == 156)
    }
}
