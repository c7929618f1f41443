import Foundation
import Testing
import TraceTooling
import TransduceDemo
import TransduceTestSupport

@testable import TransduceTrace

/// `export --format csv --table …` read back by Python's own `csv` module, held against the
/// trace's index: every request, task, cycle and event, with a label built to break a CSV writer.
@Suite struct CSVExportTests {
    static let python = Subprocess.which("python3")

    @Test(.enabled(if: python != nil), .timeLimit(.minutes(Patience.minutes(3)))) func pythonReadsEveryTable() async throws {
        // Two runtimes of the demo workload (recorded once, as the fixture; running the workload
        // here made this test wait for the concurrency pool that other tests' synchronous child
        // waits hold on a busy machine), one event's label full of what CSV must quote.
        var trace = try JSONLinesReader(path: fixtures + "/two-runtimes.jsonl").readAll()
        let hostile = "a,\"b\"\nc\r\nd\te"
        let target = try #require(trace.events.firstIndex { $0.kind == .dispatch && $0.label == "ping" })
        trace.events[target].label = hostile
        let directory = TemporaryDirectory()
        let file = directory.file("demo.tdtrace")
        try TraceFileWriter.write(trace, to: file)
        let index = TraceIndex(trace.events)
        let breakdowns = index.latencyBreakdowns()

        for table in ["requests", "tasks", "cycles", "events"] {
            let result = try await traceView([
                "export", "--format", "csv", "--table", table, "--output", directory.file("\(table).csv"), file,
            ])
            #expect(result.status == 0, "\(table): \(result.err)")
        }
        let script = """
            import csv, json, sys
            d = sys.argv[1]
            out = {}
            for table in ["requests", "tasks", "cycles", "events"]:
                with open(f"{d}/{table}.csv", newline="") as f:
                    out[table] = list(csv.DictReader(f))
            parts = [c for c in out["requests"][0].keys() if c.endswith("_ns") and c not in ("start_ns", "total_ns")]
            print(json.dumps({
                "requests": {f'{r["runtime"]}/{r["dispatch"]}': int(r["total_ns"]) for r in out["requests"]},
                "parts_add_up": all(sum(int(r[p]) for p in parts) == int(r["total_ns"]) for r in out["requests"]),
                "tasks": sorted(f'{r["runtime"]}/{r["task"]} {r["outcome"]}' for r in out["tasks"]),
                "cycles": len(out["cycles"]),
                "held": sum(int(r["held_ns"] or 0) for r in out["cycles"]),
                "events": len(out["events"]),
                "kinds": sorted(set(r["kind"] for r in out["events"])),
                "hostile": sum(1 for r in out["events"] if r["label"] == \(String(reflecting: hostile))),
            }))
            """
        let (status, output) = try await run(Self.python!, ["-c", script, directory.path])
        #expect(status == 0, "\(output)")
        struct Read: Decodable {
            var requests: [String: UInt64]
            var parts_add_up: Bool
            var tasks: [String]
            var cycles: Int
            var held: UInt64
            var events: Int
            var kinds: [String]
            var hostile: Int
        }
        let read = try JSONDecoder().decode(Read.self, from: Data(output.utf8))
        #expect(
            read.requests
                == Dictionary(
                    uniqueKeysWithValues: breakdowns.map { ("\($0.runtime.runtime)/\($0.dispatch)", $0.total) }))
        #expect(read.parts_add_up)
        #expect(
            read.tasks
                == TaskReport(index: index).rows.map { "\($0.runtime.runtime)/\($0.task) \($0.outcome)" }.sorted())
        #expect(read.cycles == index.cycles.count)
        #expect(
            read.held
                == index.cycles.values.compactMap { c in c.leave.map { index.events[$0].time - index.events[c.enter].time } }
                .reduce(0, +))
        #expect(read.events == trace.events.count)
        #expect(read.kinds == Set(trace.events.map { TraceNames.kinds[Int($0.kind.rawValue)] }).sorted())
        #expect(read.hostile == 1)
    }
}
