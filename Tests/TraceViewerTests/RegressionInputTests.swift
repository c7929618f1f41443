import Foundation
import Testing
import TraceFuzzHarness
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace

/// Every input that ever trapped an analysis, replayed: the fuzz harness in process (a trap
/// crashes the test run), then every trace-view command on it, which must end with a status
/// (0, or 65 for a damaged or impossible trace; 64 only for a `--request` the trace lacks),
/// never by a signal.
/// Serialized: each case starts trace-view a dozen times, and all at once (ThreadSanitizer
/// builds above all) they starved the rest of the suite on two cores.
@Suite(.serialized) struct RegressionInputTests {
    static let directory = fixtures + "/regressions"

    static var inputs: [String] {
        // Not the indexes the commands below keep beside the binary ones.
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasSuffix(".tdidx") }.sorted()
            .map { directory + "/" + $0 }
    }

    /// Inputs a real runtime can produce (unusual but well-formed): every command must succeed.
    static let wellFormed: Set<String> = [
        "wrapped-ring-starts-with-leave.jsonl", "task-times-out-of-order-huge-ids.jsonl", "times-near-2-64.jsonl",
        "hostile-labels.jsonl", "scalar-joined-labels.jsonl",
    ]

    static let commands: [[String]] = [
        ["summary"], ["contention"], ["tasks"], ["sequence"], ["sequence", "--request", "1"],
        ["sequence", "--from", "18446744073709551000", "--to", "18446744073709551615"],
        ["export", "--format", "chrome"], ["export", "--format", "mermaid"], ["export", "--format", "plantuml"],
        ["export", "--format", "svg"], ["export", "--format", "jsonl"], ["export", "--format", "perfetto"],
        ["export", "--format", "otlp"], ["report"],
    ]

    @Test func theCorpusIsThere() {
        #expect(Self.inputs.count >= 6, "\(Self.directory)")
    }

    @Test(arguments: inputs)
    func harnessSurvives(_ path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        FuzzHarness.exercise(bytes)
        FuzzHarness.exercise(bytes, reader: .binary)
        FuzzHarness.exercise(bytes, reader: .jsonLines)
        FuzzHarness.exerciseIndex(bytes)
    }

    @Test(arguments: inputs)
    func everyCommandEndsWithAStatus(_ path: String) async throws {
        let tool = try #require(builtProduct("trace-view"))
        let name = URL(fileURLWithPath: path).lastPathComponent
        for command in Self.commands {
            let (status, output) = try await run(tool, command + [path])
            #expect([0, 64, 65, 66].contains(status), "\(name): \(command) ended with \(status): \(output.suffix(400))")
            if Self.wellFormed.contains(name) && !command.contains("--request") {
                #expect(status == 0, "\(name): \(command): \(output.suffix(400))")
            }
        }
    }

    /// COLUMNS from the environment cannot make a renderer trap or draw without bound.
    @Test(arguments: ["9223372036854775807", "100000000", "-5", "0", "abc", ""])
    func absurdColumns(_ columns: String) throws {
        let tool = try #require(builtProduct("trace-view"))
        let demo = fixtures + "/demo.jsonl"
        let result = try Subprocess.run(
            tool, ["sequence", demo], environment: ["COLUMNS": columns], output: .capture, timeout: 60)
        #expect(result.status == 0, "\(result.output.suffix(300))")
        let widest = result.output.split(separator: "\n").map(\.count).max() ?? 0
        #expect(widest <= 1000, "COLUMNS=\(columns): a line of \(widest) characters")
    }

    /// A chain of replacing tasks as long as a trace likes is followed without recursion.
    @Test func longReplacementChain() async throws {
        var events: [TraceEvent] = []
        var t: UInt64 = 1_000
        func add(_ kind: TraceEvent.Kind, _ body: (inout TraceEvent) -> Void) {
            var e = TraceEvent(kind: kind, time: t, thread: 1, runtime: 1)
            body(&e)
            events.append(e)
            t += 10
        }
        add(.dispatch) {
            $0.dispatch = 1; $0.code = TraceNames.code(kind: .dispatch, name: "request")!; $0.label = "go"
        }
        add(.cycleEnter) {
            $0.cycle = 1; $0.dispatch = 1
        }
        let chain: UInt64 = 100_000
        for task in 1...chain {
            add(.taskSpawn) {
                $0.task = task; $0.cycle = 1; $0.label = "step"; $0.count = 1; $0.otherTask = task - 1
            }
        }
        add(.cycleLeave) {
            $0.cycle = 1; $0.code = 1
        }
        let index = TraceIndex(events)
        let lifecycle = index.requestLifecycle(runtime: 1, dispatch: 1)
        #expect(lifecycle.count == events.count)
        let dir = TemporaryDirectory()
        let path = dir.file("chain.tdtrace")
        try TraceFileWriter.write(Trace(events: events), to: path)
        let tool = try #require(builtProduct("trace-view"))
        let (status, output) = try await run(tool, ["sequence", "--request", "1", "--width", "80", path])
        #expect(status == 0, "\(output.suffix(300))")
        // Each instance carries the request's waiter, and none copies an ever longer list.
        #expect(index.tasks.values.allSatisfy { $0.carried.count <= TraceIndex.maxCarried })
    }

    /// Requests that each waited across every cycle of the trace: their breakdowns list a few
    /// holders and sum the rest, rather than costing requests × cycles.
    @Test func waitsAcrossManyCyclesStayCheap() throws {
        var events: [TraceEvent] = []
        let requests: UInt64 = 2_000
        let cycles: UInt64 = 20_000
        func event(_ kind: TraceEvent.Kind, _ time: UInt64, _ body: (inout TraceEvent) -> Void) {
            var e = TraceEvent(kind: kind, time: time, thread: 1, runtime: 1)
            body(&e)
            events.append(e)
        }
        let request = TraceNames.code(kind: .dispatch, name: "request")!
        for d in 1...requests {
            event(.dispatch, d) {
                $0.dispatch = d; $0.code = request; $0.label = "late"
            }
        }
        for c in 1...cycles {
            let t = 10_000 + c * 100
            event(.dispatch, t) {
                $0.dispatch = requests + c; $0.label = "busy"
            }
            event(.cycleEnter, t) {
                $0.cycle = c; $0.dispatch = requests + c
            }
            event(.cycleLeave, t + 90) {
                $0.cycle = c; $0.code = 0; $0.nanos = 90
            }
        }
        let end = 10_000 + (cycles + 1) * 100
        for d in 1...requests {
            let c = cycles + d
            let t = end + d * 100
            event(.cycleEnter, t) {
                $0.cycle = c; $0.dispatch = d; $0.nanos = t - d
            }
            event(.cycleLeave, t + 50) {
                $0.cycle = c; $0.nanos = 50
            }
            event(.requestResume, t + 60) {
                $0.dispatch = d; $0.cycle = c; $0.nanos = t + 60 - d
            }
        }
        let breakdowns = TraceIndex(events).latencyBreakdowns()
        #expect(breakdowns.count == Int(requests))
        for b in breakdowns {
            let wait = try #require(b.parts.first { $0.kind == .admissionWait })
            #expect(wait.heldBy.count <= 17)
            #expect(b.parts.reduce(0) { $0 + $1.nanos } == b.total)
        }
        let last = try #require(breakdowns.first?.parts.first?.heldBy.last)
        #expect(last.cycle == 0 && last.nanos > 0, "the holders past the listed ones are summed")
    }
}
