import TransduceTrace

/// Draws the terminal UI: one screen of exactly `height` lines of exactly `width` columns, from
/// the state and the data. Pure, so a screen can be checked without a terminal.
struct BrowserScreen {
    let data: TraceOverview
    let title: String
    var width: Int
    var height: Int
    let ascii: Bool
    /// A live view's state for the header ("live", "paused", "ended"), "" for a recorded trace.
    var status = ""
    /// A live view's aggregates over the whole stream, shown in the rule under the header.
    var totals = ""
    /// Whether the selected row's detail is shown where there is room (not in the panes printed
    /// to a pipe, which have no selection).
    var showsDetail = true
    /// The terminal's colours (``painted(_:)``); `nil` for none (`NO_COLOR`, `--no-color`).
    var palette: RenderOptions?

    /// How a line of the screen is drawn in colour: a tint over its first `columns` (all of it
    /// when `nil`: beside a detail, only the list's part), and a text in it shown in reverse
    /// video (the focused pane's name in the header).
    struct Ink: Equatable {
        var tint: RenderOptions.Tint?
        var columns: Int?
        var highlight: String?

        static let plain = Ink()
    }

    /// A line of the screen, exactly `width` columns, and its ink.
    typealias Line = (text: String, ink: Ink)

    /// Rows the list (or the diagram) has: all but the header, the column heads and the footer.
    var bodyRows: Int { max(1, height - 4) }

    /// The requests the filter lets through, in the pane's sort (by default the data's order:
    /// waiting, then slowest first).
    func requests(_ state: BrowserState) -> [TraceOverview.Request] {
        sorted(data.requests.filter { state.passes($0.label) }, by: requestColumns, state.sort[.requests])
    }

    func tasks(_ state: BrowserState) -> [TaskReport.Row] {
        sorted(data.tasks.filter { state.passes($0.name) }, by: taskColumns, state.sort[.tasks])
    }

    func gates(_ state: BrowserState) -> [TraceOverview.Gate] { sorted(data.gates, by: gateColumns, state.sort[.gate]) }

    /// The warnings the filter lets through (by their message), in the pane's sort.
    func warnings(_ state: BrowserState) -> [TraceOverview.Warning] {
        sorted(data.warnings.filter { state.passes($0.warning.message) }, by: warningColumns, state.sort[.warnings])
    }

    /// Where each warning of the pane jumps: the task it names (or the first instance of a
    /// churning name) in the tasks pane, the gate of its runtime in the gate pane; rows counted
    /// without a filter, as the jump clears it.
    func jumps(_ state: BrowserState) -> [BrowserState.Jump?] {
        var unfiltered = state
        unfiltered.filter = ""
        let tasks = self.tasks(unfiltered)
        let gates = self.gates(unfiltered)
        return warnings(state).map { w in
            switch w.warning.finding {
            case .neverSettled(let t), .noEndRecorded(let t, _):
                tasks.firstIndex { $0.runtime == t.runtime && $0.task == t.task }.map { .init(pane: .tasks, row: $0) }
            case .switchToLatestChurn(let runtime, let name, _, _):
                tasks.firstIndex { $0.runtime == runtime && $0.name == name }.map { .init(pane: .tasks, row: $0) }
            case .longHold, .runawayQueue, .growingQueue:
                // A runtime with no row of its own is in the row of the others.
                (gates.firstIndex { $0.runtime == w.runtime } ?? gates.firstIndex { $0.together > 0 })
                    .map { .init(pane: .gate, row: $0) }
            }
        }
    }

    /// What each row of `pane` is (runtime and dispatch, task or nothing), in the pane's order:
    /// a live view keeps the selection on the same request, task or gate when the rows move.
    func rowKeys(_ pane: BrowserState.Pane, _ state: BrowserState) -> [TraceIndex.Key] {
        switch pane {
        case .requests: requests(state).map { TraceIndex.Key(runtime: $0.runtime, id: $0.dispatch) }
        case .tasks: tasks(state).map { TraceIndex.Key(runtime: $0.runtime, id: $0.task) }
        case .gate: gates(state).map { TraceIndex.Key(runtime: $0.runtime, id: 0) }
        case .warnings: warnings(state).indices.map { TraceIndex.Key(runtime: RuntimeKey(rawValue: 0), id: UInt64($0)) }
        }
    }

