extension ContentionReport {
    /// The report as text: wait and hold distributions, hold by event and by action, the
    /// longest waits, request tails, the queue-depth timeline and the warnings; every line fits
    /// `options.width`. `namingRuntimes`: each longest wait says whose runtime it was (off for a
    /// report of one runtime under a heading that names it).
    package func render(options: RenderOptions = RenderOptions(), namingRuntimes: Bool = true) -> [String] {
        let d = { (n: UInt64) in formatDuration(n, ascii: options.ascii) }
        var lines: [String] = []
        func distribution(_ title: String, _ h: LatencyHistogram) {
            lines.append(options.paint(title, .bold))
            guard h.count > 0 else { return lines.append("  (none)") }
            lines.append(
                "  count \(h.count)   p50 \(d(h.percentile(0.5)))   p90 \(d(h.percentile(0.9)))   p99 \(d(h.percentile(0.99)))   max \(d(h.max))"
            )
            let ranges = h.powerOfTwoRanges
            let peak = ranges.map(\.count).max() ?? 1
            let barWidth = max(10, options.width - 40)
            for r in ranges {
                let bar = String(repeating: options.ascii ? "#" : "█", count: Int((r.count * UInt64(barWidth) + peak - 1) / peak))
                lines.append(
                    "  " + pad("< " + d(r.upper), 10, right: true) + " " + pad(String(r.count), 8, right: true) + " " + bar)
            }
        }
        distribution("Gate wait (admission to entry)", waits)
        lines.append("")
        distribution("Gate hold (entry to leave)", holds)
        lines.append("")
        lines.append(options.paint("Hold by event", .bold))
        func table(_ first: String, _ entries: [(String, Aggregate)]) -> [String] {
            var table = TextTable([
                .init(first, minimum: 8), .init("cycles", alignRight: true), .init("total", alignRight: true),
                .init("mean", alignRight: true), .init("max", alignRight: true),
            ])
            for (name, a) in entries {
                table.append([name, String(a.count), d(a.total), d(a.total / UInt64(max(1, a.count))), d(a.max)])
            }
            return table.render(options: options)
        }
        lines += table(
            "event",
            holdByLabel.sorted(by: { ($0.value.total, $0.key) > ($1.value.total, $1.key) }).prefix(15).map { ($0.key, $0.value) })
        lines.append("")
        lines.append(options.paint("Gate held by actions", .bold))
        if holdByEffect.isEmpty {
            lines.append("  (no actions)")
        } else {
            lines += table("action", holdByEffect.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value) })
        }
        lines.append("")
        lines.append(options.paint("Longest waits", .bold))
        if longestWaits.isEmpty { lines.append("  (none)") }
        for w in longestWaits {
            let holders = w.heldBy.map { "\($0.label) cycle #\($0.cycle) \(d($0.held))" }
            lines.append(
                "  " + pad(d(w.waited), 10, right: true)
                    + "  dispatch #\(w.dispatch) \(w.label)" + (namingRuntimes ? " (runtime \(w.runtime.name))" : "")
                    + (holders.isEmpty ? "" : "; gate held by " + holders.suffix(4).joined(separator: ", ")))
        }
        lines.append("")
        lines.append(options.paint("Request latency by event, at p99", .bold))
        if requestTails.isEmpty { lines.append("  (no awaited request was resumed)") }
        for (label, tail) in requestTails.sorted(by: { ($0.value.p99.value, $1.key) > ($1.value.p99.value, $0.key) }).prefix(15) {
            let (p99, exact) = tail.p99
            let dominant = tail.dominant.map { ": \(format($0.share * 100, decimals: 0))% \($0.cause)" } ?? ""
            let requests = "\(tail.count) request" + (tail.count == 1 ? "" : "s")
            lines.append("  \(label): \(requests), p99 \(exact ? "" : "≥ ")\(d(p99))\(dominant)")
        }
        lines.append("")
        lines.append(options.paint("Queue depth over time", .bold))
        lines.append(contentsOf: depth.render(options: options))
        let warnings = self.warnings
        if !warnings.isEmpty {
            lines.append("")
            lines.append(options.paint("Warnings", .bold))
            for w in warnings { lines.append(options.paint("  warning: \(w.message)", .error)) }
        }
        return lines.map(options.fit)
    }
}

extension ContentionByRuntime {
    /// The report as text: one runtime's as ``ContentionReport/render(options:namingRuntimes:)``
    /// draws it; several, a section each under a heading that names it, the busiest `shown`
    /// gates first, then a line for the quieter ones left out and a section for the runtimes
    /// past ``maxRuntimes`` together. With a ``pooled`` report, that total alone, said so.
    package func render(options: RenderOptions = RenderOptions(), shown: Int = 8) -> [String] {
        let d = { (n: UInt64) in formatDuration(n, ascii: options.ascii) }
        let count = pooled == nil ? runtimes.count + otherRuntimes : pooledRuntimes
        func heading(_ text: String) -> String { options.fit(options.paint("== \(text) ==", .bold)) }
        if let pooled {
            guard count > 1 else { return pooled.render(options: options) }
            return [heading("all \(count) runtimes together (each has its own gate)"), ""] + pooled.render(options: options)
        }
        if runtimes.count == 1, others == nil { return runtimes[0].report.render(options: options, namingRuntimes: false) }
        if runtimes.isEmpty { return ContentionReport().render(options: options) }
        var lines: [String] = []
        let busiest = busiestFirst
        for (i, (key, report)) in busiest.prefix(shown).enumerated() {
            if i > 0 { lines.append("") }
            let cycles = report.holds.count
            lines.append(
                heading(
                    "runtime \(key.name): \(counted(cycles, "cycle")), gate held \(d(report.holds.total)) in all"))
            lines += report.render(options: options, namingRuntimes: false)
        }
        if busiest.count > shown {
            let left = busiest.count - shown
            lines.append("")
            lines.append(
                options.fit(
                    "\(counted(left, "more runtime")) with quieter gates: --runtime ID (and --pid PID) shows one, --pooled all together"
                ))
        }
        if let others {
            lines.append("")
            lines.append(
                heading(
                    "\(counted(otherRuntimes, "more runtime"))\(otherRuntimes >= Self.maxCountedOthers ? " or more" : ""), "
                        + "together (past the first \(Self.maxRuntimes) the trace named)"))
            lines += others.render(options: options)
        }
        return lines
    }
}

extension DepthTimeline {
    /// The timeline as text: one row of bars, its time axis and the deepest queue.
    package func render(options: RenderOptions) -> [String] {
        guard used > 0 else { return ["  (no admissions)"] }
        let levels: [Character] = options.ascii ? Array(" .:-=+*#%@") : Array(" ▁▂▃▄▅▆▇█")
        let peak = buckets[0..<used].max() ?? 0
        let line = buckets[0..<used].map { value -> Character in
            guard peak > 0 else { return levels[0] }
            return levels[Int((UInt64(value) * UInt64(levels.count - 1) + UInt64(peak) - 1) / UInt64(peak))]
        }
        return [
            "  max depth \(peak); each column \(formatDuration(width, ascii: options.ascii))",
            "  |" + String(line) + "|",
        ]
    }
}
