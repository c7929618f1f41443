import Foundation
import TraceGenerator
import TraceTooling
import Transduce
import TransduceTrace

/// The `view_<command>_<size>_*` figures: every trace-view analysis run on generated traces
/// (``TraceGenerator``) of two sizes ten times apart, each in a process of its own under a 4 GiB
/// address-space limit (`prlimit --as`), measured by GNU time: CPU seconds (user + system) and
/// peak resident memory. `growth` is CPU(large) ÷ CPU(small): 10 is linear. Each of the
/// generator's three shapes (``Shape``) is measured alike; the keys of the others than the
/// default name it (`view_<command>_many_<size>_*`, `view_<command>_long_<size>_*`).
enum ViewScale {
    /// A shape of generated trace: what a view's bounds must hold in besides the number of events.
    enum Shape: String, CaseIterable, Sendable {
        /// 16 runtimes in 2 processes (the demo's run repeated by each).
        case few
        /// A runtime per 128 events, each in a process of its own (a runtime per connection or
        /// document: 78,126 at 10M events, about half of them open at once).
        case many
        /// 16 runtimes whose first `request(load)` is resumed only after their last round: a
        /// request whose window spans its runtime's whole run.
        case long

        /// What the shape's keys say after the command's name ("" for the default).
        var infix: String { self == .few ? "" : rawValue + "_" }

        /// Writes a trace of this shape of about `events` events to `path`: how many it wrote, and
        /// a request of process 40000's runtime 1 in the middle of its run.
        func write(_ generator: TraceGenerator, events: Int, to path: String) throws -> (events: Int, request: UInt64) {
            switch self {
            case .few: try generator.write(events: events, to: path)
            case .many: try generator.write(events: events, processes: max(1, events / 128), runtimes: 1, to: path)
            case .long: try generator.write(events: events, longWindows: true, to: path)
            }
        }