    /// Each pane's row count, for the state's moves.
    func counts(_ state: BrowserState) -> [BrowserState.Pane: Int] {
        [
            .requests: requests(state).count, .tasks: tasks(state).count, .gate: gates(state).count,
            .warnings: warnings(state).count,
        ]
    }

    /// The screen as plain text: what a test or a pipe sees.
    func lines(_ state: BrowserState) -> [String] { composed(state).map(\.text) }

    /// The screen in the ``palette``'s colours: the header bold with the focused pane in reverse
    /// video, rules and the footer faint, column heads bold, the selection in reverse video,
    /// failed, cancelled and warning rows red and work in progress yellow (the tints of the text
    /// views), a diagram in the colours `sequence` draws it in. Plain without a palette.
    func painted(_ state: BrowserState) -> [String] {
        guard let palette else { return lines(state) }
        let paint = { (text: Substring, tint: RenderOptions.Tint?) in
            tint.map { text.isEmpty ? "" : palette.paint(String(text), $0) } ?? String(text)
        }
        return composed(state).map { line in
            let text = line.text
            if let highlight = line.ink.highlight, let range = text.range(of: highlight, options: .backwards) {
                return paint(text[..<range.lowerBound], line.ink.tint) + paint(text[range], .selected)
                    + paint(text[range.upperBound...], line.ink.tint)
            }
            let split = line.ink.columns.map { Self.index(in: text, atColumn: $0) } ?? text.endIndex
            return paint(text[..<split], line.ink.tint) + text[split...]
        }
    }

    /// Where `text` reaches `column` display columns.
    private static func index(in text: String, atColumn column: Int) -> String.Index {
        var seen = 0
        var i = text.startIndex
        while i < text.endIndex, seen + text[i].displayColumns <= column {
            seen += text[i].displayColumns
            i = text.index(after: i)
        }
        return i
    }

    private func composed(_ state: BrowserState) -> [Line] {
        var out: [Line] = []
        let panes = BrowserState.Pane.allCases.map { pane -> String in
            let name = ["Requests", "Tasks", "Gate", "Warnings (\(data.warnings.count))"][pane.rawValue]
            return pane == state.pane ? "[\(name)]" : " \(name) "
        }
        let status = status.isEmpty ? "" : "\(status) | "
        // The panes stay whole on a narrow screen (they say where the keys act); the title and
        // counts give way first.
        let tail = " | \(status)\(panes.joined()) | ? keys"
        let room = width - shown(tail).displayColumns
        // Shorter forms before any cut: the trace's name without the command, then no runtime
        // count, then no loss count.
        let counts = "\(counted(data.events, "event")), \(counted(data.runtimes, "runtime")), \(data.lost) lost"
        let name =
            ["trace-view tui ", "trace-view live "].first(where: title.hasPrefix).map { String(title.dropFirst($0.count)) }
            ?? title
        let head =
            [
                "\(title) | \(counts)", "\(name) | \(counts)", "\(name) | \(counted(data.events, "event")), \(data.lost) lost",
                "\(name) | \(counted(data.events, "event"))",
            ].first { shown($0).displayColumns <= room } ?? "\(name) | \(counted(data.events, "event"))"
        let focused = panes[state.pane.rawValue]
        out.append(
            (
                room >= 16 && shown(head).displayColumns > room ? fit(head, to: room) + tail : head + tail,
                Ink(tint: .bold, highlight: focused)
            ))
        let rule = ascii ? "-" : "─"
        out.append(
            (
                totals.isEmpty
                    ? String(repeating: rule, count: width)
                    : String(repeating: rule, count: 2) + " \(totals) " + String(repeating: rule, count: width),
                Ink(tint: .dim)
            ))
        switch state.mode {
        case .diagram(let index, let scroll):
            let all = requests(state)
            guard index < all.count else { break }
            let request = all[index]
            // In colour, as `sequence` draws it (its lines hold their own colour).
            var options = palette ?? RenderOptions()
            options.width = width
            options.ascii = ascii
            let diagram = data.diagram(of: request, options: options)
            let top = min(scroll, max(0, diagram.count - bodyRows))
            out.append(
                ("request #\(request.dispatch) \(request.label) (\(request.style), \(duration(request.total)))", Ink(tint: .bold))
            )
            out += diagram.dropFirst(top).prefix(bodyRows).map { ($0, .plain) }
        case .detail(let scroll):
            let lines = detail(state, width: width)
            out += lines.dropFirst(min(scroll, max(0, lines.count - bodyRows - 1))).prefix(bodyRows + 1).map { ($0, .plain) }
        case .help:
            out.append(("Keys", Ink(tint: .bold)))
            out += [
                // (Each line fits 80 columns.)
                "  up/down, j/k     move the selection (in a diagram: scroll)",
                "  PgUp/PgDn, Home/End  move by a screen, to the first or last",
                "  Tab              next pane: requests, tasks, gate, warnings",
                "  Enter            open the selected request's sequence diagram, the task's or",
                "                   the gate's detail, or the row a warning names",
                "                   (Enter, Esc or q closes a diagram or detail)",
                "  s / S            sort by the pane's next column (then back) / reverse it",
                "  /                filter requests and tasks by label (Enter applies)",
                "  p                pause or resume a live view (reading goes on)",
                "  ?                this help (any key closes it)",
                "  q, Ctrl-C        quit",
            ].map { ($0, .plain) }
        default:
            out += browse(state)
        }
        while out.count < height - 1 { out.append(("", .plain)) }
        out = Array(out.prefix(height - 1))
        out.append((footer(state), Ink(tint: .dim)))
        return out.map { (fit($0.text), $0.ink) }
    }

