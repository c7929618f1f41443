import Foundation
import Testing
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

/// What a written test cannot make certain, said where the reader sees it: a recorded run whose
/// task results come late (the test releases each task), through `trace-view test-from`.
@Suite struct TestFromNotesTests {
    /// Where `work` tasks wait until the test lets them end.
    final class Gates: Sendable {
        private let waiting = Lock<[Int: CheckedContinuation<Void, Never>]>([:])
        private let released = Lock<Set<Int>>([])

        func wait(_ n: Int) async {
            await withCheckedContinuation { continuation in
                let ready = released.withLock { $0.contains(n) }
                if ready { continuation.resume() } else { waiting.withLock { $0[n] = continuation } }
            }
        }

        func release(_ n: Int) {
            released.withLock { _ = $0.insert(n) }
            waiting.withLock { $0.removeValue(forKey: n) }?.resume()
        }
    }

    /// `start(n)` starts a task that waits for its gate and re-enters with `done(n)`; `poke`
    /// only counts.
    nonisolated enum Relay: Transducer {
        struct State: Sendable, Equatable, Codable { var pokes = 0, done = 0 }
        enum Event: Sendable, Equatable, Codable { case start(Int), poke, done(Int) }
        typealias Env = Gates
        static var initialState: State { State() }
        static func transduce(_ state: inout State, event: Event) -> Effect {
            switch event {
            case .start(let n):
                return .task(id: "work\(n)") { _, gates in
                    await gates.wait(n)
                    return .done(n)
                }
            case .poke:
                state.pokes += 1
                return .none
            case .done(let n):
                state.done += n
                return .none
            }
        }
    }

    @Test func aLateResultAndATaskThatOutlivesTheWindowAreSaid() async throws {
        let recorder = TraceRecorder(
            capacity: 1 << 12, mode: .overwriteOldest, lttng: false, payloads: .codable(states: .snapshots),
            ringEnabled: true, slowRequests: nil, lanes: 1, dumpWriter: { try TraceFileWriter.write($0, to: $1) })
        let gates = Gates()
        let runtime = BaseRuntime(of: Relay.self, env: gates, instrument: recorder)
        // Cycles: 1 start(1), 2 poke, 3 done(1) (after the poke), 4 start(2), 5 done(2).
        try await runtime.input.send(.start(1))
        try await runtime.input.send(.poke)
        gates.release(1)
        // A request returns once the chain has settled, tasks included: done(2) is in the trace.
        gates.release(2)
        try await runtime.input.request(.start(2))
        let dir = TemporaryDirectory()
        let path = dir.file("relay.tdtrace")
        try recorder.write(to: path)
        let trace = try TraceFileReader(path: path).readAll()
        // The cycles as the trace has them: which one each `done` is.
        let steps = trace.events.filter { $0.kind == .transduce }.map { ($0.cycle, $0.payload) }
        let done1 = try #require(steps.first { $0.1.contains("\"done\"") && $0.1.contains("1") }?.0)
        let start2 = try #require(steps.first { $0.1.contains("\"start\"") && $0.1.contains("2") }?.0)

        // From the start to the first result: it came after a later send.
        let late = try await traceView(["test-from", path, "--from", "1", "--to", "\(done1)", "--env", "Gates()"])
        #expect(late.status == 0, "\(late.err)")
        #expect(late.err.contains("cycle \(done1) received a task's result after a later send"), "\(late.err)")
        #expect(late.out.contains("// Cycle \(done1) received a task's result after a later send"), "\(late.out)")
        #expect(late.out.contains("initialState: Relay.initialState, env: Gates())"), "\(late.out)")
        #expect(late.out.contains("// cycle \(done1): done, received from task #1 work1"), "\(late.out)")

        // From the poke on: the result's task started before the window, so the test sends it.
        let before = try await traceView(["test-from", path, "--from", "2", "--to", "\(done1)", "--env", "Gates()"])
        #expect(before.out.contains("sent (fed back by task #1, started before the window)"), "\(before.out)")
        #expect(before.out.contains("// Cycle \(done1) was fed back by tasks started before the window"), "\(before.out)")

        // Up to the second start: its task fed back after the window.
        let outliving = try await traceView(["test-from", path, "--from", "\(start2)", "--to", "\(start2)", "--env", "Gates()"])
        #expect(outliving.out.contains("// Tasks work2 ended after the window"), "\(outliving.out)")
        #expect(outliving.out.contains("await store.skipReceivedEvents()\n        await store.finish()"), "\(outliving.out)")
    }
}
