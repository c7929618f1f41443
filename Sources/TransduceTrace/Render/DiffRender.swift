extension TraceDiff {
    /// The order requests are listed in: what got slower first, then what got faster, then the
    /// rest; by name within each.
    package var requestsInOrder: [RequestChange] {
        func rank(_ c: Comparison) -> Int {
            if c.verdict == .slower || c.tail == .slower { return 0 }
            if c.verdict == .faster || c.tail == .faster { return 1 }
            return 2
        }
        return requests.enumerated().sorted { (rank($0.element.latency), $0.offset) < (rank($1.element.latency), $1.offset) }
            .map(\.element)
    }

    /// The diff as text: the requests (each changed one with its parts), the gates, the tasks
    /// whose instances ended otherwise, the warnings that appeared or went away. Every line fits
    /// `options.width`.
    package func render(base: String, new: String, options: RenderOptions = RenderOptions()) -> [String] {
        let d = { (n: UInt64) in formatDuration(n, ascii: options.ascii) }
        let arrow = options.ascii ? "->" : "→"
        let times = options.ascii ? "x" : "×"
        let pair = { (b: UInt64, n: UInt64) in "\(d(b)) \(arrow) \(d(n))" }
        var lines = [
            "base  \(base): \(counted(events.base, "event"))", "new   \(new): \(counted(events.new, "event"))", "",
        ]
        lines.append(options.paint("Requests by runtime and event", .bold) + " (base \(arrow) new)")
        if requests.isEmpty { lines.append("  (no awaited request in either trace)") }
        for r in requestsInOrder {
            let (b, n) = (r.latency.base, r.latency.new)
            lines += flowed(["\(DiffRule.name(r.key)):", Self.verdict(r.latency)], options, indent: 2, gap: 1)
            lines += flowed(
                [
                    "count \(b.count) \(arrow) \(n.count)", "p50 \(pair(b.p50, n.p50))", "p99 \(pair(b.p99, n.p99))",
                    "max \(pair(b.max, n.max))",
                ], options, indent: 4)
            let moves: Set<Verdict> = [.slower, .faster]
            guard moves.contains(r.latency.verdict) || moves.contains(r.latency.tail) else { continue }
            let moved = r.movedParts
            guard !moved.isEmpty else { continue }
            lines += flowed(
                ["parts, p50 a request:"]
                    + moved.prefix(4).map { p in
                        let (b, n) = (p.base.p50, p.new.p50)
                        return "\(p.kind.rawValue) \(pair(b, n)) (\(n >= b ? "+" : "-")\(d(n > b ? n - b : b - n)))"
                    }
                    + (r.newHolder.isEmpty || r.newHolder == r.baseHolder
                        ? [] : ["admission waits now held most by \(r.newHolder)"]),
                options, indent: 4)
        }
        if let pairing { lines += render(pairing, options) }
        lines.append("")
        lines.append(options.paint("Gates by runtime", .bold) + " (waits for the gate and holds of it)")
        if gates.isEmpty { lines.append("  (no gate in either trace)") }
        for g in gates {
            lines += flowed(
                ["\(g.runtime):", "waits " + Self.verdict(g.waits) + ", holds " + Self.verdict(g.holds)], options, indent: 2,
                gap: 1)
            lines += flowed(
                [
                    "cycles \(g.holds.base.count) \(arrow) \(g.holds.new.count)",
                    "wait p99 \(pair(g.waits.base.p99, g.waits.new.p99))",
                    "hold p99 \(pair(g.holds.base.p99, g.holds.new.p99))",
                    "held longest by "
                        + (g.baseHolder == g.newHolder ? g.newHolder : "\(g.baseHolder) \(arrow) \(g.newHolder)"),
                ], options, indent: 4)
        }
        let changedTasks = tasks.filter { $0.base != $0.new && !($0.base.isEmpty && $0.new.isEmpty) }
        lines.append("")
        lines.append(options.paint("Tasks whose instances ended otherwise", .bold))
        if changedTasks.isEmpty {
            lines.append("  (none: every task's instances ended as in the base)")
        } else {
            for t in changedTasks {
                let fates = Set(t.base.keys).union(t.new.keys).sorted().map {
                    "\($0) \(t.base[$0] ?? 0) \(arrow) \(t.new[$0] ?? 0)"
                }
                lines += wrapped(
                    "\(t.key.name.isEmpty ? "(unnamed)" : t.key.name) (\(t.key.runtime)): " + fates.joined(separator: ", "),
                    options, indent: 2)
            }
        }
        let appeared = warnings.filter { $0.base == 0 && $0.new > 0 }
        let gone = warnings.filter { $0.base > 0 && $0.new == 0 }
        lines.append("")
        lines.append(options.paint("Warnings", .bold))
        if appeared.isEmpty && gone.isEmpty {
            lines.append("  (the same kinds as in the base)")
        }
        for w in appeared { lines += wrapped("appeared: \(w.warning) \(times)\(w.new)", options, indent: 2) }
        for w in gone { lines += wrapped("went away: \(w.warning) (\(times)\(w.base) in the base)", options, indent: 2) }
        if overflowed {
            lines.append("")
            lines.append(
                "(past \(TraceProfile.maxGroups) request keys, gates, tasks or warnings, the rest are one group, \(TraceProfile.others))"
            )
        }
        return lines
    }

    /// A comparison's verdict as the table shows it: `slower (p 2e-9, A 0.81)`, and the tail's
    /// when it differs.
    package static func verdict(_ c: Comparison) -> String {
        var text = c.verdict.rawValue
        if let shift = c.shift, c.verdict == .slower || c.verdict == .faster {
            text += " (p \(DiffRule.pValue(shift.p)), A \(format(shift.superiority, decimals: 2)))"
        }
        if c.tail != c.verdict, c.tail == .slower || c.tail == .faster { text += "; p99 \(c.tail.rawValue)" }
        return text
    }

    /// The requests paired by trace context: each key's pairs and verdict, the pairs that grew
    /// most, the requests of one run only (ten of each; `--format json` lists up to
    /// ``Pairing/listed``).
    private func render(_ pairing: Pairing, _ options: RenderOptions) -> [String] {
        let d = { (n: UInt64) in formatDuration(n, ascii: options.ascii) }
        let arrow = options.ascii ? "->" : "→"
        let signed = { (n: Int64) in (n < 0 ? "-" : "+") + d(n.magnitude) }
        var lines = [
            "",
            options.paint("Requests paired one to one", .bold)
                + (pairing.keys.contains(where: \.byOrder)
                    ? " (by trace context, else by order: #N is the N-th of its key in each run)"
                    : " (by trace context: the same traceparent in both runs)"),
        ]
        lines += flowed(
            [
                "\(counted(pairing.pairs, "pair")),", "\(pairing.onlyCounts.base) only in base,",
                "\(pairing.onlyCounts.new) only in new",
            ]
                + (pairing.repeated.base + pairing.repeated.new > 0
                    ? [", \(pairing.repeated.base + pairing.repeated.new) under a context used twice (not paired)"] : [])
                + (pairing.leftOut.base + pairing.leftOut.new > 0
                    ? [", \(pairing.leftOut.base + pairing.leftOut.new) past \(TraceProfile.maxContexts) (not paired)"] : []),
            options, indent: 2, gap: 1)
        for k in pairing.keys {
            let verdict = k.verdict.rawValue + (k.p.map { " (sign test p \(DiffRule.pValue($0)))" } ?? "")
            lines += flowed(
                [
                    "\(DiffRule.name(k.key)):",
                    "\(counted(k.pairs, "pair"))\(k.byOrder ? " by order" : ""), \(k.slower) slower, \(k.faster) faster,",
                    "median change \(signed(k.medianChange)):", verdict,
                ], options, indent: 4, gap: 1)
        }
        let request = { (r: Pairing.Request) -> [String] in
            let latency = [r.base, r.new].compactMap { $0 }.map(d).joined(separator: " \(arrow) ")
            return [r.id, "\(DiffRule.name(r.key))", latency]
        }
        if !pairing.grewMost.isEmpty {
            lines += flowed(["grew most:"], options, indent: 2)
            for r in pairing.grewMost.prefix(10) {
                lines += flowed(request(r) + ["(\(signed(Int64(clamping: r.new! - r.base!))))"], options, indent: 4, gap: 1)
            }
        }
        for (name, list, count) in [
            ("only in base", pairing.onlyBase, pairing.onlyCounts.base), ("only in new", pairing.onlyNew, pairing.onlyCounts.new),
        ] where count > 0 {
            lines += flowed(["\(name) (\(count)\(count > 10 ? ", the first 10" : "")):"], options, indent: 2)
            for r in list.prefix(10) { lines += flowed(request(r), options, indent: 4, gap: 1) }
        }
        return lines
    }

    /// `groups` on lines of at most `options.width` columns after `indent` spaces, `gap` spaces
    /// apart, a line broken only between two groups (a group wider than a line is cut); each
    /// escaped first (control characters; with ``RenderOptions/ascii``, anything not ASCII).
    private func flowed(_ groups: [String], _ options: RenderOptions, indent: Int, gap: Int = 3) -> [String] {
        let room = max(8, options.width - indent)
        var lines: [String] = []
        var line = ""
        for group in groups {
            var text =
                options.ascii ? escapingNonASCII(group, keepingColour: false) : escapingControls(group, keepingColour: false)
            if text.displayColumns > room { text = pad(text, room) }
            if !line.isEmpty, line.displayColumns + gap + text.displayColumns > room {
                lines.append(String(repeating: " ", count: indent) + line)
                line = ""
            }
            line += (line.isEmpty ? "" : String(repeating: " ", count: gap)) + text
        }
        if !line.isEmpty { lines.append(String(repeating: " ", count: indent) + line) }
        return lines
    }

    /// `text` broken at spaces into lines of `options.width`, each after `indent` spaces: its
    /// words ``flowed(_:_:indent:gap:)`` one space apart.
    private func wrapped(_ text: String, _ options: RenderOptions, indent: Int) -> [String] {
        flowed(text.split(separator: " ").map(String.init), options, indent: indent, gap: 1)
    }
}
