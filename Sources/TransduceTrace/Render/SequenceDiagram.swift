/// Draws events as a sequence diagram in text: lifelines for callers, the compute gate,
/// `transduce()`, the task manager and task instances, with arrows for dispatch, gate wait,
/// enter/leave, effects, spawn/join/cancel/settle and resume, and times and durations in a margin.
///
/// Every line fits ``RenderOptions/width`` (one column per character): labels that do not fit
/// are cut with `…`, never spill into another lifeline's column. With ``RenderOptions/cuts`` off
/// a label that does not fit runs on past the width instead, right of its arrow. Task lanes follow the tasks of
/// the rows drawn: a task gets a free lane at its first row and gives it up after its last, and a
/// row announces each lane's new owner. A task that finds no free lane is drawn on `tasks`, its
/// name in the label.
///
/// Rows of several runtimes (ids repeat across runtimes and processes) share the lifelines and
/// say whose they are in a `runtime` column beside the time.
///
/// Times are milliseconds from ``origin`` (the first row's time unless given).
package struct SequenceDiagram: Sendable {
    /// The trace the rows come from.
    package let index: TraceIndex
    /// Width, character set and colour.
    package var options: RenderOptions
    /// Task lanes drawn next to `tasks` (more live tasks share the `tasks` lane).
    package var maxTaskLines: Int
    /// The time the time column counts from; `nil`: the first row's.
    package var origin: UInt64?

    /// A diagram of `index`'s events (rows are chosen by ``render(_:)``).
    package init(index: TraceIndex, options: RenderOptions = RenderOptions(), maxTaskLines: Int = 4, origin: UInt64? = nil) {
        self.index = index
        self.options = options
        self.maxTaskLines = maxTaskLines
        self.origin = origin
    }

    static let fixed: [Participant] = [.caller, .gate, .transduce, .tasks]
    static let timeWidth = 9

    /// The columns of one drawing at one width.
    struct Layout {
        var noteWidth: Int
        /// The runtime column's width (0: one runtime, no column).
        var runtimeWidth: Int
        var margin: Int
        var columnWidth: Int
        var lanes: Int
        var width: Int

        init(width: Int, taskLanes wanted: Int, runtimeWidth: Int = 0) {
            self.width = width
            // The note column shrinks first at narrow widths, then lanes narrow down to 6.
            // 12 holds every note the runtime writes (`after 581µs`, `held 2.14ms`).
            noteWidth = max(6, min(12, (width - Self.timeAndGap) / 4))
            // The runtime column takes what the fixed lanes leave (6 columns each), its names cut
            // to fit; narrower than 4 it is left out.
            let spare = width - Self.timeAndGap - noteWidth - 1 - 2 - SequenceDiagram.fixed.count * 6
            self.runtimeWidth = runtimeWidth > 0 && spare >= 4 ? min(runtimeWidth, spare) : 0
            margin = Self.timeAndGap + (self.runtimeWidth > 0 ? self.runtimeWidth + 2 : 0) + noteWidth + 1
            let room = width - margin
            let fitting = max(0, min(wanted, room / 11 - SequenceDiagram.fixed.count))
            lanes = SequenceDiagram.fixed.count + fitting
            columnWidth = max(1, room / lanes)
        }

        static let timeAndGap = SequenceDiagram.timeWidth + 2
        /// Where the note column starts.
        var noteStart: Int { Self.timeAndGap + (runtimeWidth > 0 ? runtimeWidth + 2 : 0) }

        func position(_ lane: Int) -> Int { margin + lane * columnWidth + columnWidth / 2 }
    }

    /// Renders the events at `indices` (positions in the index's events) in time order, ties in
    /// the order given (``TraceIndex/inTimeOrder(_:)``): the time column never runs backwards.
    package func render(_ indices: [Int]) -> [String] {
        var lines: [String] = []
        render(indices) { lines.append($0) }
        return lines
    }

    /// Renders the events at `indices`, handing each line to `emit` as soon as it is drawn.
    /// `progress` is called with the rows done so far, every 4,096 rows.
    package func render(_ indices: [Int], progress: (Int) -> Void = { _ in }, emit: (String) -> Void) {
        let indices = index.inTimeOrder(indices)
        guard let first = indices.first else { return emit("(no events)") }
        let origin = self.origin ?? index.events[first].time
        // Several runtimes: a column names each row's (as wide as the longest name, up to 24).
        var runtimes = Set<RuntimeKey>()
        for i in indices where runtimes.count < 2 { runtimes.insert(index.events[i].runtimeKey) }
        let runtimeWidth =
            runtimes.count > 1
            ? min(24, max(7, indices.lazy.map { self.index.events[$0].runtimeKey.name.count }.max() ?? 0)) : 0
        let layout = Layout(width: options.width, taskLanes: maxTaskLines, runtimeWidth: runtimeWidth)
        // The last row each task appears in, so its lane is freed right after it.
        var lastRow: [Participant: Int] = [:]
        for (row, i) in indices.enumerated() {
            guard let interaction = index.interaction(for: index.events[i], ascii: options.ascii) else { continue }
            for p in [interaction.from, interaction.to] { lastRow[p] = row }
        }
        var owners: [Participant?] = Self.fixed.map { $0 } + Array(repeating: nil, count: layout.lanes - Self.fixed.count)
        var lanes: [Participant: Int] = [:]
        for (lane, p) in Self.fixed.enumerated() { lanes[p] = lane }
        var announced = false
        for (row, i) in indices.enumerated() {
            if row % 4096 == 4095 { progress(row + 1) }
            guard var interaction = index.interaction(for: index.events[i], ascii: options.ascii) else { continue }
            // Lanes for tasks first seen in this row.
            var taken: [Int] = []
            for p in [interaction.from, interaction.to] where lanes[p] == nil {
                guard let free = owners.indices.first(where: { owners[$0] == nil }) else { continue }
                owners[free] = p
                lanes[p] = free
                taken.append(free)
            }
            if !announced {
                emit(header(layout, owners: owners))
                announced = true
            } else if !taken.isEmpty {
                emit(laneChange(layout, owners: owners, changed: taken))
            }
            interaction.label = printable(interaction.label)
            interaction.note = printable(interaction.note)
            emit(draw(interaction, runtime: index.events[i].runtimeKey, lanes: lanes, origin: origin, layout: layout))
            // Lanes of tasks whose last row this was.
            for p in [interaction.from, interaction.to] {
                if case .task = p, lastRow[p] == row, let lane = lanes[p] {
                    owners[lane] = nil
                    lanes[p] = nil
                }
            }
        }
        if !announced { emit(header(layout, owners: owners)) }
    }

    /// A label as one line of printable characters (labels come from the traced program): control
    /// characters escaped as the terminal output escapes them (everything but ASCII too with
    /// `--ascii`), before the layout counts them.
    func printable(_ text: String) -> String {
        options.ascii ? escapingNonASCII(text, keepingColour: false) : escapingControls(text, keepingColour: false)
    }

    /// The second column of a wide character in a row's cells (never printed).
    private static let wideFiller: Character = "\u{0}"

    /// `text` as a row's cells, one per column: a wide character (CJK, emoji) takes its cell and
    /// a ``wideFiller`` for each further column.
    private func cells(_ text: String) -> [Character] {
        var out: [Character] = []
        out.reserveCapacity(text.count)
        for c in text {
            out.append(c)
            let w = c.displayColumns
            if w > 1 { out += repeatElement(Self.wideFiller, count: w - 1) }
        }
        return out
    }

    /// A row's cells as text: each wide character with its fillers; part of a wide character
    /// that another write cut becomes spaces, so the row keeps its columns.
    private func text(_ line: [Character]) -> String {
        var out = ""
        var i = 0
        while i < line.count {
            let c = line[i]
            let w = c == Self.wideFiller ? 1 : c.displayColumns
            if c == Self.wideFiller {
                out.append(" ")
            } else if w > 1 {
                let end = min(line.count, i + w)
                let whole = end == i + w && line[(i + 1)..<end].allSatisfy { $0 == Self.wideFiller }
                out += whole ? String(c) : " "
                if whole { i += w - 1 }
            } else {
                out.append(c)
            }
            i += 1
        }
        return out
    }

    private func header(_ layout: Layout, owners: [Participant?]) -> String {
        var line = Array(repeating: Character(" "), count: layout.width)
        let columns =
            pad("time ms", Self.timeWidth, right: true)
            + (layout.runtimeWidth > 0 ? "  " + pad("runtime", layout.runtimeWidth) : "")
        place(Array(columns + "  note"), at: 0, in: &line, limit: layout.margin - 1)
        for (lane, p) in owners.enumerated() {
            guard let p else { continue }
            title(index.title(of: p), lane: lane, layout: layout, in: &line)
        }
        return options.paint(text(line).trimmingTrailing(), .bold)
    }

    /// A row naming the tasks that now own the lanes in `changed`.
    private func laneChange(_ layout: Layout, owners: [Participant?], changed: [Int]) -> String {
        var line = Array(repeating: Character(" "), count: layout.width)
        for (lane, owner) in owners.enumerated() where owner != nil { line[layout.position(lane)] = options.vertical }
        for lane in changed {
            guard let p = owners[lane] else { continue }
            title(index.title(of: p), lane: lane, layout: layout, in: &line)
        }
        return options.paint(text(line).trimmingTrailing(), .bold)
    }

    /// A lane's title, centred on its lifeline within its column.
    private func title(_ text: String, lane: Int, layout: Layout, in line: inout [Character]) {
        let text = printable(text)
        let start = layout.margin + lane * layout.columnWidth
        let room = min(layout.columnWidth - 1, layout.width - start)
        guard room > 0 else { return }
        if !options.cuts, text.displayColumns > room {
            // Whole, from its column on, over the lifelines to its right in this title row.
            return place(cells(text), at: start, in: &line)
        }
        let cut = cells(fit(text, room))
        place(cut, at: start + (room - cut.count) / 2, in: &line, limit: start + room)
    }

    /// `text` cut to `width` display columns, with `…` when it was longer.
    private func fit(_ text: String, _ width: Int) -> String { text.truncated(toColumns: width, ellipsis: options.ellipsis) }

    /// Writes `text` from `start`, up to (not including) `limit`; without a limit, past the
    /// line's end when nothing is cut (the line grows).
    private func place(_ text: [Character], at start: Int, in line: inout [Character], limit: Int? = nil) {
        if limit == nil, !options.cuts, start + text.count > line.count {
            line += Array(repeating: " ", count: start + text.count - line.count)
        }
        let end = min(limit ?? line.count, line.count)
        for (offset, c) in text.enumerated() where start + offset < end && start + offset >= 0 {
            line[start + offset] = c
        }
    }

    private func draw(
        _ interaction: Interaction, runtime: RuntimeKey, lanes: [Participant: Int], origin: UInt64, layout: Layout
    ) -> String {
        // Where a label may reach: the width, or anywhere to its right when nothing is cut.
        let width = options.cuts ? layout.width : Int.max / 4
        let lineWidth = layout.width
        var line = Array(repeating: Character(" "), count: lineWidth)
        for lane in lanes.values where lane < layout.lanes { line[layout.position(lane)] = options.vertical }
        let ms =
            interaction.time >= origin
            ? format(Double(interaction.time - origin) / 1_000_000, decimals: 3)
            : "-" + format(Double(origin - interaction.time) / 1_000_000, decimals: 3)
        place(Array(pad(fit(ms, Self.timeWidth), Self.timeWidth, right: true)), at: 0, in: &line)
        if layout.runtimeWidth > 0 {
            place(cells(fit(runtime.name, layout.runtimeWidth)), at: Self.Layout.timeAndGap, in: &line)
        }
        place(cells(fit(interaction.note, layout.noteWidth)), at: layout.noteStart, in: &line)
        // A task without a lane of its own is drawn on `tasks`, named in the label.
        var from = interaction.from
        var to = interaction.to
        var label = interaction.label
        for p in [from, to] where lanes[p] == nil {
            label = "\(printable(index.title(of: p))) \(label)"
        }
        if lanes[from] == nil { from = .tasks }
        if lanes[to] == nil { to = .tasks }
        if interaction.style == .banner {
            let start = layout.margin - 1
            place(Array(repeating: options.horizontal, count: lineWidth - start), at: start, in: &line)
            place(cells(" " + fit(label, width - start - 4) + " "), at: start + 1, in: &line)
        } else if from == to {
            // Right of its lifeline; or left of it when only that side has room.
            let x = layout.position(lanes[from]!)
            let after = width - x - 2
            let before = x - 1 - layout.margin
            if label.displayColumns <= after || after >= before {
                place(cells(" " + fit(label, after)), at: x + 1, in: &line)
            } else {
                let text = fit(label, before)
                place(cells(text + " "), at: x - 1 - text.displayColumns, in: &line)
            }
        } else {
            let (pf, pt) = (layout.position(lanes[from]!), layout.position(lanes[to]!))
            let (a, b) = (min(pf, pt), max(pf, pt))
            for x in (a + 1)..<b { line[x] = options.horizontal }
            if pt > pf { line[b - 1] = options.right } else { line[a + 1] = options.left }
            // Inside the arrow when it fits; else just past its right end, or just before its
            // left end (over the lifelines there, which this row does not use), within the width
            // and clear of the margin; else cut wherever keeps most of it.
            let inside = b - a - 3
            let after = width - (b + 2)
            let before = a - 1 - layout.margin
            let columns = label.displayColumns
            if columns <= inside {
                place(cells(label), at: a + 2 + (inside - columns) / 2, in: &line)
            } else if columns <= after {
                place(cells(label), at: b + 2, in: &line)
            } else if columns <= before {
                place(cells(label), at: a - 1 - columns, in: &line)
            } else if inside >= after && inside >= before, inside > 1 {
                place(cells(fit(label, inside)), at: a + 2, in: &line)
            } else if after >= before, after > 1 {
                place(cells(fit(label, after)), at: b + 2, in: &line)
            } else if before > 1 {
                place(cells(fit(label, before)), at: layout.margin, in: &line)
            }
        }
        let text = text(line).trimmingTrailing()
        guard options.color else { return text }
        let tint: RenderOptions.Tint =
            switch interaction.style {
            case .dispatch: .dispatch
            case .gate: .gate
            case .task: .task
            case .resume: .resume
            case .error: .error
            case .quiet: .dim
            case .banner: .bold
            }
        let split = text.index(text.startIndex, offsetBy: min(layout.margin, text.count))
        return options.paint(String(text[..<split]), .dim) + options.paint(String(text[split...]), tint)
    }
}

extension String {
    /// The string without the trailing characters that match `drop`.
    package func trimmingTrailing(where drop: (Character) -> Bool = { $0 == " " }) -> String {
        // Walks back from the end only as far as the kept text: O(dropped characters), where
        // repeated `dropLast()` recounted the whole string each time.
        guard let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[...last])
    }
}
