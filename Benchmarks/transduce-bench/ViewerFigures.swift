import Foundation
import TraceTooling
import Transduce
import TransduceTrace

/// The synthetic trace of the `view_1m` figures.
enum SyntheticTrace {
    /// A synthetic trace of `n` events: cycles of dispatch, enter, transduce, effect, leave, resume.
    static func write(_ n: Int, to path: String) throws {
        var events: [TraceEvent] = []
        events.reserveCapacity(n)
        var t: UInt64 = 1_000_000_000
        var start = TraceEvent(kind: .runtimeStart, time: t, thread: 1, runtime: 1)
        start.label = "Bench"
        start.label2 = "BaseRuntime"
        start.count = 1024
        events.append(start)
        var id: UInt64 = 0
        let labels = ["tick", "load", "refresh", "ping", "sync"]
        while events.count < n {
            id += 1
            let label = labels[Int(id % 5)]
            var d = TraceEvent(kind: .dispatch, time: t, thread: 2, runtime: 1)
            d.dispatch = id
            d.code = 2
            d.label = label
            d.count = UInt32(id % 7)
            var enter = TraceEvent(kind: .cycleEnter, time: t + 900, thread: 3, runtime: 1)
            enter.cycle = id
            enter.dispatch = id
            enter.nanos = 900 + (id % 97) * 40
            var tr = TraceEvent(kind: .transduce, time: t + 1_000, thread: 3, runtime: 1)
            tr.cycle = id
            tr.label = label
            var eff = TraceEvent(kind: .effect, time: t + 1_200, thread: 3, runtime: 1)
            eff.cycle = id
            eff.code = id % 11 == 0 ? 3 : 0
            eff.nanos = id % 11 == 0 ? 50_000 : 100
            var leave = TraceEvent(kind: .cycleLeave, time: t + 1_400, thread: 3, runtime: 1)
            leave.cycle = id
            leave.step = 1
            leave.nanos = 400 + (id % 13) * 100
            var resume = TraceEvent(kind: .requestResume, time: t + 1_500, thread: 3, runtime: 1)
            resume.dispatch = id
            resume.cycle = id
            resume.nanos = 1_500
            events += [d, enter, tr, eff, leave, resume]
            t += 2_000
        }
        try TraceFileWriter.write(Trace(events: Array(events.prefix(n))), to: path)
    }
}

/// The viewer's and the dumps' figures: `trace-view contention` of a million events and its
/// memory, the live viewer's memory over a long session, `trace-view record`'s losses and its CTF
/// reading against babeltrace2, and a full ring's dump.
enum ViewerFigures {
    /// The status `trace-view record` exits with when LTTng discarded events.
    static let eventsLost: Int32 = 79