    /// The width from which the selected row's detail stands beside the list.
    static let detailBesideFrom = 160
    /// The height from which, on a narrower screen, the detail stands below the list.
    static let detailBelowFrom = 36

    /// The focused pane's list and, where the screen has room, the selected row's detail: beside
    /// it from ``detailBesideFrom`` columns (the list keeps 55 %, at least 90), below it from
    /// ``detailBelowFrom`` rows (half the rows each), nowhere on a smaller screen.
    private func browse(_ state: BrowserState) -> [Line] {
        let rows = bodyRows + 1
        guard showsDetail else { return body(state) }
        if width >= Self.detailBesideFrom {
            var list = self
            list.width = max(90, width * 11 / 20)
            let detailWidth = width - list.width - 1
            let left = list.body(state)
            let right = detail(state, width: detailWidth)
            let bar = ascii ? "|" : "│"
            return (0..<rows).map { i in
                var ink = i < left.count ? left[i].ink : .plain
                ink.columns = list.width
                return (
                    fit(i < left.count ? left[i].text : "", to: list.width) + bar
                        + fit(i < right.count ? right[i] : "", to: detailWidth), ink
                )
            }
        }
        if height >= Self.detailBelowFrom {
            var list = self
            let listRows = rows / 2
            list.height = listRows + 3
            let below = detail(state, width: width)
            return list.body(state) + [(String(repeating: ascii ? "-" : "─", count: width), Ink(tint: .dim))]
                + below.prefix(rows - listRows - 1).map { ($0, .plain) }
        }
        return body(state)
    }

    /// The most events of a streamed trace whose requests' diagrams the detail reads back on
    /// every move (a larger one's wait for Enter).
    static let rereadDetailUpTo: UInt64 = 200_000

