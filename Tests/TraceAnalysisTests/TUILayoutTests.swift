import Foundation
import Testing
import Transduce
import TransduceTestSupport

@testable import TransduceTrace
@testable import trace_view

/// A feature that warns: `hold` keeps the gate 15 ms in an async action (a long hold), `hang`
/// starts a task that never ends (never settled).
nonisolated enum Warned: Transducer {
    struct State: Sendable {}
    enum Event: Sendable { case hold, held, hang }
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .hold:
            return .action(nonsendingOperation: { _ in
                try await Task.sleep(for: .milliseconds(15))
                return .held
            })
        case .held: return .none
        case .hang: return .task(id: "hang") { _, _ in try await Task.sleep(for: .seconds(3_600)) }
        }
    }
}

/// The terminal UI's panes as pure values: columns that share out a wide screen and give way on a
/// narrow one, cut with `…`; sorting by any column, either way, back to the data's order.
@Suite struct TUILayoutTests {
    /// The demo trace's panes at `width` (the data is made anew: it is not `Sendable`).
    static func screen(width: Int, height: Int = 40, ascii: Bool = false) -> BrowserScreen {
        let trace = try! JSONLinesReader(path: fixtures + "/demo.jsonl").readAll()
        return BrowserScreen(data: TraceOverview(trace: trace), title: "demo", width: width, height: height, ascii: ascii)
    }

    /// The start of each column head in the line, by title.
    static func starts(_ head: String, _ titles: [String]) -> [Int] {
        titles.compactMap { title in head.range(of: title).map { head.distance(from: head.startIndex, to: $0.lowerBound) } }
    }

    @Test func columnsShareOutRoomAndGiveWayInTurn() {
        let columns: [BrowserColumn<Int>] = [
            .init(title: "a", minimum: 4, preferred: 8, value: { "\($0)" }),
            .init(title: "b", minimum: 6, preferred: 20, grows: true, value: { "\($0)" }),
            .init(title: "c", minimum: 5, preferred: 10, value: { "\($0)" }),
            .init(title: "d", minimum: 6, preferred: 12, grows: true, value: { "\($0)" }),
        ]
        #expect(BrowserColumn.widths(of: columns, fitting: 50) == [8, 20, 10, 12])
        // Wider: the growing columns share the room, one apart at most, up to three times their width.
        #expect(BrowserColumn.widths(of: columns, fitting: 61) == [8, 26, 10, 17])
        #expect(BrowserColumn.widths(of: columns, fitting: 500) == [8, 60, 10, 36])
        // Narrower: the growing ones give way first (the last first), then the others.
        #expect(BrowserColumn.widths(of: columns, fitting: 44) == [8, 20, 10, 6])
        #expect(BrowserColumn.widths(of: columns, fitting: 30) == [8, 6, 10, 6])
        // Too narrow for every minimum: the last columns are left out, whole.
        let tiny = BrowserColumn.widths(of: columns, fitting: 12)
        #expect(tiny.reduce(0, +) <= 12 && tiny.first == 4 && tiny.last == 0)
    }

    /// Every line is exactly the screen's width; at 200 columns the label and the largest part
    /// get the room, at 80 a cut text ends with `…` (`~` in ASCII).
    @Test(arguments: [80, 120, 200])
    func panesFitTheWidth(width: Int) {
        for pane in BrowserState.Pane.allCases {
            var state = BrowserState()
            state.pane = pane
            for ascii in [false, true] {
                let lines = Self.screen(width: width, ascii: ascii).lines(state)
                #expect(lines.allSatisfy { $0.displayColumns == width }, "\(pane) at \(width)")
            }
        }
        let head = Self.screen(width: width).lines(BrowserState())[2]
        let at = Self.starts(head, ["label", "style", "latency", "largest part"])
        #expect(at.count == 4)
        let labelWidth = at[1] - at[0]
        // 80: as preferred (the largest part gave way); 120: a share of the room; 200: the list
        // keeps 110 columns beside the detail.
        #expect(labelWidth == [80: 22, 120: 37, 200: 32][width], "\(head)")
    }

    @Test func aCutTextEndsWithAnEllipsis() {
        var state = BrowserState()
        state.pane = .tasks
        let lines = Self.screen(width: 80).lines(state)
        #expect(lines.contains { $0.contains("…") }, "\(lines.joined(separator: "\n"))")
        let ascii = Self.screen(width: 80, ascii: true).lines(state)
        #expect(!ascii.contains { $0.contains("…") } && ascii.contains { $0.contains("~") })
    }

