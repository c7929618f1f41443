extension TaskReport {
    /// The report as text: one row per task instance (the runtime column only when there are
    /// several), then the warnings.
    package func render(options: RenderOptions = RenderOptions()) -> [String] {
        // One runtime: named once in the title, leaving its column's room to the others.
        let runtimes = Set(rows.map(\.runtime))
        let single = runtimes.count == 1 ? runtimes.first : nil
        var lines = [options.paint(options.fit("Tasks" + (single.map { " of runtime \($0.name)" } ?? "")), .bold)]
        var table = Self.table()
        for r in rows { table.append(Self.cells(r, options: options)) }
        if single != nil {
            table.columns.remove(at: 1)
            table.rows = table.rows.map {
                var row = $0; row.remove(at: 1); return row
            }
        }
        lines += table.render(options: options)
        if rows.isEmpty { lines.append("  (no tasks)") }
        return lines + Self.render(warnings: warnings, options: options)
    }

    static func render(warnings: [AnalysisWarning], options: RenderOptions) -> [String] {
        guard !warnings.isEmpty else { return [] }
        return ["", options.paint("Warnings", .bold)]
            + warnings.map { options.paint(options.fit("  warning: \($0.message)"), .error) }
    }

    static func table() -> TextTable {
        TextTable([
            .init("task", minimum: 6), .init("runtime", minimum: 3), .init("policy", minimum: 6),
            .init("spawned by", minimum: 6), .init("ran", minimum: 5, alignRight: true), .init("outcome", minimum: 8),
            .init("replaced/joined by", minimum: 8),
        ])
    }

    static func cells(_ r: Row, options: RenderOptions) -> [String] {
        var links: [String] = []
        if r.replacedBy != 0 { links.append("replaced by task #\(r.replacedBy)") }
        if !r.joinedBy.isEmpty {
            links.append("joined by dispatch " + r.joinedBy.map { "#\($0)" }.joined(separator: ", "))
        }
        return [
            (r.name.isEmpty ? "task" : r.name) + " #\(r.task)", r.runtime.name, r.policy, r.spawnedBy,
            r.ran.map { formatDuration($0, ascii: options.ascii) } ?? "-", r.outcome, links.joined(separator: "; "),
        ]
    }
}

/// ``TaskReport``'s text for rows that come a few at a time (`TaskRows`), never all held: up
/// to ``layoutRows`` rows it waits and prints the report exactly as ``TaskReport/render(options:)``
/// would; past that, it lays the table out by those first rows (the runtime column kept), prints
/// them, and prints each later row in the same widths as it comes.
package struct TaskReportStream {
    /// Rows held to lay the table out by.
    package static let layoutRows = 4_096
    let options: RenderOptions
    private var held: [TaskReport.Row] = []
    private var layout: (table: TextTable, widths: [Int])?

    /// A report drawn as `options` say.
    package init(options: RenderOptions) { self.options = options }

    /// The lines to print for `rows`, which came after the rows given before.
    package mutating func add(_ rows: [TaskReport.Row]) -> [String] {
        if let layout {
            return rows.map {
                layout.table.line(escaping: TaskReport.cells($0, options: options), widths: layout.widths, options: options)
            }
        }
        held += rows
        guard held.count > Self.layoutRows else { return [] }
        var table = TaskReport.table()
        for r in held { table.append(TaskReport.cells(r, options: options)) }
        let widths = table.widths(options: options)
        layout = (table, widths)
        held = []
        return [options.paint(options.fit("Tasks"), .bold)] + table.render(options: options)
    }

    /// The lines that end the report: the rest of the rows, then the warnings.
    package mutating func finish(_ rows: [TaskReport.Row], warnings: [AnalysisWarning]) -> [String] {
        if layout != nil { return add(rows) + TaskReport.render(warnings: warnings, options: options) }
        return TaskReport(rows: held + rows, warnings: warnings).render(options: options)
    }
}
