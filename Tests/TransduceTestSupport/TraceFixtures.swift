import Foundation
import Testing
import TraceTooling
import Transduce

@testable import TransduceTrace

/// The shared test fixtures: `Tests/Fixtures` (traces, goldens, regressions, scripts).
package let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").path

/// Runs the built trace-view with a fixed width (`nil`: none, as in a pipe) and no colour, on the
/// calling thread: only for code already off the pool (tests call ``traceView(_:columns:lttng:environment:)``).
package func traceViewBlocking(
    _ arguments: [String], columns: Int? = 100, lttng: Bool = false, environment extra: [String: String] = [:]
) throws -> (status: Int32, out: String, err: String) {
    expectOffThePool("trace-view \(arguments.first ?? "")")
    let binary = try #require(builtProduct("trace-view"), "trace-view was not built")
    // Loopback collectors are reached directly, whatever proxy the machine names.
    var environment = [
        "COLUMNS": columns.map(String.init) ?? "", "NO_COLOR": "1", "NO_PROXY": "127.0.0.1,localhost,::1",
        "no_proxy": "127.0.0.1,localhost,::1",
    ]
    if !lttng { environment["TRANSDUCE_LTTNG"] = "off" }
    environment.merge(extra) { $1 }
    let result = try Subprocess.run(
        binary, arguments, environment: environment, output: .captureSeparately, timeout: 300 * Patience.factor)
    return (result.status, result.output, result.errors)
}

/// Compares `output` with the golden file `name`; `UPDATE_GOLDENS=1` rewrites it.
package func expectGolden(_ output: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let path = fixtures + "/golden/" + name
    if ProcessInfo.processInfo.environment["UPDATE_GOLDENS"] != nil {
        try FileManager.default.createDirectory(atPath: fixtures + "/golden", withIntermediateDirectories: true)
        try output.write(toFile: path, atomically: true, encoding: .utf8)
        return
    }
    let expected = try String(contentsOfFile: path, encoding: .utf8)
    if output != expected {
        let a = output.split(separator: "\n", omittingEmptySubsequences: false)
        let b = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        Issue.record(
            "\(name) differs at line \(line + 1):\n  expected: \(line < b.count ? String(b[line]) : "<end>")\n  actual:   \(line < a.count ? String(a[line]) : "<end>")",
            sourceLocation: sourceLocation)
    }
}

/// The package's own checkout, for the scripts, docs and sources the tests read.
package enum Repository {
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}

/// The passes a trace-view run read, how many of them read its input itself and how many events
/// they read in all, from what it says with `TRACE_VIEW_SAY_READS` set (`trace-view: reads: 3
/// passes, 1 of the input, 52000 events`).
package func traceViewReads(_ err: String) -> (passes: Int, input: Int, events: Int)? {
    guard let line = err.split(separator: "\n").first(where: { $0.hasPrefix("trace-view: reads: ") }) else { return nil }
    let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    return numbers.count == 3 ? (numbers[0], numbers[1], numbers[2]) : nil
}