    /// The selected row's detail stands beside the list on a wide screen, below it on a tall
    /// one, nowhere on a small one; it follows the selection and the pane.
    @Test func theDetailUsesTheRoomThereIs() {
        var state = BrowserState()
        let screen = Self.screen(width: 200, height: 50)
        let wide = screen.lines(state)
        #expect(wide.count == 50 && wide.allSatisfy { $0.displayColumns == 200 })
        // The list keeps 55 % (110 columns); the bar, then the detail (the text after the bar:
        // the list has no bar of its own).
        #expect(wide[2...].dropLast().allSatisfy { $0.prefix(columns: 110).displayColumns == 110 })
        #expect(wide[2...].dropLast().allSatisfy { String($0.dropFirst($0.prefix(columns: 110).count)).hasPrefix("│") })
        let right = wide.map { line in line.firstIndex(of: "│").map { String(line[line.index(after: $0)...]) } ?? "" }
        #expect(right[2].hasPrefix("request #17 ping (send, 2.14ms, response)"), "\(right[2])")
        #expect(right.contains { $0.hasPrefix("Latency of send(ping) dispatch #17") })
        let load = screen.requests(state).firstIndex { $0.dispatch == 1 }
        #expect(load != nil)
        state.selected[.requests] = load
        #expect(screen.lines(state).contains { $0.contains("│request #1 load (request") })

        state.pane = .tasks
        let refresh = screen.tasks(state).firstIndex { $0.task == 3 }
        #expect(refresh != nil)
        state.selected[.tasks] = refresh
        let task = screen.lines(state).map { $0.split(separator: "│").last ?? "" }
        #expect(task.contains { $0.hasPrefix("task #3 refresh") }, "\(task.joined(separator: "\n"))")
        #expect(task.contains { $0.hasPrefix("  outcome      response(loaded)") })
        #expect(task.contains { $0.hasPrefix("  4 instances of refresh, longest 243µs") })

        state.pane = .gate
        state.selected[.gate] = 0
        let below = Self.screen(width: 120, height: 40).lines(state)
        let rule = try! #require(below.dropFirst(2).firstIndex { $0.hasPrefix("────") })
        #expect(below[rule + 1].hasPrefix("gate of runtime 1"))
        #expect(below.contains { $0.hasPrefix("  queue depth over the trace (deepest ") })

        // The gate's histograms count every cycle once (its wait and its hold), row by row; the
        // top holders' cycles add up to the cycles of the events they name.
        let trace = try! JSONLinesReader(path: fixtures + "/demo.jsonl").readAll()
        let cycles = trace.events.filter { $0.kind == .cycleEnter }.count
        let gateDetail = Self.screen(width: 200, height: 60).lines(state).map {
            $0.split(separator: "│").last.map(String.init) ?? ""
        }
        #expect(gateDetail.contains { $0.hasPrefix("  waits for the gate (\(cycles))") }, "\(gateDetail.joined(separator: "\n"))")
        #expect(gateDetail.contains { $0.hasPrefix("  holds of the gate (\(cycles))") })
        let histogramRows = gateDetail.filter { $0.hasPrefix("    ") && $0.contains("µs–") || $0.contains("ms–") }
        let counted = histogramRows.compactMap { row in row.split(separator: " ").dropFirst().first.flatMap { Int($0) } }
        #expect(counted.reduce(0, +) == 2 * cycles, "\(histogramRows)")
        let syncPrices = trace.events.filter { $0.kind == .transduce && $0.step == 0 && $0.label == "syncPrices" }.count
        #expect(gateDetail.contains { $0.hasPrefix("    syncPrices") && $0.contains("  \(syncPrices)  ") })

        let small = Self.screen(width: 120, height: 24).lines(BrowserState())
        #expect(!small.contains { $0.contains("│") || $0.hasPrefix("request #17") })
    }

    /// A run that held its gate 15 ms and left a task running: the warnings pane lists both,
    /// counted in the header; Enter on each opens the gate or the task it names, clearing the
    /// filter so that the row is there.
    @Test func warningsListWhatTheReportsFoundAndOpenIt() async throws {
        let recorder = TraceRecorder(capacity: 1 << 12, lttng: false)
        let runtime = BaseRuntime(of: Warned.self, instrument: recorder)
        try await runtime.input.send(.hang)
        try await runtime.input.request(.hold)
        let data = TraceOverview(trace: recorder.snapshot())
        runtime.cancel()
        let screen = BrowserScreen(data: data, title: "warned", width: 200, height: 30, ascii: false)
        var state = BrowserState()
        state.pane = .warnings
        state.filter = "never"
        state.counts = screen.counts(state)
        #expect(screen.lines(state)[0].contains("[Warnings (2)]"))
        #expect(Set(data.warnings.map(\.warning.check)) == [.longHold, .neverSettled])
        // Filtered to the task's warning; its detail says what it is and where Enter goes.
        state.jumps = screen.jumps(state)
        #expect(state.counts[.warnings] == 1 && state.jumps.count == 1)
        #expect(screen.lines(state).contains { $0.contains("│neverSettled: a task instance never settled") })
        _ = state.handle(.enter, rows: 10)
        #expect(state.pane == .tasks && state.filter.isEmpty)
        #expect(screen.tasks(state)[state.selected[.tasks]!].name == "hang")
        // The long hold opens its runtime's gate.
        state.pane = .warnings
        state.counts = screen.counts(state)
        state.jumps = screen.jumps(state)
        let hold = try #require(screen.warnings(state).firstIndex { $0.warning.check == .longHold })
        state.selected[.warnings] = hold
        _ = state.handle(.enter, rows: 10)
        #expect(state.pane == .gate)
        #expect(screen.gates(state)[state.selected[.gate]!].runtime.runtime == runtime.runtimeID.rawValue)
    }

