/// Draws events as a sequence diagram in text: lifelines for callers, the compute gate,
/// `transduce()`, the task manager and each task instance, with arrows for dispatch, gate wait,
/// enter/leave, effects, spawn/join/cancel/settle and resume, and times and durations in a margin.
///
/// Task instances get their own lifeline in order of appearance while they fit the width (and
/// ``maxTaskLines``); later ones are drawn as notes on the `tasks` lifeline.
public struct SequenceDiagram: Sendable {
    public let index: TraceIndex
    public var options: RenderOptions
    public var maxTaskLines: Int

    public init(index: TraceIndex, options: RenderOptions = RenderOptions(), maxTaskLines: Int = 4) {
        self.index = index
        self.options = options
        self.maxTaskLines = maxTaskLines
    }

    static let marginWidth = 24
    static let fixed: [Participant] = [.caller, .gate, .transduce, .tasks]

    /// Renders the events at `indices` (positions in the index's events), in that order.
    public func render(_ indices: [Int]) -> [String] {
        guard let first = indices.first else { return ["(no events)"] }
        let origin = index.events[first].time
        let interactions = indices.compactMap { index.interaction(for: index.events[$0], ascii: options.ascii) }
        let available = options.width - Self.marginWidth - 2
        let fitting = max(0, min(maxTaskLines, available / 12 - Self.fixed.count))
        var columns: [Participant: Int] = [:]
        var participants = Self.fixed
        for (i, p) in participants.enumerated() { columns[p] = i }
        for interaction in interactions {
            for p in [interaction.from, interaction.to] where columns[p] == nil && participants.count < Self.fixed.count + fitting
            {
                columns[p] = participants.count
                participants.append(p)
            }
        }
        let columnWidth = max(10, available / participants.count)
        let positions = participants.indices.map { Self.marginWidth + 2 + $0 * columnWidth + columnWidth / 2 }
        let lineWidth = (positions.last ?? 0) + columnWidth / 2

        var header = Array(repeating: Character(" "), count: lineWidth)
        place(Array(pad("time ms", 9, right: true) + "  note"), at: 0, in: &header)
        for (column, p) in participants.enumerated() {
            let text = Array(String(index.title(of: p).prefix(columnWidth - 1)))
            place(text, at: max(0, positions[column] - text.count / 2), in: &header)
        }
        var lines = [options.paint(String(header).trimmingTrailing(), .bold)]
        for interaction in interactions {
            lines.append(draw(interaction, columns: columns, origin: origin, positions: positions, lineWidth: lineWidth))
        }
        return lines
    }

    private func place(_ text: [Character], at start: Int, in line: inout [Character]) {
        for (offset, c) in text.enumerated() where start + offset < line.count && start + offset >= 0 {
            line[start + offset] = c
        }
    }

    private func draw(
        _ interaction: Interaction, columns: [Participant: Int], origin: UInt64, positions: [Int], lineWidth: Int
    ) -> String {
        // Notes may run past the last lifeline, up to the width; a note on the last lifeline may
        // run past the width rather than lose its text.
        var line = Array(repeating: Character(" "), count: max(lineWidth, options.width) + 40)
        for x in positions { line[x] = options.vertical }
        let ms =
            interaction.time >= origin
            ? format(Double(interaction.time - origin) / 1_000_000, decimals: 3)
            : "-" + format(Double(origin - interaction.time) / 1_000_000, decimals: 3)
        place(Array(pad(ms, 9, right: true) + "  " + pad(interaction.note, Self.marginWidth - 11)), at: 0, in: &line)
        // A task without a lifeline of its own is drawn as a note on `tasks`.
        var from = interaction.from
        var to = interaction.to
        var label = interaction.label
        for p in [from, to] where columns[p] == nil {
            label = "\(index.title(of: p)) \(label)"
        }
        if columns[from] == nil { from = .tasks }
        if columns[to] == nil { to = .tasks }
        if interaction.style == .banner {
            place(Array(repeating: options.horizontal, count: lineWidth - Self.marginWidth), at: Self.marginWidth, in: &line)
            place(Array(" \(label) "), at: Self.marginWidth + 2, in: &line)
        } else if from == to {
            let start = positions[columns[from]!] + 1
            if start + 1 + label.count > line.count {
                line += Array(repeating: " ", count: start + 1 + label.count - line.count)
            }
            place(Array(" " + label), at: start, in: &line)
        } else {
            let (pf, pt) = (positions[columns[from]!], positions[columns[to]!])
            let (a, b) = (min(pf, pt), max(pf, pt))
            for x in (a + 1)..<b { line[x] = options.horizontal }
            if pt > pf { line[b - 1] = options.right } else { line[a + 1] = options.left }
            // Inside the arrow when it fits; else just past its right end (over the lifelines
            // there, which this row does not use); else shortened.
            let room = b - a - 3
            if label.count <= room {
                place(Array(label), at: a + 2 + (room - label.count) / 2, in: &line)
            } else if b + 2 + label.count <= line.count {
                place(Array(label), at: b + 2, in: &line)
            } else if room > 1 {
                place(Array(String(label.prefix(room - 1)) + options.ellipsis), at: a + 2, in: &line)
            }
        }
        let text = String(line).trimmingTrailing()
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
        let split = text.index(text.startIndex, offsetBy: min(Self.marginWidth, text.count))
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