    /// What the selected row is, in lines for a pane `width` columns wide: a request's breakdown
    /// and diagram (where the trace is held, indexed, or small), a task's life, a gate's figures
    /// and their course over the trace.
    private func detail(_ state: BrowserState, width: Int) -> [String] {
        let selected = state.selected[state.pane] ?? 0
        switch state.pane {
        case .requests:
            let all = requests(state)
            guard all.indices.contains(selected) else { return [] }
            let r = all[selected]
            var lines = ["request #\(r.dispatch) \(r.label) (\(r.style), \(duration(r.total)), \(r.outcome))"]
            // Read back from a stream, a diagram costs a pass over the file: only for small ones.
            if data.index != nil || data.lifecycle != nil || data.events <= Self.rereadDetailUpTo {
                lines += data.diagram(of: r, options: RenderOptions(width: width, ascii: ascii))
            } else {
                lines.append("(Enter reads its sequence diagram from the trace)")
            }
            return lines
        case .tasks:
            let all = tasks(state)
            guard all.indices.contains(selected) else { return [] }
            let t = all[selected]
            var lines = [
                "task #\(t.task) \(t.name)" + (data.gates.count > 1 ? " (runtime \(t.runtime.name))" : ""),
                "  policy       \(t.policy)",
                "  started      \(duration(t.start &- data.start)) into the trace",
                "  ran          " + (t.ran.map(duration) ?? "still running"),
                "  outcome      \(t.outcome)",
                "  spawned by   \(t.spawnedBy)",
            ]
            if t.replacedBy != 0 { lines.append("  replaced by  task #\(t.replacedBy)") }
            if !t.joinedBy.isEmpty {
                lines.append("  joined by    " + t.joinedBy.map { "#\($0)" }.joined(separator: ", "))
            }
            // Its life, read back like a request's diagram (only where that is cheap).
            if data.index != nil || data.lifecycle != nil || data.events <= Self.rereadDetailUpTo,
                let life = data.life(of: t)
            {
                let reentries = life.compactMap(\.waited)
                lines.append("")
                lines.append(
                    "  life (from the trace's first event)"
                        + (reentries.isEmpty
                            ? ""
                            : "; its \(reentries.count) re-entr\(reentries.count == 1 ? "y" : "ies") waited "
                                + "\(duration(reentries.reduce(0, +))) for the gate"))
                for m in life {
                    lines.append(
                        "  " + pad(duration(m.time &- data.start), 9, right: true) + "  " + m.what
                            + (m.waited.map { ", waited \(duration($0)) for the gate" } ?? ""))
                }
            }
            let siblings = data.tasks.filter { $0.runtime == t.runtime && $0.name == t.name }
            if siblings.count > 1 {
                let ran = siblings.compactMap(\.ran)
                lines.append("")
                lines.append(
                    "  \(siblings.count) instances of \(t.name)" + (ran.isEmpty ? "" : ", longest \(duration(ran.max()!))"))
                lines.append("  " + sparkline(siblings.map { $0.ran ?? 0 }))
            }
            return lines
        case .warnings:
            let all = warnings(state)
            guard all.indices.contains(selected) else { return [] }
            let w = all[selected].warning
            return [
                "\(w.check.rawValue): \(w.check.summary)", "", w.message, "",
                state.jumps.indices.contains(selected) && state.jumps[selected] != nil
                    ? "Enter opens the \(state.jumps[selected]!.pane == .tasks ? "task" : "gate") it names" : "",
            ]
        case .gate:
            let all = gates(state)
            guard all.indices.contains(selected) else { return [] }
            let g = all[selected]
            return [
                g.together > 0
                    ? "gates of \(g.together) runtimes together (past the first \(RuntimeLanes.maxWhole); "
                        + "--runtime shows one whole)"
                    : "gate of runtime \(g.runtime.name)" + (g.host.isEmpty ? "" : " on \(g.host)"),
                "  cycles         \(g.cycles)",
                "  deepest queue  \(g.maxDepth)",
                "  wait p99       \(duration(g.waitP99))",
                "  longest hold   \(duration(g.longestHold)) by \(g.holder)",
                "  holding now    \(g.holdingNow.isEmpty ? "-" : g.holdingNow)",
                "",
                "  queue depth over the trace (deepest \(g.depths.max() ?? 0))",
                "  " + sparkline(g.depths.map(UInt64.init)),
                "  wait p99 over the trace (highest \(duration(g.waitP99s.max() ?? 0)))",
                "  " + sparkline(g.waitP99s),
            ] + histogram("waits for the gate", g.waitRanges, width: width)
                + histogram("holds of the gate", g.holdRanges, width: width)
                + holders(g.topHolders)
        }
    }