    @MainActor static func collect(_ run: BenchRun, into table: FigureTable) throws {
        let traceView = BenchRun.beside("trace-view")
        let exe = BenchRun.executable
        let viewN = 1_000_000 / run.scaleDown
        let viewFile = NSTemporaryDirectory() + "transduce-bench-\(getpid()).tdtrace"
        try SyntheticTrace.write(viewN, to: viewFile)
        defer { try? FileManager.default.removeItem(atPath: viewFile) }
        let viewer: (String, [String]) =
            FileManager.default.isExecutableFile(atPath: traceView)
            ? (traceView, ["contention", viewFile]) : (exe.path, ["--view-child", viewFile])
        table.add(
            try measure("view_1m_s", unit: "s", warmup: 1, repetitions: run.quick ? 2 : 5) {
                try spawn(viewer.0, viewer.1).0 * Double(run.scaleDown)
            })
        var rssSamples: [Double] = []
        for _ in 0..<(run.quick ? 2 : 5) {
            let (_, out) = try spawn(exe.path, ["--view-child", viewFile])
            rssSamples.append((Double(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) / 1024)
        }
        rssSamples.sort()
        let rss = Figure(
            key: "view_1m_rss_mb", value: rssSamples[rssSamples.count / 2], min: rssSamples.first!, max: rssSamples.last!,
            unit: "MB", note: run.quick ? "quick run: \(viewN) events" : "")
        table.add(rss, quietly: true)
        print(
            "  view_1m_rss_mb: \(fmt(rss.value, 1)) MB (time: \(viewer.0 == traceView ? "trace-view contention" : "in-process reader"); memory: the same reader and report in a child)"
        )

        // The live viewer's memory over a long session (LTTng, a relay daemon and TracedExample
        // needed; `swift build -c release --product TracedExample` beside trace-view).
        let live: (megabytes: Double, received: Int)?
        do {
            live = try liveMemory(
                events: run.quick ? 20_000 : 1_000_000, traceView: traceView, example: BenchRun.beside("TracedExample"))
        } catch {
            // A machine whose LTTng cannot run a live session: said, and the rest of the run stands.
            print("  live_1m_rss_mb: failed: \(error)")
            live = nil
        }
        if let live {
            table.add(
                Figure(
                    key: "live_1m_rss_mb", value: live.megabytes, min: live.megabytes, max: live.megabytes, unit: "MB",
                    note: "\(live.received) events received live" + (run.quick ? " (quick run)" : "")), quietly: true)
            print("  live_1m_rss_mb: \(fmt(live.megabytes, 1)) MB (trace-view live and its reader, \(live.received) events)")
        } else {
            print("  live_1m_rss_mb: not measured (needs release trace-view and TracedExample, lttng-tools with lttng-relayd)")
        }

        do {
            if let (worst, ctfRatios) = try recordLosses(traceView: traceView, runs: 3, repeats: run.quick ? 100 : 7_813) {
                table.add(Figure(key: "record_lossless_discarded", value: worst, min: worst, max: worst, unit: "events"))
                if !ctfRatios.isEmpty {
                    table.add(
                        Figure(
                            key: "ctf_vs_babeltrace", value: ctfRatios[ctfRatios.count / 2], min: ctfRatios.first!,
                            max: ctfRatios.last!, unit: "×", note: "trace-view summary ÷ babeltrace2 -o dummy, CPU"))
                }
            } else {
                print("  record_lossless_discarded: not measured (needs release trace-view and TracedExample, and lttng-tools)")
            }
        } catch {
            print("  record_lossless_discarded: failed: \(error)")
        }

        // A full ring of 64 Mi events (7 GB of slots, a 5.4 GB file; 1 Mi with --quick), dumped in
        // a child of its own so that its peak is the dump's alone.
        var dumpSamples: [(mbps: Double, vsWrite: Double, extraMB: Double)] = []
        for _ in 0..<(run.quick ? 1 : 3) {
            let file = NSTemporaryDirectory() + "transduce-bench-dump-\(getpid()).tdtrace"
            let (_, line) = try spawn(exe.path, ["--dump-child", String(run.quick ? 1 << 20 : 1 << 26), file])
            var fields: [String: Double] = [:]
            for pair in line.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
                let parts = pair.split(separator: "=")
                if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
            }
            guard let bytes = fields["bytes"], let dump = fields["dump_s"], let write = fields["write_s"],
                let before = fields["rss_before_kb"], let after = fields["hwm_after_kb"]
            else { throw Subprocess.Failure("the dump child said: \(line)") }
            dumpSamples.append((bytes / 1e6 / dump, write / dump, max(0, after - before) / 1024))
        }
        func dumpFigure(_ key: String, _ unit: String, _ value: ((mbps: Double, vsWrite: Double, extraMB: Double)) -> Double)
            -> Figure
        {
            let values = dumpSamples.map(value).sorted()
            return Figure(key: key, value: values[values.count / 2], min: values.first!, max: values.last!, unit: unit)
        }
        table.add(dumpFigure("dump_mb_s", "MB/s") { $0.mbps })
        table.add(dumpFigure("dump_vs_write", "×") { $0.vsWrite })
        table.add(dumpFigure("dump_extra_mb", "MB") { $0.extraMB })
    }

