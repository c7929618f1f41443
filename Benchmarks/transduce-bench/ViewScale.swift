import Foundation
import TraceGenerator
import TraceTooling
import Transduce
import TransduceTrace

/// The `view_<command>_<size>_*` figures: every trace-view analysis run on generated traces
/// (``TraceGenerator``) of two sizes ten times apart, each in a process of its own under a 4 GiB
/// address-space limit (`prlimit --as`), measured by GNU time: CPU seconds (user + system) and
/// peak resident memory. `growth` is CPU(large) ÷ CPU(small): 10 is linear.
enum ViewScale {
    /// A command by its key, and its arguments for a trace file.
    struct Command: Sendable {
        var key: String
        /// Its arguments for a trace, a scratch file and a request of the trace.
        var arguments: @Sendable (_ trace: String, _ scratch: String, _ request: UInt64) -> [String]
        /// Done to the trace before each run (unmeasured).
        var prepare: (@Sendable (_ trace: String) -> Void)?

        init(
            key: String, prepare: (@Sendable (_ trace: String) -> Void)? = nil,
            arguments: @escaping @Sendable (_ trace: String, _ scratch: String, _ request: UInt64) -> [String]
        ) {
            self.key = key
            self.prepare = prepare
            self.arguments = arguments
        }
    }

    /// A request of the first generated process's first runtime, in the middle of the trace.
    static func sequence(_ trace: String, _ request: UInt64) -> [String] {
        ["sequence", "--pid", "40000", "--runtime", "1", "--request", "\(request)", trace]
    }

    static let commands: [Command] = [
        Command(key: "summary") { t, _, _ in ["summary", t] },
        Command(key: "contention") { t, _, _ in ["contention", t] },
        Command(key: "export_chrome") { t, s, _ in ["export", "--format", "chrome", "--output", s, t] },
        // OpenTelemetry spans, streamed in two passes (three where a request waited long).
        Command(key: "export_otlp") { t, s, _ in ["export", "--format", "otlp", "--output", s, t] },
        Command(key: "tasks") { t, _, _ in ["tasks", t] },
        Command(key: "check") { t, _, _ in ["check", t] },
        // One request: read from the whole file; through a new index (built first, in the same
        // run); through the index kept by the run before.
        Command(key: "sequence_whole") { t, _, r in [sequence(t, r)[0], "--no-index"] + sequence(t, r).dropFirst() },
        Command(key: "sequence_index", prepare: { try? FileManager.default.removeItem(atPath: $0 + ".tdidx") }) { t, _, r in
            sequence(t, r)
        },
        Command(key: "sequence") { t, _, r in sequence(t, r) },
        Command(key: "slow") { t, _, _ in ["slow", t] },
        // With no terminal it prints every pane whole: its cost bounds the first screen's.
        Command(key: "tui") { t, _, _ in ["tui", t] },
        Command(key: "csv_requests") { t, s, _ in ["export", "--format", "csv", "--table", "requests", "--output", s, t] },
        // The HTML page: the tui's passes, the cycles' timeline, the first 100 diagrams through the
        // trace's index (kept by the sequence runs above).
        Command(key: "report") { t, s, _ in ["report", "--output", s, t] },
    ]

    /// What one run took, or why it failed.
    enum Outcome {
        case measured(cpu: Double, rssMB: Double)
        case failed(String)
    }

    /// Runs `trace-view ARGUMENTS` under the limit, its output discarded.
    static func run(_ traceView: String, _ arguments: [String]) -> Outcome {
        let stats = NSTemporaryDirectory() + "transduce-bench-time-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: stats) }
        let argv = ["-f", "%U %S %M", "-o", stats, "prlimit", "--as=4294967296", "--", traceView] + arguments
        guard let result = try? Subprocess.run("/usr/bin/time", argv, output: .discard, timeout: 900) else {
            return .failed("could not run /usr/bin/time (install Debian's `time`)")
        }
        let text = (try? String(contentsOfFile: stats, encoding: .utf8)) ?? ""
        // GNU time writes "Command exited with non-zero status N" first when it did.
        let numbers = text.split(separator: "\n").last.map { $0.split(separator: " ").compactMap { Double($0) } } ?? []
        guard result.status == 0, numbers.count == 3 else {
            return .failed("exit status \(result.status): \(text.split(separator: "\n").first ?? "")")
        }
        return .measured(cpu: numbers[0] + numbers[1], rssMB: numbers[2] / 1024)
    }

