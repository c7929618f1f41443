import Foundation
import TraceGenerator

/// What a run of `transduce-bench` measures, from its command line. The modes that are not a
/// run (a measured child's, the generators', the clock check) run in ``parse(_:)`` and exit there.
struct BenchRun: Sendable {
    var jsonPath: String?
    var quick = false
    /// The output of Benchmarks/callgrind.sh, whose instruction counts join the figures.
    var callgrindPath: String?
    /// Only the `view_*` scale figures (generated traces; minutes at full size).
    var viewsOnly = false
    /// The memory-bound run (`--bounds`, CI's): only the scale figures, every view once at 1M
    /// events on the three shapes, and a failure (status 1) when a figure misses its target.
    var bounds = false
    /// The scale figures' sizes: 1M and 10M events (50k and 500k with --quick), 100M too with
    /// --scale-100m (a 100M-event trace takes ~10 GB of disk and an hour of every view).
    var scale100M = false
    /// The generated shapes the scale figures are measured on (`--shapes few,many,long`): all
    /// three in a full run, the default one in a quick run (CI's, which has a minute and a half).
    var shapes: [ViewScale.Shape]?
    var scaleShapes: [ViewScale.Shape] { shapes ?? (quick && !bounds ? [.few] : ViewScale.Shape.allCases) }
    /// Runs of each view a scale figure is the median of (`--view-runs N`): 3, or 1 in a quick
    /// run (a 100M-event trace's views run once whatever it says).
    var viewRuns: Int?
    var scaleRepetitions: Int { viewRuns ?? (quick || bounds ? 1 : 3) }

    /// What a quick run divides the loops' sizes by.
    var scaleDown: Int { quick ? 20 : 1 }
    /// Rounds of each interleaved pair and repetitions of each measurement.
    var reps: Int { quick ? 3 : 9 }
    var scaleSizes: [(name: String, events: Int)] {
        if bounds { return [("1m", 1_000_000)] }
        return quick
            ? [("50k", 50_000), ("500k", 500_000)]
            : [("1m", 1_000_000), ("10m", 10_000_000)] + (scale100M ? [("100m", 100_000_000)] : [])
    }

    /// This program, resolved: trace-view and TracedExample are built beside it.
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    /// The package's directory (from this file's path): its Benchmarks/, scripts/ and .build/.
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// The path of the product `name` built beside this program.
    static func beside(_ name: String) -> String {
        executable.deletingLastPathComponent().appendingPathComponent(name).path
    }

    static let usage =
        "usage: transduce-bench [--json FILE] [--quick] [--callgrind CALLGRIND_OUTPUT] [--views-only] [--bounds] [--scale-100m] [--shapes few,many,long] [--view-runs N] [--clock-check SECONDS]\n"

    static func parse(_ arguments: [String]) async throws -> BenchRun {
        var run = BenchRun()
        var args = arguments
        var childView: String?
        while let a = args.first {
            args.removeFirst()
            switch a {
            case "--json": run.jsonPath = args.isEmpty ? nil : args.removeFirst()
            case "--quick": run.quick = true
            case "--callgrind": run.callgrindPath = args.isEmpty ? nil : args.removeFirst()
            case "--view-child": childView = args.isEmpty ? nil : args.removeFirst()
            case "--dump-child":
                guard args.count == 2, let events = Int(args[0]), events > 0 else {
                    fail("usage: transduce-bench --dump-child EVENTS FILE\n")
                }
                try DumpChild.run(events: events, file: args[1])
            case "--clock-check":
                // The runtime's clock against clock_gettime over a long run: --clock-check SECONDS
                guard let seconds = args.first.flatMap(Double.init), seconds > 0 else {
                    fail("usage: transduce-bench --clock-check SECONDS\n")
                }
                ClockCheck.runAndExit(seconds: seconds)
            case "--views-only": run.viewsOnly = true
            case "--bounds": (run.bounds, run.viewsOnly) = (true, true)
            case "--scale-100m": run.scale100M = true
            case "--shapes":
                let names = args.isEmpty ? [] : args.removeFirst().split(separator: ",").map(String.init)
                let shapes = names.compactMap(ViewScale.Shape.init(rawValue:))
                guard !shapes.isEmpty, shapes.count == names.count else {
                    fail("usage: transduce-bench --shapes LIST (of few, many, long, comma-separated)\n")
                }
                run.shapes = shapes
            case "--view-runs":
                guard let runs = args.first.flatMap(Int.init), (1...99).contains(runs) else {
                    fail("usage: transduce-bench --view-runs N (1 to 99)\n")
                }
                args.removeFirst()
                run.viewRuns = runs
            case "--generate-trace":
                // A realistic trace of about EVENTS events (TraceGenerator), from 2 processes of 8
                // runtimes or from RUNTIMES processes of one: --generate-trace FILE EVENTS [RUNTIMES]
                let runtimes = args.count == 3 ? Int(args[2]).flatMap { (1...1_000_000).contains($0) ? $0 : nil } : 0
                guard args.count == 2 || args.count == 3, let events = Int(args[1]), events > 0, let runtimes else {
                    fail("usage: transduce-bench --generate-trace FILE EVENTS [RUNTIMES (1 to 1000000)]\n")
                }
                try await TraceGenerator.writeAndExit(events: events, runtimes: runtimes, to: args[0])
            case "--generate-long-windows":
                // The same with long request windows (each runtime's first request(load)
                // resumed after its last round): --generate-long-windows FILE EVENTS
                guard args.count == 2, let events = Int(args[1]), events > 0 else {
                    fail("usage: transduce-bench --generate-long-windows FILE EVENTS\n")
                }
                try await TraceGenerator.writeAndExit(events: events, longWindows: true, to: args[0])
            case "--make-trace":
                // Writes the synthetic trace of the view_1m figures: --make-trace FILE [EVENTS]
                let path = args.isEmpty ? "synthetic.tdtrace" : args.removeFirst()
                try SyntheticTrace.write(Int(args.first ?? "") ?? 1_000_000, to: path)
                exit(0)
            default: fail(usage)
            }
        }
        // The child process of `view_1m_*`: the same reading and report as `trace-view contention`.
        if let childView { try ViewerFigures.runViewChild(childView) }
        return run
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data(message.utf8))
        exit(64)
    }
}

/// The figures of a run, each printed as it comes.
@MainActor final class FigureTable {
    private(set) var figures: [Figure] = []

    /// Adds `figure`, printed unless `quietly` (its caller prints it its own way).
    func add(_ figure: Figure, quietly: Bool = false) {
        figures.append(figure)
        if !quietly { print("  \(figure.key): \(fmt(figure.value, 2)) \(figure.unit) \(figure.spread)") }
    }

    func value(_ key: String) -> Double? { figures.first { $0.key == key }?.value }
}
