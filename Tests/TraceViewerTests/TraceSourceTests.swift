import Foundation
import Testing
import TraceGenerator
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace

/// How views read their input (trace-view's `TraceSource`): a trace file in place, pass after
/// pass; anything else once, into a temporary copy that the passes read. Every way gives the
/// same output, and an input that cannot be read again is read once, never held.
@Suite(.serialized, .disabled(if: underThreadSanitizer)) struct TraceSourceTests {
    /// Every view, with the command line it is run with.
    static let views: [[String]] = [
        ["summary"], ["contention"], ["tasks"], ["check"], ["slow"], ["slow", "--json"], ["tui"], ["report"],
        ["sequence", "--runtime", "1", "--request", "16"], ["sequence", "--runtime", "1", "--request", "16", "--no-index"],
        ["sequence"], ["export", "--format", "chrome"], ["export", "--format", "perfetto"],
        ["export", "--format", "csv", "--table", "requests"], ["export", "--format", "csv", "--table", "tasks"],
        ["export", "--format", "otlp"], ["export", "--format", "jsonl"], ["export", "--format", "mermaid"],
    ]

    /// What a run wrote, with the name it gave its input made one.
    static func output(_ run: (status: Int32, out: String, err: String), naming names: [String]) -> String {
        var text =
            "\(run.status)\n" + run.out + "\n"
            + run.err.split(separator: "\n").filter { !$0.hasPrefix("trace-view: reads: ") }
            .joined(separator: "\n")
        for name in names { text = text.replacingOccurrences(of: name, with: "TRACE") }
        // What only the input's format changes: summary's last line.
        return text.replacingOccurrences(of: #"input: [A-Za-z ]+\n"#, with: "input: …\n", options: .regularExpression)
    }

    /// Requests that waited too long for one pass to keep their windows (here with room for 50
    /// events, `TRACE_VIEW_MAX_KEPT`) are broken down in passes of their own, each ending once
    /// every request of its batch has resumed: the CSV requests table and the OTLP export hold
    /// every request, as they do with room for all in one pass, and the passes read far fewer
    /// events than whole ones would. The trace: four waves of 16 runtimes, one after the other.
    /// With room to name 200 of those requests a pass (`TRACE_VIEW_MAX_MISSED`), it takes rounds
    /// and holds every request too (past a million, the rest were left out); so do both when
    /// they follow a runtime a pass, group after group, each group's passes reading a copy of
    /// its own events, from a trace file and from standard input alike.
    @Test func passesOfRequestsThatWaitedLongEndWhenDone() async throws {
        let demo = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let dir = TemporaryDirectory()
        let events = try TraceGenerator(template: demo).waves(4, events: 5_000, runtimes: 16, scratch: dir.file("wave.tdtrace"))
        let file = dir.file("waves.tdtrace")
        try TraceFileWriter.write(Trace(events: events), to: file)
        let say = ["TRACE_VIEW_SAY_READS": "1"]
        let tight = say.merging(["TRACE_VIEW_MAX_KEPT": "50"]) { $1 }
        let csv = ["export", "--format", "csv", "--table", "requests", file]
        let (roomy, narrow) = (try await traceView(csv, environment: say), try await traceView(csv, environment: tight))
        #expect(roomy.status == 0 && narrow.status == 0, "\(roomy.err) \(narrow.err)")
        let rows = roomy.out.split(separator: "\n")
        #expect(rows.count > 200)
        // The header first; the rows of the later passes come after those of the first.
        #expect(narrow.out.split(separator: "\n").first == rows.first)
        #expect(narrow.out.split(separator: "\n").sorted() == rows.sorted())
        let all = try #require(traceViewReads(roomy.err))
        let passes = try #require(traceViewReads(narrow.err))
        // The census and one pass.
        #expect(all.passes == 2 && all.events == 2 * events.count)
        #expect(passes.passes > 4, "\(narrow.err)")
        #expect(passes.events < passes.passes * events.count * 3 / 4, "\(narrow.err)")
        let rounds = tight.merging(["TRACE_VIEW_MAX_MISSED": "200"]) { $1 }
        let inRounds = try await traceView(csv, environment: rounds)
        #expect(inRounds.status == 0 && !inRounds.err.contains("warning"), "\(inRounds.err)")
        #expect(inRounds.out.split(separator: "\n").sorted() == rows.sorted())
        let roundPasses = try #require(traceViewReads(inRounds.err))
        #expect(roundPasses.passes > passes.passes, "\(inRounds.err)")
        // A runtime a pass on average (`TRACE_VIEW_MAX_RUNTIMES`): a group for each runtime
        // with requests waiting at once, the same rows.
        let grouped = try await traceView(csv, environment: say.merging(["TRACE_VIEW_MAX_RUNTIMES": "1"]) { $1 })
        #expect(grouped.status == 0, "\(grouped.err)")
        #expect(grouped.out.split(separator: "\n").sorted() == rows.sorted())
        // The first pass of a group copies each group's events apart, and the later passes read
        // their group's copy alone: far fewer events than a read of the trace a pass.
        let groupReads = try #require(traceViewReads(grouped.err))
        #expect(groupReads.passes >= 5 && groupReads.input == 2, "\(grouped.err)")
        #expect(groupReads.events * 2 < groupReads.passes * events.count, "\(grouped.err)")
        // So from standard input, whose copy the groups' copies are made from.
        let binary = try #require(builtProduct("trace-view"))
        let piped = try await offThePool {
            try Subprocess.run(
                "/bin/sh", ["-c", "cat '\(file)' | '\(binary)' export --format csv --table requests -"],
                environment: ["TRANSDUCE_LTTNG": "off", "TRACE_VIEW_MAX_RUNTIMES": "1", "TRACE_VIEW_MAX_KEPT": "50"],
                output: .captureSeparately, timeout: 300 * Patience.factor)
        }
        #expect(piped.status == 0, "\(piped.errors)")
        #expect(piped.output.split(separator: "\n").sorted() == rows.sorted())
        // And the OTLP export's passes a runtime at a time on average (`TRACE_VIEW_MAX_RUNTIMES`):
        // a group for each runtime with requests waiting at once.
        let groups = say.merging(["TRACE_VIEW_MAX_RUNTIMES": "1"]) { $1 }
        for (environment, name) in [(say, "roomy"), (tight, "narrow"), (rounds, "rounds"), (groups, "groups")] {
            let output = dir.file("\(name).otlp.jsonl")
            let run = try await traceView(["export", "--format", "otlp", "--output", output, file], environment: environment)
            #expect(run.status == 0, "\(run.err)")
            // The census and a pass for each group (several).
            if name == "groups" { #expect(try #require(traceViewReads(run.err)).passes >= 4, "\(run.err)") }
        }
        func described(_ path: String) throws -> [String] {
            // Without a wall-clock anchor each run places the spans by its own clock: their
            // lengths, not their times.
            try OTLPReader.spans(path).map {
                let (start, end) = (
                    UInt64($0["startTimeUnixNano"] as? String ?? ""), UInt64($0["endTimeUnixNano"] as? String ?? "")
                )
                return "\($0["name"] ?? "") \($0["spanId"] ?? "") \($0["parentSpanId"] ?? "") \((end ?? 0) &- (start ?? 0))"
            }
            .sorted()
        }
        let (roomySpans, narrowSpans) = (
            try described(dir.file("roomy.otlp.jsonl")), try described(dir.file("narrow.otlp.jsonl"))
        )
        #expect(roomySpans.count > 200 && roomySpans == narrowSpans)
        #expect(try described(dir.file("rounds.otlp.jsonl")) == roomySpans)
        #expect(try described(dir.file("groups.otlp.jsonl")) == roomySpans)
    }

    /// The same events as a trace file (read in place), as standard input through a pipe and as
    /// JSON Lines (each read once into a copy): every view writes the same, byte for byte. The
    /// trace file is read once a pass; the others once, whatever the passes.
    @Test func everyViewIsTheSameFromAFileAPipeAndJSONLines() async throws {
        let dir = TemporaryDirectory()
        let jsonl = fixtures + "/two-runtimes.jsonl"
        let file = dir.file("two.tdtrace")
        try TraceFileWriter.write(JSONLinesReader(path: jsonl).readAll(), to: file)
        let binary = try #require(builtProduct("trace-view"))
        let say = ["TRACE_VIEW_SAY_READS": "1"]
        for view in Self.views {
            let fromFile = try await traceView(view + [file], environment: say)
            let fromJSONL = try await traceView(view + [jsonl], environment: say)
            let quoted = view.map { "'\($0)'" }.joined(separator: " ")
            let fromPipe = try await offThePool {
                try Subprocess.run(
                    "/bin/sh", ["-c", "cat '\(file)' | '\(binary)' \(quoted) -"],
                    environment: ["COLUMNS": "100", "NO_COLOR": "1", "TRANSDUCE_LTTNG": "off", "TRACE_VIEW_SAY_READS": "1"],
                    output: .captureSeparately, timeout: 300 * Patience.factor)
            }
            let piped = (fromPipe.status, fromPipe.output, fromPipe.errors)
            #expect(fromFile.status == 0, "\(view): \(fromFile.err)")
            let names = [file, "two.tdtrace", jsonl, "two-runtimes.jsonl", "standard input"]
            var expected = Self.output(fromFile, naming: names)
            var fromOthers = [Self.output(fromJSONL, naming: names), Self.output(piped, naming: names)]
            if view.contains("otlp") {
                // No wall-clock anchor: span times are placed by the clock of each run.
                let times = #""[a-zA-Z]*UnixNano":"[0-9]+""#
                expected = expected.replacingOccurrences(of: times, with: "T", options: .regularExpression)
                fromOthers = fromOthers.map { $0.replacingOccurrences(of: times, with: "T", options: .regularExpression) }
            }
            #expect(fromOthers[0] == expected, "\(view): JSON Lines differs from the trace file")
            #expect(fromOthers[1] == expected, "\(view): standard input differs from the trace file")
            let inPlace = try #require(traceViewReads(fromFile.err), "\(view): \(fromFile.err)")
            // The first view that seeks (`report`) indexes the file in a pass of its own, before
            // its first; the later ones find the index it kept.
            let indexedApart = fromFile.err.contains("and the input once more to index it")
            #expect(indexedApart == (view == ["report"]), "\(view): \(fromFile.err)")
            #expect(inPlace.passes >= 1 && inPlace.input == inPlace.passes + (indexedApart ? 1 : 0), "\(view): \(inPlace)")
            for (name, err) in [("JSON Lines", fromJSONL.err), ("standard input", fromPipe.errors)] {
                let copied = try #require(traceViewReads(err), "\(view) of \(name): \(err)")
                #expect(copied.input == 1 && copied.passes == inPlace.passes, "\(view) of \(name): \(copied)")
            }
        }
    }

    /// A pipe of more events than a view may hold is streamed by every view that reads in
    /// passes (only those that draw the whole trace hold it, and say so with status 80).
    @Test func aPipeIsStreamedNotHeld() async throws {
        let dir = TemporaryDirectory()
        let file = dir.file("two.tdtrace")
        let trace = try JSONLinesReader(path: fixtures + "/two-runtimes.jsonl").readAll()
        try TraceFileWriter.write(trace, to: file)
        let binary = try #require(builtProduct("trace-view"))
        let bound = String(trace.events.count / 4)
        func piped(_ view: [String]) async throws -> Subprocess.Result {
            let quoted = view.map { "'\($0)'" }.joined(separator: " ")
            return try await offThePool {
                try Subprocess.run(
                    "/bin/sh", ["-c", "cat '\(file)' | '\(binary)' \(quoted) -"],
                    environment: ["COLUMNS": "100", "TRANSDUCE_LTTNG": "off", "TRACE_VIEW_MAX_EVENTS": bound],
                    output: .captureSeparately, timeout: 300 * Patience.factor)
            }
        }
        for view in Self.views where view != ["sequence"] && !view.contains("mermaid") {
            let run = try await piped(view)
            #expect(run.status == 0, "\(view): \(run.errors)")
        }
        let held = try await piped(["sequence"])
        #expect(held.status == 80 && held.errors.contains("more than \(bound) events"), "\(held.errors)")
    }

    /// A copy that cannot be made is a clear error (status 74) naming where it was to be, before
    /// any output.
    @Test func aCopyThatCannotBeMadeSaysWhere() async throws {
        let missing = TemporaryDirectory().file("no-such-directory")
        let run = try await traceView(["slow", fixtures + "/two-runtimes.jsonl"], environment: ["TMPDIR": missing])
        #expect(run.status == 74, "\(run.err)")
        #expect(run.err.contains(missing) && run.err.contains("TMPDIR") && run.out.isEmpty, "\(run.err)")
        // A view of one pass makes no copy.
        let once = try await traceView(["summary", fixtures + "/two-runtimes.jsonl"], environment: ["TMPDIR": missing])
        #expect(once.status == 0, "\(once.err)")
        // Nor do the passes of a trace file (of runtimes open at once), until they go group by
        // group of runtimes (here a runtime a group): the groups' copies cannot be made either.
        let dir = TemporaryDirectory()
        let file = dir.file("two.tdtrace")
        let demo = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        try TraceGenerator(template: demo).write(events: 2_000, processes: 8, runtimes: 1, to: file)
        let table = ["export", "--format", "csv", "--table", "requests", file]
        let whole = try await traceView(table, environment: ["TMPDIR": missing])
        #expect(whole.status == 0, "\(whole.err)")
        let grouped = try await traceView(table, environment: ["TMPDIR": missing, "TRACE_VIEW_MAX_RUNTIMES": "1"])
        #expect(grouped.status == 74, "\(grouped.err)")
        #expect(grouped.err.contains(missing) && grouped.err.contains("TMPDIR"), "\(grouped.err)")
    }
}
