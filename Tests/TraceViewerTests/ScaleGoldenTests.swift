import Foundation
import Testing
import TraceGenerator
import TransduceTestSupport

@testable import TransduceTrace
@testable import trace_view

/// Every view of a generated 1M-event trace is what it was: the demo fixture's run repeated by
/// 16 runtimes in 2 processes (``TraceGenerator``, the benchmark's scale traces; the same trace
/// every time), each view's output compared with its golden digest (line count, bytes, CRC-32
/// and its first lines, `golden/scale-1m.txt`: the outputs themselves are tens of megabytes).
/// A request's chart is the same read from the whole file, through the index the run builds,
/// and through the index kept by the run before.
@Suite(.serialized) struct ScaleGoldenTests {
    static let events = 1_000_000

    @Test(.enabled(if: !underThreadSanitizer), .timeLimit(.minutes(Patience.minutes(10))))
    func everyViewOfAMillionEventsIsUnchanged() async throws {
        let template = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let directory = TemporaryDirectory()
        let file = directory.file("1m.tdtrace")
        // The CPU-heavy parts (writing the trace, each output's digest) run off the concurrency
        // pool: tens of seconds there in a debug build held a thread of two, and the async tests
        // beside them (the runtime's stress test) waited past their limits in plain `swift test`.
        let (written, request) = try await offThePool {
            try TraceGenerator(template: template).write(events: Self.events, to: file)
        }
        #expect(written >= Self.events)
        let sequence = ["sequence", "--pid", "40000", "--runtime", "1", "--request", "\(request)"]
        let views: [(name: String, arguments: [String])] = [
            ("summary", ["summary"]), ("contention", ["contention"]), ("tasks", ["tasks"]), ("check", ["check"]),
            ("slow", ["slow"]), ("slow json", ["slow", "--format", "json"]), ("tui", ["tui"]),
            ("csv requests", ["export", "--format", "csv", "--table", "requests"]),
            ("csv cycles", ["export", "--format", "csv", "--table", "cycles"]),
            ("sequence, whole file", sequence.prefix(1) + ["--no-index"] + sequence.dropFirst()),
        ]
        var digest = "# \(written) events; a request: \(sequence.joined(separator: " "))\n"
        // Two views at once: beside other jobs (CI's busy loops), two processes get twice the
        // share of the cores, and this test is the longest of the viewer's suite there.
        for pair in stride(from: 0, to: views.count, by: 2).map({ Array(views[$0..<min($0 + 2, views.count)]) }) {
            let runs = try await withThrowingTaskGroup(of: (Int, (status: Int32, out: String, err: String)).self) { group in
                for (i, view) in pair.enumerated() {
                    let arguments = view.arguments + [file]
                    group.addTask { (i, try await traceView(arguments)) }
                }
                var runs: [(status: Int32, out: String, err: String)?] = Array(repeating: nil, count: pair.count)
                for try await (i, run) in group { runs[i] = run }
                return runs.map { $0! }
            }
            for (view, run) in zip(pair, runs) {
                #expect(run.status == 0, "\(view.name): \(run.err)")
                digest += try await offThePool { Self.digest(view.name, run.out) }
            }
        }
        // The chart through the index: built by this run, then kept from it.
        let whole = try await traceView(sequence.prefix(1) + ["--no-index"] + sequence.dropFirst() + [file])
        #expect(!FileManager.default.fileExists(atPath: TraceFileIndex.sidecarPath(of: file)))
        for pass in ["building the index", "through the kept index"] {
            let indexed = try await traceView(sequence + [file])
            #expect(indexed.status == 0 && indexed.out == whole.out, "\(pass): \(indexed.err)")
            #expect(FileManager.default.fileExists(atPath: TraceFileIndex.sidecarPath(of: file)))
        }
        // The report (once the index is kept: its diagrams are read through it): its data
        // pinned, and a real browser draws what it says it drew.
        let page = directory.file("1m.html")
        let report = try await traceView(["report", "--output", page, file])
        #expect(report.status == 0, "report: \(report.err)")
        let model = try ReportPage.model(in: String(contentsOfFile: page, encoding: .utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        digest += Self.digest("report model", String(decoding: try encoder.encode(model), as: UTF8.self))
        // Perfetto's native format: pinned, at most 30 bytes an event, and read clean by
        // Perfetto's own definitions and trace processor (the JSON export of this size is
        // 133 bytes an event, past what a browser loads at ten times the size).
        let native = directory.file("1m.pftrace")
        let perfetto = try await traceView(["export", "--format", "perfetto", "--output", native, file])
        #expect(perfetto.status == 0, "perfetto: \(perfetto.err)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: native)))
        digest += "== perfetto: \(bytes.count) bytes, crc32 \(String(CRC32.checksum(bytes), radix: 16))\n"
        #expect(Double(bytes.count) / Double(written) <= 30, "\(bytes.count) bytes for \(written) events")
        try expectGolden(digest, "scale-1m.txt")
        if PerfettoProtoReader.readersAvailable {
            // Read off the concurrency pool: seconds of CPU that the oracle runs beside it need.
            let trace = try await offThePool { try TraceFileReader(path: file).readAll() }
            try await PerfettoProtoReader.expectClean(native, of: trace.events, hosts: trace.hosts)
        }
        #expect(model.requests.count == ReportModel.Limits().requests && model.summary.requests > model.requests.count)
        #expect(model.tasks.count == ReportModel.Limits().tasks && model.summary.tasks > model.tasks.count)
        #expect(model.cycles.count == ReportModel.Limits().cycles && !model.density.isEmpty)
        #expect(model.aggregated.count == 4 && Set(model.runtimes.map(\.pid)).count == 2)
        if ReportTests.hasBrowser {
            // One browser (a million-event page is seconds of CPU): what it drew, then the
            // slowest request's diagram through a change of the fragment.
            let slowest = try #require(model.requests.first)
            let steps = """
                (async () => {
                  const drawn = JSON.parse(\(ReportTests.drawn));
                  await new Promise(r => {
                    addEventListener('hashchange', r, {once: true});
                    location.hash = 'request=\(slowest.runtime).\(slowest.dispatch)';
                  });
                  return JSON.stringify({drawn: drawn, detail: JSON.parse(\(ReportTests.detail))});
                })()
                """
            let seen = try await browserCheck(page, eval: steps, screenshot: directory.file("1m.png"))
            let both = try ReportTests.decode(seen.value)
            let drawn = try #require(both["drawn"] as? [String: Any])
            #expect(drawn["spans"] as? Int == model.requests.count, "\(drawn)")
            #expect(drawn["requestRows"] as? Int == model.requests.count, "\(drawn)")
            #expect(drawn["taskRows"] as? Int == model.tasks.count, "\(drawn)")
            #expect(drawn["cycles"] as? Int == model.cycles.count, "\(drawn)")
            #expect(drawn["aggregated"] as? Int == model.aggregated.count, "\(drawn)")
            #expect((seen.screenshot["unlike_corner"] as? Double ?? 0) > 0.05, "\(seen.screenshot)")
            let detail = try #require(both["detail"] as? [String: Any])
            #expect(detail["request"] as? String == "\(slowest.runtime).\(slowest.dispatch)", "\(detail)")
            #expect((detail["arrows"] as? Int ?? 0) > 3, "\(detail)")
        }
    }

    /// A view's output as its golden keeps it: size, checksum and its first lines. Lines end at
    /// each line feed, a CSV's CRLF included (as characters, "\r\n" is one, which no "\n" split
    /// finds: the whole table would be one "first line").
    static func digest(_ name: String, _ output: String) -> String {
        let bytes = Array(output.utf8)
        let lines = bytes.count(where: { $0 == 0x0A }) + 1
        let first = bytes.split(separator: 0x0A, maxSplits: 12, omittingEmptySubsequences: false).prefix(12).map {
            String(decoding: $0.last == 0x0D ? $0.dropLast() : $0, as: UTF8.self)
        }
        let crc = String(CRC32.checksum(bytes), radix: 16)
        return "== \(name): \(lines) lines, \(bytes.count) bytes, crc32 \(crc)\n"
            + first.map { "  " + $0 + "\n" }.joined()
    }
}