    /// The top holders as a table: label, total held, cycles, longest hold.
    private func holders(_ top: [TraceOverview.Holder]) -> [String] {
        guard !top.isEmpty else { return [] }
        let rows =
            [["event", "held in all", "cycles", "longest"]]
            + top.map { [$0.label, duration($0.total), "\($0.cycles)", duration($0.longest)] }
        let widths = (0..<4).map { c in min(32, rows.map { $0[c].displayColumns }.max() ?? 0) + 2 }
        return ["", "  top holders of the gate"] + rows.map { "    " + cells($0, widths) }
    }

    /// A histogram drawn in the terminal: a row per power-of-two range (`1.02µs–2.05µs`) with a
    /// bar as long as its count is large, relative to the largest, and the count.
    private func histogram(_ title: String, _ ranges: [TraceOverview.Range], width: Int)
        -> [String]
    {
        guard !ranges.isEmpty else { return [] }
        let dash = ascii ? "-" : "–"
        let labels = ranges.map { "\(duration($0.lower))\(dash)\(duration($0.upper))" }
        let labelWidth = labels.map(\.displayColumns).max() ?? 0
        let counts = ranges.map { String($0.count) }
        let countWidth = counts.map(\.count).max() ?? 0
        let room = max(1, width - 4 - labelWidth - 1 - countWidth - 1)
        let top = max(1, ranges.map(\.count).max() ?? 1)
        let full = ascii ? "#" : "█"
        return ["", "  \(title) (\(ranges.reduce(0) { $0 + $1.count }))"]
            + zip(labels, zip(ranges, counts)).map { label, pair in
                let bar = String(repeating: full, count: max(pair.0.count > 0 ? 1 : 0, Int(pair.0.count * UInt64(room) / top)))
                return "    " + label + String(repeating: " ", count: labelWidth - label.displayColumns) + " "
                    + String(repeating: " ", count: countWidth - pair.1.count) + pair.1 + " " + bar
            }
    }

    private func body(_ state: BrowserState) -> [Line] {
        let selected = state.selected[state.pane] ?? 0
        // Only the rows in view are formatted: a trace's pane may hold a hundred thousand.
        let count: Int
        let row: (Int) -> String
        let head: String
        let tint: (Int) -> RenderOptions.Tint?
        // The selection marker and, with several runtimes, the runtime lead every row.
        let sort = state.sort[state.pane]
        switch state.pane {
        case .requests:
            let all = requests(state)
            (head, count, row) = list(requestColumns, all, sort, runtime: \.runtime)
            tint = { Self.tint(outcome: all[$0].outcome) }
        case .tasks:
            let all = tasks(state)
            (head, count, row) = list(taskColumns, all, sort, runtime: \.runtime)
            tint = { Self.tint(outcome: all[$0].outcome) }
        case .gate:
            let all = gates(state)
            (head, count, row) = list(gateColumns, all, sort, runtime: nil)
            tint = { all[$0].warnings.isEmpty ? nil : .error }
        case .warnings:
            (head, count, row) = list(warningColumns, warnings(state), sort, runtime: nil)
            tint = { _ in .error }
        }
        let heads = (head, Ink(tint: .bold))
        if count == 0 { return [heads, ("  (none" + (state.filter.isEmpty ? ")" : " match the filter)"), .plain)] }
        // Keep the selection in view.
        let top = max(0, min(selected - bodyRows / 2, count - bodyRows))
        return [heads]
            + (top..<min(count, top + bodyRows)).map { i in
                i == selected ? ("> " + row(i), Ink(tint: .selected)) : ("  " + row(i), Ink(tint: tint(i)))
            }
    }

