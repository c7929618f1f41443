extension TaskReport {
    /// The report as text: one row per task instance (the runtime column only when there are
    /// several), then the warnings.
    public func render(options: RenderOptions = RenderOptions()) -> [String] {
        // One runtime: named once in the title, leaving its column's room to the others.
        let runtimes = Set(rows.map(\.runtime))
        let single = runtimes.count == 1 ? runtimes.first : nil
        var lines = [options.paint(options.fit("Tasks" + (single.map { " of runtime \(RuntimeKey.name($0))" } ?? "")), .bold)]
        var table = TextTable([
            .init("task", minimum: 6), .init("runtime", minimum: 3), .init("policy", minimum: 6),
            .init("spawned by", minimum: 6), .init("ran", minimum: 5, alignRight: true), .init("outcome", minimum: 8),
            .init("replaced/joined by", minimum: 8),
        ])
        for r in rows {
            var links: [String] = []
            if r.replacedBy != 0 { links.append("replaced by task #\(r.replacedBy)") }
            if !r.joinedBy.isEmpty {
                links.append("joined by dispatch " + r.joinedBy.map { "#\($0)" }.joined(separator: ", "))
            }
            table.append([
                (r.name.isEmpty ? "task" : r.name) + " #\(r.task)", RuntimeKey.name(r.runtime), r.policy, r.spawnedBy,
                r.ran.map { formatDuration($0, ascii: options.ascii) } ?? "-", r.outcome, links.joined(separator: "; "),
            ])
        }
        if single != nil {
            table.columns.remove(at: 1)
            table.rows = table.rows.map {
                var row = $0; row.remove(at: 1); return row
            }
        }
        lines += table.render(options: options)
        if rows.isEmpty { lines.append("  (no tasks)") }
        if !warnings.isEmpty {
            lines.append("")
            lines.append(options.paint("Warnings", .bold))
            for w in warnings { lines.append(options.paint(options.fit("  warning: \(w.message)"), .error)) }
        }
        return lines
    }
}