    /// A task's life in its detail is its own events (spawn, joins, re-entries, cancel or
    /// settle, as ``TraceIndex/taskLifecycle(runtime:task:)`` finds them in the whole trace),
    /// the same whether the trace is held or streamed and read back; a re-entry's wait is its
    /// cycle's enter − its dispatch.
    @Test func aTasksLifeIsItsEventsHeldOrStreamed() throws {
        let trace = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll()
        let whole = TraceIndex(trace.events)
        let held = TraceOverview(trace: trace)
        let streamed = try TraceOverview(reading: { body in trace.events.forEach(body) }, hosts: { [:] })
        #expect(held.tasks.count == 6 && streamed.tasks.count == held.tasks.count)
        var waits = 0
        for (row, streamedRow) in zip(held.tasks, streamed.tasks) {
            let life = try #require(held.life(of: row))
            let events = whole.taskLifecycle(runtime: row.runtime, task: row.task).map { whole.events[$0] }
            #expect(life.map(\.time) == events.map(\.time))
            #expect(streamed.life(of: streamedRow) == life)
            for (moment, e) in zip(life, events) where e.kind == .dispatch {
                let cycle = try #require(whole.dispatches[TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)]?.cycles.first)
                let enter = whole.events[whole.cycles[TraceIndex.Key(runtime: e.runtimeKey, id: cycle)]!.enter]
                #expect(moment.waited == enter.time - e.time)
                waits += 1
            }
        }
        #expect(waits >= 3)
    }

    /// On a screen with no room for a detail beside or below the list, Enter on a gate opens its
    /// detail on the whole screen; it scrolls (never past its end) and Esc goes back to the list.
    @Test func aSmallScreenOpensTheDetailOnEnter() {
        let screen = Self.screen(width: 80, height: 12)
        var state = BrowserState()
        state.pane = .gate
        state.counts = screen.counts(state)
        #expect(!screen.lines(state).contains { $0.hasPrefix("gate of runtime 1") })
        _ = state.handle(.enter, rows: 9)
        #expect(state.mode == .detail(scroll: 0))
        let top = screen.lines(state)
        #expect(top[2].hasPrefix("gate of runtime 1") && top[11].hasPrefix("up/down scroll, Esc back"))
        for _ in 0..<500 { _ = state.handle(.down, rows: 9) }
        let bottom = screen.lines(state)
        #expect(bottom != top && bottom[10].trimmingCharacters(in: .whitespaces).isEmpty == false, "\(bottom)")
        _ = state.handle(.home, rows: 9)
        #expect(screen.lines(state) == top)
        _ = state.handle(.escape, rows: 9)
        #expect(state.mode == .browse && state.pane == .gate)
    }

    /// `s` sorts by the next column, ascending; `S` reverses it; past the last column the data's
    /// own order comes back. The rows are in the column's order (checked on the values), the
    /// head marks the sorted column, and the selection goes back to the first row.
    @Test func sortingCyclesThroughEveryColumnAndBack() {
        let screen = Self.screen(width: 120)
        var state = BrowserState()
        state.counts = screen.counts(state)
        state.sortable = screen.sortableColumns
        state.selected[.requests] = 3
        let original = screen.requests(state).map(\.dispatch)
        #expect(state.sortable[.requests] == 5)
        _ = state.handle(.character("s"), rows: 10)
        #expect(state.sort[.requests] == BrowserSort(column: 0, descending: false))
        #expect(state.selected[.requests] == 0)
        #expect(screen.requests(state).map(\.dispatch) == original.sorted())
        #expect(screen.lines(state)[2].contains("# ▲"))
        _ = state.handle(.character("S"), rows: 10)
        #expect(screen.requests(state).map(\.dispatch) == original.sorted(by: >))
        #expect(screen.lines(state)[2].contains("# ▼"))
        // Latency, the fourth sortable column: non-decreasing, then non-increasing.
        for _ in 0..<3 { _ = state.handle(.character("s"), rows: 10) }
        let latencies = screen.requests(state).map(\.total)
        #expect(latencies == latencies.sorted())
        _ = state.handle(.character("S"), rows: 10)
        #expect(screen.requests(state).map(\.total) == latencies.sorted(by: >))
        // Outcome, then past the last: the data's order again.
        _ = state.handle(.character("s"), rows: 10)
        _ = state.handle(.character("s"), rows: 10)
        #expect(state.sort[.requests] == nil)
        #expect(screen.requests(state).map(\.dispatch) == original)
        // Each pane has its own sort.
        state.pane = .tasks
        _ = state.handle(.character("s"), rows: 10)
        #expect(screen.tasks(state).map(\.task) == screen.tasks(BrowserState()).map(\.task).sorted())
        #expect(state.sort[.requests] == nil)
    }
}
