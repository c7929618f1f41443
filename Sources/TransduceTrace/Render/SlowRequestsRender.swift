extension SlowRequests {
    /// How many of the shown requests are broken down in full.
    package static let brokenDown = 3

    /// A heading, a table of the shown requests with their biggest parts, latency by event, and
    /// the slowest few broken down in full.
    package func render(options: RenderOptions) -> [String] {
        let d = { (n: UInt64) in formatDuration(n, ascii: options.ascii) }
        var lines = [
            options.paint(
                options.fit(
                    "Slowest requests: \(shown.count) of \(awaitedCount) awaited" + (event.map { " '\($0)'" } ?? "")
                        + (threshold.map { ", \(slowCount) took \(d($0)) or more" } ?? "")), .bold)
        ]
        guard !shown.isEmpty else {
            return lines + [awaitedCount == 0 ? "  (no awaited request was resumed)" : "  (none took that long)"]
        }
        // With several runtimes (ids repeat across them) each row says whose request it is.
        let several = Set(shown.map(\.runtime)).count > 1
        var table = TextTable(
            [.init("total", minimum: 6, alignRight: true)] + (several ? [.init("runtime", minimum: 3)] : []) + [
                .init("request", minimum: 10), .init("outcome", minimum: 5), .init("biggest parts", minimum: 10),
            ])
        for b in shown {
            var cells = b.summaryLine(options: options)
            if several { cells.insert(b.runtime.name, at: 1) }
            table.append(cells)
        }
        lines += table.render(options: options)
        lines.append("")
        lines.append(options.paint("By event", .bold))
        lines += byEvent.render(options: options)
        for b in shown.prefix(Self.brokenDown) {
            lines.append("")
            lines += b.render(options: options)
        }
        return lines
    }

    /// A JSON array of the shown requests, one object a line (``LatencyBreakdown/json()``).
    package func json() -> [String] {
        ["["] + shown.enumerated().map { "  " + $1.json() + ($0 < shown.count - 1 ? "," : "") } + ["]"]
    }
}