        var described: String {
            switch self {
            case .few: "16 runtimes in 2 processes"
            case .many: "a runtime per 128 events, a process each"
            case .long: "16 runtimes, each with a request waiting its whole run"
            }
        }
    }

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
        // Two runs compared: the trace against itself, each read in the CSV requests table's passes.
        Command(key: "diff") { t, _, _ in ["diff", t, t] },
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
        traceView: String, sizes: [(name: String, events: Int)], shapes: [Shape], repetitions: Int
    ) async throws -> (figures: [Figure], failures: [String: String]) {
        let generator = try await TraceGenerator.recorded()
        var figures: [Figure] = []
        var failures: [String: String] = [:]
        var cpu: [String: [Double]] = [:]
        for shape in shapes {
            for size in sizes {
                let (found, failed) = try measure(
                    traceView: traceView, generator: generator, shape: shape, size: size, repetitions: repetitions,
                    cpu: &cpu)
                figures += found
                failures.merge(failed) { $1 }
            }
            for command in commands {
                // CPU(10M) ÷ CPU(1M), and CPU(100M) ÷ CPU(10M) when measured: 10 is linear.
                guard let list = cpu[shape.infix + command.key], list.count >= 2 else { continue }
                for (i, suffix) in [(1, ""), (2, "_100m")] where i < list.count && list[i - 1] > 0 {
                    let growth = Figure(
                        key: key(command.key, shape, "growth" + suffix), value: list[i] / list[i - 1], min: 0, max: 0,
                        unit: "×")
                    figures.append(growth)
                    print("  \(growth.key): \(fmt(growth.value, 2)) ×")
                }
            }
        }
        return (figures, failures)
    }

    /// Every command on a generated trace of `shape` and `size`; each command's median CPU is
    /// appended to `cpu` (by shape and command) for the growth figures.
    private static func measure(
        traceView: String, generator: TraceGenerator, shape: Shape, size: (name: String, events: Int), repetitions: Int,
        cpu: inout [String: [Double]]
    ) throws -> (figures: [Figure], failures: [String: String]) {
        var figures: [Figure] = []
        var failures: [String: String] = [:]
        let file = NSTemporaryDirectory() + "transduce-bench-scale-\(getpid())-\(shape)-\(size.name).tdtrace"
        let scratch = file + ".out"
        defer {
            try? FileManager.default.removeItem(atPath: file)
            try? FileManager.default.removeItem(atPath: file + ".tdidx")
            try? FileManager.default.removeItem(atPath: scratch)
        }
        let (written, request) = try shape.write(generator, events: size.events, to: file)
        print("  (generated \(written) events, \(shape.described), for the \(shape.infix)\(size.name) figures)")
        for command in commands {
            let key = key(command.key, shape, size.name)
            var samples: [(cpu: Double, rssMB: Double)] = []
            // 100M-event runs take minutes each: one of them.
            for _ in 0..<(size.events >= 100_000_000 ? 1 : repetitions) {
                command.prepare?(file)
                switch run(traceView, command.arguments(file, scratch, request)) {
                case .measured(let c, let r): samples.append((c, r))
                case .failed(let why): failures[key + "_cpu_s"] = why
                }
            }
            if command.key == "csv_requests", shape == .few, !samples.isEmpty, let python = Subprocess.which("python3") {
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
                print("  \(key): failed: \(failures[key + "_cpu_s"] ?? "")")
                continue
            }
            let cpus = samples.map(\.cpu).sorted()
            let rss = samples.map(\.rssMB).sorted()
            cpu[shape.infix + command.key, default: []].append(cpus[cpus.count / 2])
            if command.key == "summary", shape == .few, cpus[0] > 0 {
                // Reading speed: events a CPU second, in millions (issue 46 asks 20 a core).
                let rate = { (seconds: Double) in Double(written) / seconds / 1e6 }
                let f = Figure(
                    key: "summary_\(size.name)_mevents_per_cpu_s", value: rate(cpus[cpus.count / 2]), min: rate(cpus.last!),
                    max: rate(cpus.first!), unit: "M/s")
                figures.append(f)
                print("  \(f.key): \(fmt(f.value, 1)) \(f.unit) \(f.spread)")
            }
            for f in [
                Figure(key: key + "_cpu_s", value: cpus[cpus.count / 2], min: cpus.first!, max: cpus.last!, unit: "s"),
                Figure(key: key + "_rss_mb", value: rss[rss.count / 2], min: rss.first!, max: rss.last!, unit: "MB"),
            ] {
                figures.append(f)
                print("  \(f.key): \(fmt(f.value, 2)) \(f.unit) \(f.spread)")
            }
        }
        // The TUI in a terminal: the first rows, the whole, its memory (one run: wall time), on
        // the default shape.
        if shape == .few {
            switch TUIScreen.figures(traceView: traceView, trace: file, size: size.name) {
            case .success(let found):
                for f in found { print("  \(f.key): \(fmt(f.value, 2)) \(f.unit)") }
                figures += found
            case .failure(let failure):
                failures["view_tui_first_screen_\(size.name)_s"] = failure.why
                print("  view_tui_first_screen_\(size.name): failed: \(failure.why)")
            }
        }
        // The Perfetto export of a runtime per connection, opened in Perfetto's own UI (wall time).
        if shape == .many {
            let key = PerfettoUILoad.key(shape, size.name)
            switch PerfettoUILoad.python {
            case .failure(let missing): print("  \(key): left out: \(missing.why)")
            case .success(let python):
                switch PerfettoUILoad.figure(traceView: traceView, python: python, trace: file, scratch: scratch, key: key) {
                case .success(let f):
                    print("  \(f.key): \(fmt(f.value, 1)) \(f.unit) (wall)")
                    figures.append(f)
                case .failure(let failure):
                    failures[key] = failure.why
                    print("  \(key): failed: \(failure.why)")
                }
            }
        }
        return (figures, failures)
    }

    /// The `--views-only` end: the figures (and failures) as JSON at `json`, when given. Exits 1
    /// when a view failed, and (`holdingTargets`) when a figure misses its target, each named
    /// with its bound.
    static func writeAndExit(
        _ scale: (figures: [Figure], failures: [String: String]), json path: String?, holdingTargets: Bool = false
    ) throws -> Never {
        if let path {
            var json: [String: Any] = scale.failures
            for f in scale.figures { json[f.key] = f.value }
            let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .prettyPrinted])
            try data.write(to: URL(fileURLWithPath: path))
        }
        var missed = 0
        if holdingTargets {
            let thresholds = try Thresholds()
            for f in scale.figures {
                guard let target = thresholds.target(of: f.key), !target.met(by: f.value) else { continue }
                print("missed: \(f.key) is \(fmt(f.value, 2)) \(f.unit), its target \(target.shown)")
                missed += 1
            }
            for (key, why) in scale.failures.sorted(by: { $0.key < $1.key }) { print("failed: \(key): \(why)") }
            print(
                missed == 0 && scale.failures.isEmpty
                    ? "every view within its targets (\(scale.figures.count) figures)"
                    : "\(missed) figures missed their targets, \(scale.failures.count) views failed")
        }
        exit(scale.failures.isEmpty && missed == 0 ? 0 : 1)
    }

    /// The key of `command`'s figure `rest` (a size, or `growth`) on `shape`: the one spelling
    /// of a view figure's key (`view_<command>_<shape>_<rest>`, no shape for the default).
    static func key(_ command: String, _ shape: Shape, _ rest: String) -> String {
        "view_\(command)_\(shape.infix)\(rest)"
    }

    /// Every key, in table order.
    static func keys(sizes: [String], shapes: [Shape]) -> [String] {
        shapes.flatMap { shape in
            commands.flatMap { c in
                sizes.flatMap { [key(c.key, shape, $0) + "_cpu_s", key(c.key, shape, $0) + "_rss_mb"] }
                    + [key(c.key, shape, "growth")]
                    + (sizes.count > 2 ? [key(c.key, shape, "growth_100m")] : [])
            }
        } + sizes.map { "csv_requests_\($0)_python_s" } + sizes.map { "summary_\($0)_mevents_per_cpu_s" }
            + (shapes.contains(.many) ? sizes.map { PerfettoUILoad.key(.many, $0) } : [])
            + sizes.flatMap {
                ["view_tui_first_screen_\($0)_s", "view_tui_whole_screen_\($0)_s", "view_tui_screen_\($0)_rss_mb"]
            }
    }
}
