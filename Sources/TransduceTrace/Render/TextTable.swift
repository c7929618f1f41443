/// A table of text columns laid out to a width: each column as wide as its widest cell, then the
/// widest columns cut down (cells cut with `…`) until the row fits; a column never runs into the
/// next. Columns are two spaces apart. With ``RenderOptions/cuts`` off no column is cut.
package struct TextTable: Sendable {
    package struct Column: Sendable {
        package var title: String
        /// The narrowest it may be cut to.
        package var minimum: Int
        package var alignRight: Bool

        package init(_ title: String, minimum: Int = 4, alignRight: Bool = false) {
            self.title = title
            self.minimum = minimum
            self.alignRight = alignRight
        }
    }

    package var columns: [Column]
    package var rows: [[String]] = []
    /// Spaces before every row.
    package var indent = 2

    package init(_ columns: [Column]) { self.columns = columns }

    /// Adds a row; control characters in its cells are escaped first, so the layout counts what
    /// will be printed.
    package mutating func append(_ row: [String]) {
        rows.append(row.map { escapingControls($0, keepingColour: false) })
    }

    /// The rows as `options` will show them: pure ASCII with ``RenderOptions/ascii`` (escapes
    /// are wider than what they stand for, so the layout counts them).
    private func shown(_ options: RenderOptions) -> [[String]] {
        options.ascii ? rows.map { $0.map { escapingNonASCII($0, keepingColour: false) } } : rows
    }

    /// The column widths at `width` (each as wide as its widest cell when `cuts` is false).
    func widths(_ width: Int, cuts: Bool = true, rows: [[String]]? = nil) -> [Int] {
        let rows = rows ?? self.rows
        var widths = columns.indices.map { c in
            rows.reduce(columns[c].title.displayColumns) { max($0, c < $1.count ? $1[c].displayColumns : 0) }
        }
        let room = cuts ? width - indent - 2 * (columns.count - 1) : Int.max
        // The widest column gives up a character at a time, down to its minimum.
        while widths.reduce(0, +) > room {
            guard
                let widest = widths.indices.filter({ widths[$0] > columns[$0].minimum }).max(by: { widths[$0] < widths[$1] })
            else { break }
            widths[widest] -= 1
        }
        return widths
    }

    /// The header and rows, each at most `options.width` wide.
    package func render(options: RenderOptions) -> [String] {
        let rows = shown(options)
        let widths = widths(options.width, cuts: options.cuts, rows: rows)
        return [line(columns.map(\.title), widths: widths, options: options)]
            + rows.map { line($0, widths: widths, options: options) }
    }

    /// The column widths ``render(options:)`` lays the rows appended so far out in: for a
    /// table too long to hold, the widths of its first rows, which later ones are printed in
    /// (``line(_:widths:options:)``).
    package func widths(options: RenderOptions) -> [Int] {
        widths(options.width, cuts: options.cuts, rows: shown(options))
    }

    /// One row (or the header) laid out in `widths`; its cells escaped as ``append(_:)`` does.
    package func line(escaping cells: [String], widths: [Int], options: RenderOptions) -> String {
        let escaped = cells.map { escapingControls($0, keepingColour: false) }
        return line(
            options.ascii ? escaped.map { escapingNonASCII($0, keepingColour: false) } : escaped, widths: widths, options: options
        )
    }

    private func line(_ cells: [String], widths: [Int], options: RenderOptions) -> String {
        var parts: [String] = []
        for (c, w) in widths.enumerated() {
            let cell = c < cells.count ? cells[c] : ""
            // Uncut, a cell wider than its column (a later row of a long table) widens its row.
            let cut = options.cuts ? cell.truncated(toColumns: w, ellipsis: options.ellipsis) : cell
            let width = options.cuts ? w : max(w, cut.displayColumns)
            parts.append(c == widths.count - 1 && !columns[c].alignRight ? cut : pad(cut, width, right: columns[c].alignRight))
        }
        return options.fit(String(repeating: " ", count: indent) + parts.joined(separator: "  ")).trimmingTrailing()
    }
}
