import Foundation
import Synchronization
import Testing
import TraceGenerator
import TraceTooling
import TransduceDemo
import TransduceTestSupport

@testable import TransduceTrace
@testable import trace_view

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bounds the documentation promises, held against inputs built to break them: memory
/// measured as trace-view's peak (GNU time), not assumed.
@Suite(.serialized) struct BoundsTests {
    /// Memory is measured on a plain build (ThreadSanitizer's shadow memory multiplies it).
    static var measured: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/time") && !underThreadSanitizer }

    /// Runs trace-view under GNU time with `input` streamed to its standard input by a thread
    /// of this process; its status, output, errors, peak memory in KB, and the bytes it took.
    static func run(_ binary: String, _ arguments: [String], input: @escaping @Sendable (Int32) -> Int) throws -> (
        status: Int32, out: String, err: String, peakKB: Int, fed: Int
    ) {
        let dir = TemporaryDirectory()
        let child = try Subprocess.start(
            "/usr/bin/time", ["-f", "peak-kb %M", "-o", dir.file("time"), binary] + arguments,
            environment: ["NO_COLOR": "1", "TRANSDUCE_LTTNG": "off"], errors: dir.file("err"), input: true)
        let fed = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        let descriptor = child.input!
        Thread.detachNewThread {
            // A reader that stops early closes the pipe: EPIPE for this thread, not SIGPIPE for
            // the test process.
            var block = sigset_t()
            sigemptyset(&block)
            sigaddset(&block, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &block, nil)
            let n = input(descriptor)
            close(descriptor)
            fed.withLock { $0 = n }
            done.signal()
        }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(child.output, &chunk, chunk.count)
            if n > 0 { out += chunk[0..<n] } else if n < 0 && errno == EINTR { continue } else { break }
        }
        close(child.output)
        let status = try Subprocess.wait(child.pid, timeout: 300, name: "trace-view")
        guard done.wait(timeout: .now() + 60) == .success else { throw Subprocess.Failure("the input's writer never ended") }
        let time = try String(contentsOfFile: dir.file("time"), encoding: .utf8)
        let peak = time.split(separator: "\n").compactMap { $0.hasPrefix("peak-kb ") ? Int($0.dropFirst(8)) : nil }.last ?? -1
        let err = (try? String(contentsOfFile: dir.file("err"), encoding: .utf8)) ?? ""
        return (status, String(decoding: out, as: UTF8.self), err, peak, fed.withLock { $0 })
    }

    /// Writes all of `bytes` to `fd`; the bytes written before the reader went away.
    static func feed(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
        }
        return offset
    }

    /// A binary trace that is nothing but empty strings: each costs its reader a table entry and
    /// no byte of text. The string table's budget counts entries too, so the reader stops with a
    /// clear note at 4,194,304 of them, in bounded memory, and does not read on.
    @Test(.enabled(if: measured && Subprocess.which("python3") != nil), .timeLimit(.minutes(Patience.minutes(5))))
    func anEmptyStringFloodStopsAtTheTableBound() async throws {
        let strings = 5_000_000
        let binary = try #require(builtProduct("trace-view"))
        let dir = TemporaryDirectory()
        let (timeFile, errFile) = (dir.file("time"), dir.file("err"))
        // Written by Python (zlib's CRC): a flood made in this debug-built process took a core
        // for tens of seconds, beside the tests that share the machine.
        let script = """
            python3 "$1" "$2" | /usr/bin/time -f "peak-kb %M" -o "$3" "$4" summary - 2>"$5"; echo "status $?"
            """
        let run = try await offThePool {
            try Subprocess.run(
                "/bin/sh",
                ["-c", script, "sh", fixtures + "/scripts/empty_strings.py", String(strings), timeFile, binary, errFile],
                environment: ["NO_COLOR": "1", "TRANSDUCE_LTTNG": "off"], output: .capture, timeout: 300)
        }
        let err = (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? ""
        #expect(run.output.contains("status 65"), "\(run.output)\(err)")
        #expect(err.contains("string table larger than 256 MiB (4194304 strings"), "\(err)")
        let time = try String(contentsOfFile: timeFile, encoding: .utf8)
        let peak = try #require(
            time.split(separator: "\n").compactMap { $0.hasPrefix("peak-kb ") ? Int($0.dropFirst(8)) : nil }.last, "\(time)")
        #expect(peak < 500_000, "peak \(peak) KB")
    }

    /// 30,001 messages, each with the same 64 KiB label: the Mermaid and PlantUML exports are
    /// streamed, each message's text cut to `SequenceExport.maxTextCharacters`.
    @Test(.enabled(if: measured), .timeLimit(.minutes(Patience.minutes(5))), arguments: ["mermaid", "plantuml"])
    func aHugeLabelOnEveryArrowExportsInBoundedMemory(_ format: String) async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("big-labels.tdtrace")
        let binary = try #require(builtProduct("trace-view"))
        // All of it off the concurrency pool: seconds of CPU in a debug build (writing 2 GB of
        // labels, reading every line) held a thread of two there, and the async tests beside it
        // waited.
        let (result, lines, longest, cut) = try await offThePool {
            let label = String(repeating: "x", count: 64 << 10)
            var events: [TraceEvent] = []
            var start = TraceEvent(kind: .runtimeStart, time: 1, thread: 1, runtime: 1)
            start.label = "Big"
            start.label2 = "host"
            events.append(start)
            for i in 1...30_001 {
                var e = TraceEvent(kind: .dispatch, time: UInt64(i) * 10, thread: 1, runtime: 1)
                e.dispatch = UInt64(i)
                e.code = 1
                e.label = label
                events.append(e)
            }
            try TraceFileWriter.write(Trace(events: events), to: path)
            let result = try Self.run(binary, ["export", "--format", format, path]) { _ in 0 }
            let lines = result.out.split(separator: "\n")
            return (result, lines.count, lines.map(\.count).max() ?? 0, lines.contains { $0.contains("xxx…") })
        }
        #expect(result.status == 0, "\(result.err)")
        #expect(lines > 30_001, "\(lines) lines")
        #expect(longest < SequenceExport.maxTextCharacters + 100, "a line of \(longest) characters")
        #expect(cut)
        #expect(result.peakKB < 400_000, "peak \(result.peakKB) KB")
    }

    /// `report` of 6,000 requests whose labels are each 64 KiB (a plain one, and one character of
    /// a base and 32,768 combining marks, which a count of characters alone does not cut): every
    /// text of the page is cut (``ReportModel/maxText``), so the page and the memory follow its
    /// rows, not its labels. Before, a trace like this made a 789 MB page at 2.35 GB.
    @Test(.enabled(if: measured), .timeLimit(.minutes(Patience.minutes(5))))
    func aReportOfHugeLabelsIsBoundedByItsRows() async throws {
        let dir = TemporaryDirectory()
        let template = """
            {"kind":"runtimeStart","time":1,"thread":1,"runtime":1,"transducer":"Big","host":"h","queue_capacity":8}
            {"kind":"dispatch","time":2,"thread":1,"runtime":1,"dispatch":1,"style":"request","event":"x","origin_task":0,"queue_depth":1}
            {"kind":"cycleEnter","time":3,"thread":1,"runtime":1,"cycle":1,"dispatch":1,"waited_ns":1,"queue_depth":0}
            {"kind":"transduce","time":4,"thread":1,"runtime":1,"cycle":1,"step":0,"event":"x"}
            {"kind":"cycleLeave","time":5,"thread":1,"runtime":1,"cycle":1,"outcome":"settled","steps":1,"held_ns":2}
            {"kind":"requestResume","time":6,"thread":1,"runtime":1,"dispatch":1,"outcome":"response","error":"","by_cycle":1,"by_task":0,"latency_ns":4}

            """
        try template.write(toFile: dir.file("template.jsonl"), atomically: true, encoding: .utf8)
        let one = try JSONLinesReader(path: dir.file("template.jsonl")).readAll().events
        #expect(one.count == 6)
        let path = dir.file("big-labels.tdtrace")
        let binary = try #require(builtProduct("trace-view"))
        let page = dir.file("report.html")
        // All of it off the concurrency pool: seconds of CPU in a debug build (writing the
        // labels, decoding the page) held a thread of two there, and the async tests beside it
        // waited.
        let (result, decoded) = try await offThePool {
            let labels = [String(repeating: "L", count: 64 << 10), "a" + String(repeating: "\u{301}", count: 32 << 10)]
            var events = [one[0]]
            for i in 0..<6_000 {
                for var e in one.dropFirst() {
                    e.time += 10 + UInt64(i) * 10
                    if e.kind == .dispatch || e.kind == .cycleEnter || e.kind == .requestResume { e.dispatch = UInt64(i + 1) }
                    if e.kind != .dispatch { e.cycle = UInt64(i + 1) }
                    if e.kind == .dispatch || e.kind == .transduce { e.label = labels[i % 2] }
                    events.append(e)
                }
            }
            try TraceFileWriter.write(Trace(events: events), to: path)
            let result = try Self.run(binary, ["report", "--output", page, path]) { _ in 0 }
            return (result, result.status == 0 ? try ReportPage.model(in: String(contentsOfFile: page, encoding: .utf8)) : nil)
        }
        #expect(result.status == 0, "\(result.err)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: page)[.size] as? Int)
        // 6,000 requests and cycles a row each, 100 diagrams: a few KiB a row at most.
        #expect(size < 6_000 * 2 * 4 << 10, "a page of \(size) bytes")
        let model = try #require(decoded)
        #expect(model.requests.count == 6_000)
        let longest = model.requests.map { $0.label.utf8.count }.max() ?? 0
        #expect(longest <= 4 * ReportModel.maxText, "a label of \(longest) bytes in the page")
        #expect(model.requests.allSatisfy { $0.label.hasSuffix("…") })
        #expect(result.peakKB < 400_000, "peak \(result.peakKB) KB")
    }

    /// The views that keep a gate or tracks per runtime keep them for the first
    /// ``RuntimeLanes/maxWhole`` runtimes and the rest together: on traces of the same number of
    /// events, one of 1,000 runtimes takes no more memory than one of 250 but for a few KB a
    /// runtime, and no more tracks. Measured as trace-view's peak (GNU time), the two traces in
    /// turn. Without the bound, `tui` took 9.2 MB more (`report`, which builds on the same gates,
    /// 12.5 MB: its cards are counted in `ManyRuntimesTests`, its diagrams take a debug build
    /// most of a minute here), and the Chrome export 4,000 tracks more (each runtime's gate,
    /// counter, lanes and request tracks).
    @Test(.enabled(if: measured), .timeLimit(.minutes(Patience.minutes(10))))
    func theViewsAreBoundedInRuntimes() async throws {
        let template = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let dir = TemporaryDirectory()
        let (few, many) = (dir.file("few.tdtrace"), dir.file("many.tdtrace"))
        let events = 128_000
        try await offThePool {
            let generator = try TraceGenerator(template: template)
            // The demo's run in 250 processes (four rounds each), and in 1,000 (one each).
            try generator.write(events: events, processes: 250, runtimes: 1, to: few)
            try generator.write(events: events, processes: 1_000, runtimes: 1, to: many)
        }
        let binary = try #require(builtProduct("trace-view"))
        let json = dir.file("out.json")
        for view in [["tui"], ["export", "--format", "chrome", "--output", json]] {
            var peaks: [Int] = []
            var tracks: [Int] = []
            for trace in [few, many] {
                let run = try await offThePool { try Self.run(binary, view + [trace]) { _ in 0 } }
                #expect(run.status == 0, "\(view): \(run.err)")
                peaks.append(run.peakKB)
                if view.contains(json) {
                    let text = try String(contentsOfFile: json, encoding: .utf8)
                    tracks.append(text.components(separatedBy: #""name":"thread_name""#).count - 1)
                }
            }
            // 750 runtimes more: at most 4 KB each (their open requests and tasks, their names).
            #expect(peaks[1] - peaks[0] < 750 * 4, "\(view): \(peaks[0]) KB at 250 runtimes, \(peaks[1]) KB at 1,000")
            if tracks.count == 2 {
                #expect(tracks[1] <= tracks[0] + 64, "\(tracks[0]) tracks at 250 runtimes, \(tracks[1]) at 1,000")
            }
        }
    }

    /// A request resumed only after its runtime's whole run (the long-request-windows shape)
    /// costs the views that break requests down or draw one no more than a short one: on two
    /// traces of 200,000 events of the same 2 runtimes, one with each runtime's first
    /// `request(load)` resumed at its run's end, `slow`, `tui`, `report`, `sequence --request` of
    /// that request and the CSV and OTLP exports peak within 8 MB of the same view of the
    /// default shape. They kept each window whole: the two runs, 100,000 events each (at 1M
    /// events in 16 runtimes `slow` took 199 MB against 34 MB, `tui` 256 against 93, `report`
    /// 221 against 80, the CSV table 195 against 49).
    @Test(.enabled(if: measured), .timeLimit(.minutes(Patience.minutes(10))))
    func theViewsAreBoundedInRequestWindows() async throws {
        let template = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let dir = TemporaryDirectory()
        let (short, long) = (dir.file("short.tdtrace"), dir.file("long.tdtrace"))
        try await offThePool {
            let generator = try TraceGenerator(template: template)
            try generator.write(events: 200_000, processes: 1, runtimes: 2, to: short)
            try generator.write(events: 200_000, processes: 1, runtimes: 2, longWindows: true, to: long)
        }
        // The first `request(load)` of the first runtime: the one resumed last.
        let events = try TraceFileReader(path: long).readAll().events
        let load = try #require(events.first { $0.kind == .dispatch && $0.label == "load" })
        let resume = try #require(
            events.firstIndex { $0.kind == .requestResume && $0.dispatch == load.dispatch && $0.runtimeKey == load.runtimeKey })
        #expect(resume > events.count * 9 / 10, "the window spans the run")
        let binary = try #require(builtProduct("trace-view"))
        let request = ["--pid", "\(load.process)", "--runtime", "\(load.runtime)", "--request", "\(load.dispatch)"]
        let views = [
            ["slow"], ["tui"], ["report", "--output", dir.file("page.html")], ["sequence"] + request,
            ["export", "--format", "csv", "--table", "requests", "--output", dir.file("requests.csv")],
            ["export", "--format", "otlp", "--output", dir.file("spans.json")],
        ]
        for view in views {
            var peaks: [Int] = []
            for trace in [short, long] {
                let run = try await offThePool { try Self.run(binary, view + [trace]) { _ in 0 } }
                #expect(run.status == 0, "\(view): \(run.err)")
                peaks.append(run.peakKB)
            }
            #expect(
                peaks[1] - peaks[0] < 8_192, "\(view): \(peaks[0]) KB on the default shape, \(peaks[1]) KB with long windows")
        }
    }

    /// JSON Lines export never writes a line longer than its reader reads: an event whose texts
    /// escape to more (C1 controls, six bytes each escaped) has them cut, with a warning, and
    /// reads back with every event.
    @Test func jsonLinesExportNeverWritesALineItsReaderSkips() async throws {
        let dir = TemporaryDirectory()
        let nel = String(repeating: "\u{85}", count: 180_000)
        let lines = [
            #"{"kind":"runtimeStart","time":1,"thread":1,"runtime":1,"transducer":"T","host":"h","queue_capacity":8}"#,
            #"{"kind":"dispatch","time":2,"thread":1,"runtime":1,"dispatch":1,"style":"send","event":"\#(nel)","origin_task":0,"queue_depth":1}"#,
            #"{"kind":"dispatch","time":3,"thread":1,"runtime":1,"dispatch":2,"style":"send","event":"ok","origin_task":0,"queue_depth":1}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir.file("in.jsonl"), atomically: true, encoding: .utf8)
        let export = try await traceView(["export", "--format", "jsonl", "--output", dir.file("out.jsonl"), dir.file("in.jsonl")])
        #expect(export.status == 0, "\(export.err)")
        #expect(export.err.contains("the texts of 1 event were cut to 32 KiB"), "\(export.err)")
        let written = try String(contentsOfFile: dir.file("out.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(written.allSatisfy { $0.utf8.count < JSONLines.maxLine }, "\(written.map(\.utf8.count))")
        let reader = try JSONLinesReader(path: dir.file("out.jsonl"))
        var back: [TraceEvent] = []
        while let e = reader.next() { back.append(e) }
        #expect(back.count == 3, "\(reader.notes)")
        #expect(reader.notes.isEmpty, "\(reader.notes)")
        #expect(back.count == 3 && back[1].label.hasPrefix("\u{85}\u{85}") && back[1].label.hasSuffix("…"))
    }

    /// A ring recorder's dump streams the ring to the file a chunk at a time: what it adds to
    /// the process's peak is a chunk and the labels, not a copy of the ring (a 256 Ki-event ring
    /// made one of 60 MB and more when every event became a `TraceEvent`).
    /// The views that read a file in passes (`tui`, `slow`, `sequence --request`, `tasks`,
    /// `check`) print exactly what they print when the same trace comes on standard input, which
    /// they read once into a copy, on a trace of several runtimes. (Holding the trace and
    /// indexing it, the other way of computing the same answers, is held to them in-process by
    /// the oracle and `StreamingPartsTests`.)
    @Test(.enabled(if: measured), .timeLimit(.minutes(Patience.minutes(5)))) func standardInputGivesTheFilesViews() async throws {
        let recorder = TraceRecorder(capacity: 1 << 15)
        for _ in 0..<3 { _ = try await withTimeout(60) { try await DemoWorkload.run(instrument: recorder) } }
        let directory = TemporaryDirectory()
        let file = directory.file("three.tdtrace")
        try TraceFileWriter.write(recorder.snapshot(), to: file)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let binary = try #require(builtProduct("trace-view"))
        let request = try #require(recorder.snapshot().events.first { $0.kind == .dispatch && $0.label == "load" })
        for view in [
            ["tui"], ["slow"], ["slow", "--format", "json"], ["tasks"], ["check"],
            ["sequence", "--runtime", String(request.runtime), "--request", String(request.dispatch)],
        ] {
            let streamed = try await offThePool { try Self.run(binary, view + [file]) { _ in 0 } }
            let held = try await offThePool { try Self.run(binary, view + ["-"]) { Self.feed($0, bytes) } }
            #expect(streamed.status == 0 && held.status == 0, "\(view): \(streamed.err) \(held.err)")
            // The browser's title names its input.
            let heldOut = held.out.replacingOccurrences(
                of: "trace-view tui standard input ", with: "trace-view tui three.tdtrace ")
            #expect(streamed.out == heldOut, "\(view): the file and standard input differ")
            #expect(!streamed.out.isEmpty)
        }
    }

    /// Views that hold the trace stop at their bound with our error (exit 80), not an abort;
    /// a selection under the bound still works; the views that stream are not bounded at all.
    @Test func aViewThatHoldsTheTraceStopsAtItsBound() async throws {
        // Runtime 1: 20 requests (100 events); runtime 2: 980 requests (4,900 events).
        var events: [TraceEvent] = []
        var t: UInt64 = 1_000_000
        for (runtime, requests) in [(UInt64(1), UInt64(20)), (2, 980)] {
            for id in 1...requests {
                func at(_ kind: TraceEvent.Kind, _ set: (inout TraceEvent) -> Void) {
                    var e = TraceEvent(kind: kind, time: t, thread: 1, runtime: runtime)
                    set(&e)
                    events.append(e)
                    t += 100
                }
                at(.dispatch) {
                    $0.dispatch = id
                    $0.code = TraceNames.code(kind: .dispatch, name: "send")!
                    $0.label = "ping"
                }
                at(.cycleEnter) {
                    $0.dispatch = id
                    $0.cycle = id
                }
                at(.transduce) {
                    $0.cycle = id
                    $0.label = "ping"
                }
                at(.cycleLeave) { $0.cycle = id }
                at(.requestResume) { $0.dispatch = id }
            }
        }
        let directory = TemporaryDirectory()
        let file = directory.file("bounded.tdtrace")
        try TraceFileWriter.write(Trace(events: events), to: file)
        let bound = ["TRACE_VIEW_MAX_EVENTS": "1000"]
        for holding in [["sequence"], ["export", "--format", "mermaid"]] {
            let over = try await traceView(holding + [file], environment: bound)
            #expect(over.status == 80, "\(holding): \(over.err)")
            #expect(over.err.contains("more than 1000 events") && over.err.contains("TRACE_VIEW_MAX_EVENTS"), "\(over.err)")
            let selected = try await traceView(holding + ["--runtime", "1", file], environment: bound)
            #expect(selected.status == 0, "\(holding) --runtime 1: \(selected.err)")
        }
        for streaming in [
            ["summary"], ["contention"], ["tasks"], ["check"], ["slow"], ["tui"], ["export", "--format", "chrome"],
            ["export", "--format", "perfetto"], ["export", "--format", "csv", "--table", "requests"],
            ["export", "--format", "otlp"],
            ["sequence", "--runtime", "2", "--request", "500"],
        ] {
            let result = try await traceView(streaming + [file], environment: bound)
            #expect(result.status == 0, "\(streaming): \(result.err)")
        }
        let slow = try await traceView(["slow", file], environment: bound)
        #expect(slow.out.contains("10 of 1000 awaited"), "all 1,000 requests of 5,000 events: \(slow.out.prefix(300))")
    }

    @Test(.enabled(if: !underThreadSanitizer)) func aLargeRingDumpsInBoundedMemory() async throws {
        let bench = try #require(builtProduct("transduce-bench"))
        let dir = TemporaryDirectory()
        let path = dir.file("ring.tdtrace")
        // Waited for off the concurrency pool (seconds of a child).
        let run = try await offThePool {
            try Subprocess.run(bench, ["--dump-child", String(1 << 18), path], output: .capture, timeout: 600)
        }
        #expect(run.status == 0, "\(run.output)")
        var fields: [String: Int] = [:]
        for pair in run.output.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        let before = try #require(fields["rss_before_kb"], "\(run.output)")
        let after = try #require(fields["hwm_after_kb"], "\(run.output)")
        #expect(fields["bytes"] ?? 0 > (1 << 18) * TraceFileFormat.recordSize, "\(run.output)")
        #expect(after - before < 8 * 1024, "the dump added \(after - before) KB to the peak")
    }
}
