// transduce-bench: the runtime and the toolkit against their floors, measured side by side in
// one run (see Benchmarks/README.md). `swift run -c release transduce-bench [--json FILE] [--quick]`
//
// One file per subject: RuntimeFigures (send, request, the observable host, what a recorder
// adds), RecorderFigures (a record, two producers, the trigger, the clock, the C floors),
// LTTngFigures, ViewerFigures (trace-view, live, record, dumps), ViewScale and TUIScreen (every
// view on generated traces of two sizes); Table prints them against Thresholds/transduce-bench.tsv.
import CBenchFloor
import Foundation

/// The whole run. In a function, not top-level code: Swift 6.3's optimizer crashed on the
/// top-level tuple of the scale figures ("Found ownership error", CopyPropagation on async_Main).
@MainActor func benchmark() async throws {
    let run = try await BenchRun.parse(Array(CommandLine.arguments.dropFirst()))
    let table = FigureTable()
    print("transduce-bench (\(run.quick ? "quick" : "full") run, \(ProcessInfo.processInfo.activeProcessorCount) cores)")

    // The views at scale first: with --views-only, nothing else.
    let scale = try await ViewScale.figures(
        traceView: BenchRun.beside("trace-view"), sizes: run.scaleSizes, shapes: run.scaleShapes,
        repetitions: run.scaleRepetitions)
    if run.viewsOnly { try ViewScale.writeAndExit(scale, json: run.jsonPath, holdingTargets: run.bounds) }

    try await RuntimeFigures.collect(run, into: table)
    RecorderFigures.collect(run, into: table)
    let lttngNote = try LTTngFigures.collect(run, into: table)
    try ViewerFigures.collect(run, into: table)

    for figure in scale.figures { table.add(figure, quietly: true) }
    if let callgrind = run.callgrindPath {
        for figure in try Table.callgrindFigures(callgrind) { table.add(figure, quietly: true) }
    }
    try Table.finish(run, table.figures, scaleFailures: scale.failures, lttngNote: lttngNote)
}

bench_line_buffered_stdout()
try await benchmark()
