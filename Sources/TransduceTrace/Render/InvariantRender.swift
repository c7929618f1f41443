extension InvariantReport {
    /// How many violations are printed in full; the rest are counted.
    package static let shownViolations = 50

    /// A line on how the trace was checked, one line per rule, then the violations.
    package func render(options: RenderOptions) -> [String] {
        var lines = [
            "\(counted(events, "event")), \(counted(runtimes, "runtime")); checked "
                + (whole
                    ? "as a whole run"
                    : "as an incomplete trace (nothing twice, nothing out of order)"
                        + (lossy ? ": the recorder lost events" : ""))
        ]
        // Why, when the dump itself said so (the line above is the one scripts read).
        if !whole && !lossy && occasion.isSnapshot {
            lines.append("  (the dump was written \(occasion.description); --complete checks it as a whole run)")
        }
        if notJudged > 0 {
            lines.append(
                "  (\(notJudged) finding\(notJudged == 1 ? "" : "s") not judged: each rests on an event the trace does not "
                    + "hold, which may be one it lost)")
        }
        for rule in InvariantRule.allCases {
            let broken = count(of: rule)
            lines.append("  " + pad(rule.rawValue, 28) + (broken == 0 ? "ok" : counted(broken, "violation")))
        }
        if !violations.isEmpty {
            lines.append("")
            for v in violations.prefix(Self.shownViolations) { lines += v.description.split(separator: "\n").map(String.init) }
            if violations.count > Self.shownViolations {
                lines.append("… and \(violations.count - Self.shownViolations) more")
            }
        }
        return lines.map(options.fit)
    }
}