    /// Generates the traces, runs every command on each (the median of `repetitions`; one run at
    /// 100M events), and
    /// returns the figures and the failures by key.
    static func figures(
        traceView: String, sizes: [(name: String, events: Int)], repetitions: Int
    ) async throws -> (figures: [Figure], failures: [String: String]) {
        let generator = try await TraceGenerator.recorded()
        var figures: [Figure] = []
        var failures: [String: String] = [:]
        var cpu: [String: [Double]] = [:]
        for size in sizes {
            let file = NSTemporaryDirectory() + "transduce-bench-scale-\(getpid())-\(size.name).tdtrace"
            let scratch = file + ".out"
            defer {
                try? FileManager.default.removeItem(atPath: file)
                try? FileManager.default.removeItem(atPath: file + ".tdidx")
                try? FileManager.default.removeItem(atPath: scratch)
            }
            let (written, request) = try generator.write(events: size.events, to: file)
            print("  (generated \(written) events from 16 runtimes in 2 processes for the \(size.name) figures)")
            for command in commands {
                var samples: [(cpu: Double, rssMB: Double)] = []
                // 100M-event runs take minutes each: one of them.
                for _ in 0..<(size.events >= 100_000_000 ? 1 : repetitions) {
                    command.prepare?(file)
                    switch run(traceView, command.arguments(file, scratch, request)) {
                    case .measured(let c, let r): samples.append((c, r))
                    case .failed(let why): failures["view_\(command.key)_\(size.name)_cpu_s"] = why
                    }
                }
                if command.key == "csv_requests", !samples.isEmpty, let python = Subprocess.which("python3") {
                    // What a data tool pays to read the table: Python's csv module, every row.
                    let read = "import csv, sys; print(sum(1 for _ in csv.reader(open(sys.argv[1], newline=''))))"
                    let start = MonotonicClock.now()
                    if let r = try? Subprocess.run(python, ["-c", read, scratch], output: .discard, timeout: 900), r.status == 0 {
                        let f = Figure(
                            key: "csv_requests_\(size.name)_python_s", value: Double(MonotonicClock.now() - start) / 1e9, min: 0,
                            max: 0, unit: "s")
                        figures.append(f)
                        print("  \(f.key): \(fmt(f.value, 2)) s (wall)")
                    }
                }
                guard !samples.isEmpty else {
                    print(
                        "  view_\(command.key)_\(size.name): failed: \(failures["view_\(command.key)_\(size.name)_cpu_s"] ?? "")")
                    continue
                }
                let cpus = samples.map(\.cpu).sorted()
                let rss = samples.map(\.rssMB).sorted()
                cpu[command.key, default: []].append(cpus[cpus.count / 2])
                for f in [
                    Figure(
                        key: "view_\(command.key)_\(size.name)_cpu_s", value: cpus[cpus.count / 2], min: cpus.first!,
                        max: cpus.last!, unit: "s"),
                    Figure(
                        key: "view_\(command.key)_\(size.name)_rss_mb", value: rss[rss.count / 2], min: rss.first!,
                        max: rss.last!, unit: "MB"),
                ] {
                    figures.append(f)
                    print("  \(f.key): \(fmt(f.value, 2)) \(f.unit) \(f.spread)")
                }
            }
            // The TUI in a terminal: the first rows, the whole, its memory (one run: wall time).
            switch TUIScreen.figures(traceView: traceView, trace: file, size: size.name) {
            case .success(let found):
                for f in found { print("  \(f.key): \(fmt(f.value, 2)) \(f.unit)") }
                figures += found
            case .failure(let failure):
                failures["view_tui_first_screen_\(size.name)_s"] = failure.why
                print("  view_tui_first_screen_\(size.name): failed: \(failure.why)")
            }
        }
        for command in commands {
            // CPU(10M) ÷ CPU(1M), and CPU(100M) ÷ CPU(10M) when measured: 10 is linear.
            guard let list = cpu[command.key], list.count >= 2 else { continue }
            for (i, suffix) in [(1, ""), (2, "_100m")] where i < list.count && list[i - 1] > 0 {
                let growth = Figure(
                    key: "view_\(command.key)_growth\(suffix)", value: list[i] / list[i - 1], min: 0, max: 0, unit: "×")
                figures.append(growth)
                print("  \(growth.key): \(fmt(growth.value, 2)) ×")
            }
        }
        return (figures, failures)
    }

    /// The `--views-only` end: the figures (and failures) as JSON at `json`, when given.
    static func writeAndExit(_ scale: (figures: [Figure], failures: [String: String]), json path: String?) throws -> Never {
        if let path {
            var json: [String: Any] = scale.failures
            for f in scale.figures { json[f.key] = f.value }
            let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .prettyPrinted])
            try data.write(to: URL(fileURLWithPath: path))
        }
        exit(scale.failures.isEmpty ? 0 : 1)
    }

    /// Every key, in table order.
    static func keys(sizes: [String]) -> [String] {
        commands.flatMap { c in
            sizes.flatMap { ["view_\(c.key)_\($0)_cpu_s", "view_\(c.key)_\($0)_rss_mb"] } + ["view_\(c.key)_growth"]
                + (sizes.count > 2 ? ["view_\(c.key)_growth_100m"] : [])
        } + sizes.map { "csv_requests_\($0)_python_s" }
            + sizes.flatMap {
                ["view_tui_first_screen_\($0)_s", "view_tui_whole_screen_\($0)_s", "view_tui_screen_\($0)_rss_mb"]
            }
    }
}
