import CLTTng
import Foundation
import Testing
import TraceTooling
import TransduceTestSupport
import TransduceTraceCTF

@testable import TransduceTrace

@Suite(.serialized) struct LTTngTests {
    @Test(.enabled(if: LTTngTools.available)) func everyKindReachesLTTngWithTheRingsFieldValues() async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"), "TracedExample was not built")
        let ringFile = dir.file("ring.tdtrace")
        // Under a caller's trace context (env execs the example, keeping its pid), so that every
        // kind is there.
        let (ctf, pid) = try await LTTngTools.record(
            into: dir.path, "/usr/bin/env", ["TRACEPARENT=\(TraceContexts.server.traceparent)", example, ringFile])

        // babeltrace2 itself reads the trace.
        let (status, text) = try await run(LTTngTools.babeltrace!, [ctf])
        #expect(status == 0)
        #expect(text.contains("transduce:cycle_enter"))

        let lttng = try CTFTraceReader.readAll(path: ctf, process: pid)
        let ring = try TraceFileReader(path: ringFile).readAll()
        #expect(lttng.notes.isEmpty)
        #expect(ring.notes.isEmpty)
        #expect(Set(lttng.events.map(\.kind)) == Set(TraceEvent.Kind.allCases))
        #expect(lttng.events.count == ring.events.count)
        // Same events, field for field; the order may differ only between threads.
        var remaining = [Comparable: Int]()
        for e in ring.events { remaining[Comparable(e), default: 0] += 1 }
        for e in lttng.events {
            let key = Comparable(e)
            if let n = remaining[key] {
                remaining[key] = n == 1 ? nil : n - 1
            } else {
                Issue.record("LTTng event not in the ring dump: \(e)")
            }
        }
        #expect(remaining.isEmpty, "ring events missing from LTTng: \(remaining.keys.prefix(3))")
        // Both are CLOCK_MONOTONIC (the runtime's read from the time-stamp counter where it can,
        // see MonotonicClock): LTTng stamps each event after the runtime did, on the same thread,
        // so no LTTng stamp comes before the ring's by more than the two clocks' disagreement,
        // 1 µs at most; and the closest pair, where nothing came between the two stamps, is
        // within a few microseconds (the runtime's clock is not behind either).
        var ringTimes: [Comparable: [UInt64]] = [:]
        var lttngTimes: [Comparable: [UInt64]] = [:]
        for e in ring.events { ringTimes[Comparable(e), default: []].append(e.time) }
        for e in lttng.events { lttngTimes[Comparable(e), default: []].append(e.time) }
        var gaps: [Int64] = []
        for (key, times) in ringTimes {
            for (r, l) in zip(times.sorted(), (lttngTimes[key] ?? []).sorted()) { gaps.append(Int64(l) - Int64(r)) }
        }
        gaps.sort()
        #expect(gaps.count == ring.events.count)
        #expect(gaps.first.map { $0 >= -1_000 } == true, "LTTng stamped before the runtime: \(gaps.prefix(5)) ns")
        #expect(gaps.first.map { $0 <= 20_000 } == true, "the closest stamps are \(gaps.first ?? -1) ns apart")
    }

    @Test(.enabled(if: LTTngTools.available)) func sameReportsFromTheRingDumpAndFromLTTng() async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        let ringFile = dir.file("ring.jsonl")
        // Under a caller's trace context (env execs the example, keeping its pid), so that every
        // kind is there.
        let (ctf, pid) = try await LTTngTools.record(
            into: dir.path, "/usr/bin/env", ["TRACEPARENT=\(TraceContexts.server.traceparent)", example, ringFile])
        // Event times are stamped by each sink, so what derives from them (time spans, a task's
        // run from its spawn to its settle, queue-depth columns) may differ: durations are masked,
        // and so is the padding that a duration's width gives its column (one run of the tasks
        // table differed by one space: "refresh       <t>" against "refresh      <t>").
        func masked(_ text: String) -> [String] {
            text.split(separator: "\n", omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: #"\d+(\.\d+)?(ns|µs|ms|s)\b"#, with: "<t>", options: .regularExpression)
                    .replacingOccurrences(of: " {2,}", with: " ", options: .regularExpression)
            }
        }
        func section(_ lines: [String], from start: String, to end: String) -> [String] {
            guard let a = lines.firstIndex(of: start) else { return [] }
            let b = lines[a...].firstIndex(of: end) ?? lines.count
            return Array(lines[a..<b])
        }
        for command in ["tasks", "contention", "summary"] {
            // The session caught every traced process of the machine (other tests run some):
            // the example's alone is compared.
            // No width, so nothing is cut: a wider duration in one would cut another column
            // (one run: "cancelled (uniqueRequest)" against "cancelled (uniqueReques…").
            let ring = try await traceView([command, "--pid", String(pid), ringFile], columns: nil)
            let lttng = try await traceView([command, "--pid", String(pid), ctf], columns: nil)
            #expect(ring.status == 0 && lttng.status == 0, "\(command): \(ring.err) \(lttng.err)")
            var a = masked(ring.out)
            var b = masked(lttng.out)
            if command == "contention" {
                // The histograms' buckets are durations on each sink's own clock: their counts
                // are compared, not how they spread; rows ordered by a duration may swap, so the
                // rows are compared as a set.
                let buckets = { (lines: [String]) in lines.filter { !$0.hasPrefix(" < ") }.sorted() }
                a = buckets(section(a, from: "Gate wait (admission to entry)", to: "Longest waits"))
                b = buckets(section(b, from: "Gate wait (admission to entry)", to: "Longest waits"))
            }
            if command == "summary" {
                a = section(a, from: "Events by kind", to: "")
                b = section(b, from: "Events by kind", to: "")
            }
            #expect(!a.isEmpty)
            #expect(a == b, "\(command) differs:\n\(a.joined(separator: "\n"))\n---\n\(b.joined(separator: "\n"))")
        }
    }

    @Test(.enabled(if: LTTngTools.available)) func recordKeepsTheCTFTraceOfACommand() async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        let output = dir.file("recorded")
        let recorded = try await traceView(["record", "--output", output, "--", example, dir.file("ring.tdtrace")], lttng: true)
        #expect(recorded.status == 0, "\(recorded.err)")
        #expect(recorded.err.contains("events kept in \(output)"), "\(recorded.err)")
        let summary = try await traceView(["summary", output])
        let ring = try TraceFileReader(path: dir.file("ring.tdtrace")).readAll()
        #expect(summary.status == 0)
        #expect(summary.out.contains("events      \(ring.events.count)\n"))
        #expect(summary.out.contains("input: LTTng CTF trace"))
        // Views of several passes decode the CTF trace once (into a copy the passes read), and
        // show what they show of the same events as JSON Lines.
        let jsonl = dir.file("recorded.jsonl")
        let exported = try await traceView(["export", "--format", "jsonl", "--output", jsonl, output])
        #expect(exported.status == 0, "\(exported.err)")
        for view in [["report"], ["slow"], ["tui"], ["export", "--format", "csv", "--table", "requests"]] {
            let ctf = try await traceView(view + [output], environment: ["TRACE_VIEW_SAY_READS": "1"])
            let reads = try #require(traceViewReads(ctf.err), "\(view): \(ctf.err)")
            // (The requests table: a census, then a pass; more for requests that waited very long.)
            #expect(ctf.status == 0 && reads.input == 1 && reads.passes >= 2, "\(view): \(reads) \(ctf.err)")
            let same = try await traceView(view + [jsonl])
            #expect(
                ctf.out.replacingOccurrences(of: "recorded", with: "X")
                    == same.out.replacingOccurrences(
                        of: "recorded.jsonl", with: "X"), "\(view)")
        }
        // An existing output directory is refused before anything runs.
        let again = try await traceView(["record", "--output", output, "--", example, dir.file("x")], lttng: true)
        #expect(again.status == 64 && again.err.contains("exists already"))
    }

    /// The recorded command starts with default signal actions although trace-view ignores
    /// SIGINT while it runs (so Ctrl-C ends the command, and trace-view still stops the session
    /// and keeps what was recorded).
    @Test(.enabled(if: LTTngTools.available)) func anInterruptedCommandEndsAndTheSessionIsKept() async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        let output = dir.file("interrupted")
        // The example interrupts itself (SIGINT) once its workload ran.
        let recorded = try await traceView(
            [
                "record", "--output", output, "--", "/usr/bin/env", "TRANSDUCE_TRACE=\(dir.file("ring.tdtrace"))", example,
                "--end-with", "INT",
            ],
            lttng: true)
        #expect(recorded.status == 128 + SIGINT, "\(recorded.err)")
        #expect(recorded.err.contains("128 events kept in \(output)"), "\(recorded.err)")
        #expect(recorded.err.contains("exited with status \(128 + SIGINT)"))
        #expect(try await traceView(["summary", output]).out.contains("events      128\n"))
        // A command interrupted before it recorded anything: its status, and why nothing is kept.
        let early = dir.file("early")
        let nothing = try await traceView(
            ["record", "--output", early, "--", "/bin/sh", "-c", "kill -INT $$; sleep 30"], lttng: true)
        #expect(nothing.status == 128 + SIGINT, "\(nothing.err)")
        #expect(nothing.err.contains("recorded no transduce events (it exited with status \(128 + SIGINT))"), "\(nothing.err)")
    }

    @Test func recordRefusesACommandThatCannotRun() async throws {
        let dir = TemporaryDirectory()
        let missing = try await traceView(["record", "--output", dir.file("x"), "--", "/nonexistent/server"])
        #expect(missing.status == 64 && missing.err.contains("cannot run /nonexistent/server"), "\(missing.err)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("x")))
    }
}
