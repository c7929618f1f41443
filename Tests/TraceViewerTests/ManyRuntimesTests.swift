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

    /// The timeline exports draw the first runtimes whole and count the others together, in a
    /// process of their own, as Perfetto's own definitions and trace processor read them: every
    /// request of a whole runtime one slice and one flow, the others' cycles, requests and tasks
    /// in counters that go up and down once for each; `--all-runtimes` draws every one.
    @Test(.enabled(if: PerfettoProtoReader.readersAvailable), .timeLimit(.minutes(Patience.minutes(5))))
    func theTimelineExportsCountTheOtherRuntimesTogether() async throws {
        let directory = TemporaryDirectory()
        let (path, trace) = try Self.trace(in: directory)
        var named: [RuntimeKey] = []
        for e in trace.events where !named.contains(e.runtimeKey) { named.append(e.runtimeKey) }
        let whole = Set(named.prefix(RuntimeLanes.maxWhole))
        let others = trace.events.filter { !whole.contains($0.runtimeKey) }
        var tracks: [Bool: Int] = [:]
        for all in [false, true] {
            let native = directory.file("many-\(all).pftrace")
            let run = try await traceView(
                ["export", "--format", "perfetto", "--output", native] + (all ? ["--all-runtimes"] : []) + [path])
            #expect(run.status == 0, "\(run.err)")
            let read = try await PerfettoProtoReader.read(native)
            #expect(read["problem_count"] as? Int == 0, "\(read["problems"] ?? "")")
            // Every request drawn is one slice from its dispatch to its resume, and one flow.
            let drawn = all ? trace.events : trace.events.filter { whole.contains($0.runtimeKey) }
            let expected = PerfettoProtoReader.Expected(drawn)
            let requests = try #require(read["requests"] as? [[Any]])
            let resumed = requests.map { Array($0.prefix(3)).map { $0 as? Int ?? -1 } }.sorted {
                $0.lexicographicallyPrecedes($1)
            }
            #expect(resumed == expected.resumed && expected.notResumed == 0, "\(resumed.count) of \(expected.resumed.count)")
            #expect(read["flows"] as? Int == expected.resumed.count)
            // The processes: each drawn runtime's, and the others' together.
            let processes = try #require(read["processes"] as? [[Any]]).map { $0[1] as? String ?? "" }
            let pids = Set(drawn.map(\.process))
            let wanted = Set(pids.map { "pid \($0) on generated" }).union(all ? [] : ["other runtimes (6)"])
            #expect(Set(processes) == wanted, "\(processes.sorted().prefix(3)) … \(processes.count)")
            // A queue-depth counter for each drawn runtime, a value at each dispatch and enter;
            // the others' one, and their tallies: up and down once for each cycle, awaited
            // request and task.
            let counters = try #require(read["counter_tracks"] as? [[Any]]).map { ($0[0] as? String ?? "", $0[1] as? Int ?? 0) }
            let depths = counters.filter { $0.0.hasPrefix("runtime ") }
            #expect(depths.map(\.1).sorted() == expected.depthValues.values.sorted())
            let tallied = Dictionary(counters.filter { $0.0.hasPrefix("other runtimes · ") }.map { ($0.0, $0.1) }) { $0 + $1 }
            let count = { (kind: TraceEvent.Kind) in others.filter { $0.kind == kind }.count }
            let awaited = others.filter { $0.kind == .dispatch && $0.isAwaitedDispatch }.count
            #expect(
                all
                    ? tallied.isEmpty
                    : tallied == [
                        "other runtimes · queue depth": count(.dispatch) + count(.cycleEnter),
                        "other runtimes · cycles in progress": 2 * count(.cycleEnter),
                        "other runtimes · requests in flight": 2 * awaited,
                        "other runtimes · tasks running": 2 * count(.taskSpawn),
                    ], "\(tallied)")
            tracks[all] = read["tracks"] as? Int
            guard !all, PerfettoUI.available else { continue }
            // Perfetto's trace processor: nothing refused, every slice ended.
            let seen = try await PerfettoUI.perfettoObject(native, seconds: 300)
            #expect((seen["errors"] as? [String: Int] ?? ["no answer": 1]).isEmpty, "\(seen["errors"] ?? "")")
            #expect(seen["unfinished"] as? Int == 0)
            #expect(seen["slices"] as? Int == read["slices"] as? Int)
            #expect(seen["requests"] as? Int == requests.count)
        }
        let grouped = try #require(tracks[false]), each = try #require(tracks[true])
        #expect(grouped < each, "\(grouped) tracks grouped, \(each) each")
        // Chrome's JSON: the same processes, the others' counters.
        let json = directory.file("many.json")
        let chrome = try await traceView(["export", "--format", "chrome", "--output", json, path])
        #expect(chrome.status == 0, "\(chrome.err)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        let names = events.filter { $0["name"] as? String == "process_name" }.compactMap {
            ($0["args"] as? [String: Any])?["name"] as? String
        }
        #expect(names.count == RuntimeLanes.maxWhole + 1 && names.contains("other runtimes (6)"), "\(names.suffix(2))")
        let requests = events.filter {
            $0["ph"] as? String == "C" && $0["name"] as? String == "other runtimes · requests in flight"
        }
        #expect(requests.count == 2 * others.filter { $0.kind == .dispatch && $0.isAwaitedDispatch }.count)
        #expect((requests.last?["args"] as? [String: Any])?["count"] as? Int == 0)
    }
}

extension ManyRuntimesTests {
    /// The others' gate row names the label of the longest hold; of labels whose longest holds
    /// are equal (the pooled runtimes' cycles often are), the first by name, every run (a table
    /// kept by label is iterated in an order that changes from run to run).
    @Test func aGateRowsHolderIsTheSameEveryRun() {
        var gate = GateBuilder()
        let labels = (0..<26).map { String(UnicodeScalar(UInt8(ascii: "z") - UInt8($0))) }
        for (i, label) in labels.enumerated() {
            let id = UInt64(i + 1)
            let at = UInt64(i) * 10_000_000
            var dispatch = TraceEvent(kind: .dispatch, time: at, runtime: 1)
            dispatch.dispatch = id
            dispatch.label = label
            var enter = TraceEvent(kind: .cycleEnter, time: at, runtime: 1)
            enter.dispatch = id
            enter.cycle = id
            var leave = TraceEvent(kind: .cycleLeave, time: at + 5_000_000, runtime: 1)
            leave.cycle = id
            for e in [dispatch, enter, leave] { gate.consume(e) }
        }
        let row = gate.gate(runtime: 1, host: "")
        #expect(row.longestHold == 5_000_000)
        #expect(row.holder == "a", "\(row.holder)")
    }
}