    /// The child process of `view_1m_*`: the same reading and report as `trace-view contention`;
    /// prints its peak resident memory and exits.
    static func runViewChild(_ path: String) throws -> Never {
        let reader = try TraceFileReader(path: path)
        var report = ContentionReport()
        while let e = reader.next() { report.consume(e) }
        _ = report.render()
        // Peak resident memory of this process image (VmHWM is per address space, so unlike
        // wait4's ru_maxrss it does not include the parent's peak that exec carries over).
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let hwm = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst().first ?? "0"
        print(hwm)
        exit(reader.notes.isEmpty ? 0 : 65)
    }

    /// Runs a command, returning its wall time in seconds and its standard output.
    static func spawn(_ argv0: String, _ arguments: [String]) throws -> (Double, String) {
        let start = MonotonicClock.now()
        let result = try Subprocess.run(argv0, arguments, output: .capture, timeout: 600)
        guard result.status == 0 else {
            throw Subprocess.Failure("\(argv0) exited with status \(result.status): \(result.output)")
        }
        return (Double(MonotonicClock.now() - start) / 1e9, result.output)
    }

    /// `trace-view record` of a burst of 1,000,064 events (TracedExample --repeat 7813; 12,800
    /// with --quick), `runs` times in a row with its default channel: the most events LTTng
    /// discarded in any of them (record exits 79 and says how many when it discarded any), and
    /// the first recording's `ctf_vs_babeltrace` ratios. `nil` without trace-view, TracedExample
    /// or lttng-tools.
    static func recordLosses(traceView: String, runs: Int, repeats: Int) throws -> (worst: Double, ctfRatios: [Double])? {
        let example = BenchRun.beside("TracedExample")
        guard FileManager.default.isExecutableFile(atPath: traceView), FileManager.default.isExecutableFile(atPath: example),
            LTTngSession.toolsMissing == nil
        else { return nil }
        var worst: UInt64 = 0
        var ctfRatios: [Double] = []
        for run in 0..<runs {
            let dir = NSTemporaryDirectory() + "transduce-bench-record-\(getpid())-\(run)"
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let result = try Subprocess.run(
                traceView, ["record", "--output", dir, "--", example, "--repeat", String(repeats), dir + ".tdtrace"],
                output: .capture, timeout: 600)
            try? FileManager.default.removeItem(atPath: dir + ".tdtrace")
            if run == 0 && result.status == 0 { ctfRatios = ctfVersusBabeltrace(traceView: traceView, dir) }
            switch result.status {
            case 0: continue
            case eventsLost:
                let said = result.output.range(of: "LTTng discarded ").map { result.output[$0.upperBound...] }
                worst = max(worst, UInt64(said?.prefix { $0.isNumber } ?? "") ?? .max)
            default: throw Subprocess.Failure("trace-view record exited with \(result.status): \(result.output.suffix(400))")
            }
        }
        return (Double(worst), ctfRatios)
    }

    /// `ctf_vs_babeltrace`: `trace-view summary` of an LTTng trace ÷ `babeltrace2 -o dummy` of
    /// it, CPU (each with its children), alternated three times; empty without babeltrace2.
    static func ctfVersusBabeltrace(traceView: String, _ dir: String) -> [Double] {
        guard let babeltrace = Subprocess.which("babeltrace2") else { return [] }
        var ratios: [Double] = []
        for _ in 0..<3 {
            guard case .measured(let ours, _) = ViewScale.run(traceView, ["summary", dir]),
                case .measured(let theirs, _) = ViewScale.run(babeltrace, [dir, "-o", "dummy"]), theirs > 0
            else { return ratios }
            ratios.append(ours / theirs)
        }
        return ratios.sorted()
    }
}