    /// A request's or task's outcome in the text views' tints: failed, an error or cancelled in
    /// red (``RenderOptions/Tint/error``), still waiting or running in yellow.
    static func tint(outcome: String) -> RenderOptions.Tint? {
        if ["error", "failed", "cancel", "rejected", "dropped"].contains(where: outcome.hasPrefix) { return .error }
        if ["waiting", "running", "live"].contains(where: outcome.hasPrefix) { return .gate }
        return nil
    }

    /// A pane's column heads, row count and row maker: `columns` fitted to the width (after the
    /// selection marker and, for a pane whose rows have a `runtime` in a trace of several, the
    /// runtime's column).
    private func list<Row>(
        _ columns: [BrowserColumn<Row>], _ all: [Row], _ sort: BrowserSort?, runtime: ((Row) -> RuntimeKey)?
    ) -> (String, Int, (Int) -> String) {
        let leads = runtime != nil && data.gates.count > 1
        let widths = BrowserColumn.widths(of: columns, fitting: width - 2 - (leads ? data.runtimeWidth : 0))
        let head = "  " + (leads ? runtimeHead : "") + heads(columns, widths, sort)
        return (
            head, all.count,
            { i in (leads ? runtimeColumn(runtime!(all[i])) : "") + cells(columns.map { $0.value(all[i]) }, widths) }
        )
    }

    /// With several runtimes, ids repeat: the requests and tasks panes then lead with the runtime.
    /// The runtime is named with its process (`3 (pid 4242)`) where the trace has pids: runtime
    /// ids restart in every process.
    private var runtimeHead: String { data.gates.count > 1 ? cells(["runtime"], [data.runtimeWidth]) : "" }

    private func runtimeColumn(_ key: RuntimeKey) -> String {
        data.gates.count > 1 ? cells([key.name], [data.runtimeWidth]) : ""
    }

    private func footer(_ state: BrowserState) -> String {
        if case .filtering(let draft) = state.mode { return "filter: \(draft)_   (Enter applies, Esc cancels)" }
        switch state.mode {
        case .diagram, .detail: return "up/down scroll, Esc back, q back"
        default: break
        }
        let filter = state.filter.isEmpty ? "" : "filter \"\(state.filter)\" | "
        let enter = ["Enter diagram, ", "Enter detail, ", "Enter detail, ", "Enter opens, "][state.pane.rawValue]
        return filter + "up/down move, Tab pane, " + enter + "s sort, / filter, " + (state.live ? "p pause, " : "")
            + "? keys, q quit"
    }

    func duration(_ nanos: UInt64) -> String { formatDuration(nanos, ascii: ascii) }

    /// Each value as one of eight heights, relative to the largest.
    func sparkline(_ values: [UInt64]) -> String {
        let marks: [Character] = ascii ? [" ", ".", ":", "-", "=", "+", "*", "#"] : [" ", "▁", "▂", "▃", "▄", "▅", "▆", "█"]
        let top = max(1, values.max() ?? 1)
        return String(values.map { marks[Int((Double($0) / Double(top) * Double(marks.count - 1)).rounded())] })
    }

    /// `text` as the screen shows it: trace text escaped (``escapingControls(_:keepingColour:)``),
    /// pure ASCII with ``ascii``.
    func shown(_ text: String) -> String {
        ascii ? escapingNonASCII(text, keepingColour: false) : escapingControls(text, keepingColour: false)
    }

    /// `line`, cut or padded to exactly `width` display columns. A line cut ends with `…` (`~` in ASCII), so a reader sees that there is more.
    private func fit(_ line: String, to width: Int? = nil) -> String {
        let width = width ?? self.width
        if let palette, line.utf8.contains(0x1B) {
            // A line in colour (a diagram's): cut by its visible columns, colour kept.
            var options = palette
            options.width = width
            options.cuts = true
            let cut = options.fit(line)
            return cut + String(repeating: " ", count: max(0, width - cut.displayColumns))
        }
        let line = shown(line)
        let columns = line.displayColumns
        if columns <= width { return line + String(repeating: " ", count: width - columns) }
        let cut = line.truncated(toColumns: width, ellipsis: ascii ? "~" : "…")
        return cut + String(repeating: " ", count: width - cut.displayColumns)
    }
}
