import Foundation
import Testing
import TraceGenerator
import TransduceTestSupport

@testable import TransduceTrace
@testable import trace_view

/// A trace of more runtimes than the views keep whole (a runtime per connection): `tui` and
/// `report` keep the first ``RuntimeLanes/maxWhole`` runtimes' gates whole and the others
/// together in one row, say how many, lose none of their cycles, requests or tasks, and name each
/// row's own runtime.
@Suite struct ManyRuntimesTests {
    static let processes = RuntimeLanes.maxWhole + 6

    /// The demo's run in `processes` processes of one runtime each, about 40 events a runtime.
    static func trace(in directory: TemporaryDirectory) throws -> (path: String, trace: Trace) {
        let template = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let path = directory.file("many.tdtrace")
        try TraceGenerator(template: template).write(events: processes * 40, processes: processes, runtimes: 1, to: path)
        return (path, try TraceFileReader(path: path).readAll())
    }

    @Test func theTerminalUIKeepsTheFirstRuntimesWholeAndTheOthersTogether() async throws {
        let directory = TemporaryDirectory()
        let (path, trace) = try Self.trace(in: directory)
        let cycles = trace.events.filter { $0.kind == .cycleEnter }.count
        let run = try await traceView(["tui", path], environment: ["COLUMNS": "160"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("\(Self.processes) runtimes"), "\(run.out.prefix(300))")
        // The gate pane: its head, a row per whole runtime, then the others' row.
        let lines = run.out.split(separator: "\n", omittingEmptySubsequences: false)
        let head = try #require(lines.lastIndex { $0.contains("holding now") })
        let rows = lines[(head + 1)...].prefix { !$0.isEmpty }
        #expect(rows.count == RuntimeLanes.maxWhole + 1, "\(rows.count) gate rows")
        #expect(rows.last?.hasPrefix("  6 others ") == true, "\(rows.last ?? "")")
        // Every cycle is in one row: the others' cycles are theirs, not lost.
        // (The cycles follow the host: "generated", or "-" for the others.)
        let counted = rows.compactMap { row -> Int? in
            let words = row.split(separator: " ")
            return words.firstIndex { $0 == "generated" || $0 == "-" }.flatMap { Int(words[$0 + 1]) }
        }
        #expect(counted.count == rows.count && counted.reduce(0, +) == cycles, "\(counted) of \(cycles)")
        // A request of a runtime with no row of its own still names its runtime.
        let pooled = try #require(trace.events.last { $0.kind == .dispatch && $0.isAwaitedDispatch })
        #expect(run.out.contains("\n  \(pooled.runtimeKey.name) "), "no row names \(pooled.runtimeKey.name)")
    }

    @Test func theReportKeepsTheFirstRuntimesWholeAndTheOthersTogether() async throws {
        let directory = TemporaryDirectory()
        let (path, trace) = try Self.trace(in: directory)
        let (_, model) = try await ReportTests.report([path], in: directory)
        #expect(model.runtimes.count == RuntimeLanes.maxWhole + 1)
        #expect(model.summary.runtimes == Self.processes)
        #expect(model.runtimes.last?.name == "6 others")
        #expect(model.runtimes.map(\.cycles).reduce(0, +) == model.summary.cycles)
        #expect(model.summary.cycles == trace.events.filter { $0.kind == .cycleEnter }.count)
        #expect(model.aggregated.contains { $0.hasPrefix("runtimes: the first \(RuntimeLanes.maxWhole) of \(Self.processes)") })
        // The whole runtimes are the first the trace names; the rows of the others are on the
        // last card and say their own runtime.
        var named: [RuntimeKey] = []
        for e in trace.events where !named.contains(e.runtimeKey) { named.append(e.runtimeKey) }
        let whole = Set(named.prefix(RuntimeLanes.maxWhole).map(\.name))
        #expect(Set(model.runtimes.dropLast().map(\.name)) == whole)
        let others = model.requests.filter { $0.runtimeName != nil }
        #expect(!others.isEmpty && others.count < model.requests.count)
        #expect(others.allSatisfy { $0.runtime == RuntimeLanes.maxWhole && !whole.contains($0.runtimeName!) })
        #expect(model.requests.allSatisfy { $0.runtimeName != nil || $0.runtime < RuntimeLanes.maxWhole })
        #expect(model.tasks.contains { $0.runtimeName != nil })
        // Held (standard input) and streamed (the file) make the same page.
        let page = directory.file("stdin.html")
        let binary = try #require(builtProduct("trace-view"))
        let (status, output) = try await run("/bin/sh", ["-c", "'\(binary)' report --output '\(page)' - < '\(path)'"])
        #expect(status == 0, "\(output)")
        var held = try ReportPage.model(in: String(contentsOfFile: page, encoding: .utf8))
        held.summary.source = model.summary.source
        #expect(held == model)
        guard ReportTests.hasBrowser else { return }
        // The page says the trace's count of runtimes, and a row of the others names its own.
        let seen = try await browserCheck(
            directory.file("report.html"),
            eval: """
                JSON.stringify([document.getElementById('facts').textContent,
                  [...document.querySelectorAll('td')].some(td => td.textContent === \(String(reflecting: others[0].runtimeName!)))])
                """)
        let text = try #require(seen.value as? String)
        #expect(text.contains("\(Self.processes) runtimes") && text.hasSuffix("true]"), "\(text)")
    }
}
