import TraceInputs
import TransduceTrace

/// `trace-view diff BASE NEW`: two runs compared request by request, for people and for CI.
enum DiffCommand: Subcommand {
    static let spec = CommandSpec(
        name: "diff", abstract: "Two runs compared: which requests got slower, in which part, and what else changed",
        options: [
            OptionSpec("fail-on", "RULE", "Exit 1 when RULE holds, printing the evidence (may be given more than once)"),
            .flag("all-processes", "Read every process of a recorded trace, not only its command's"),
            .flag(
                "pair-by-order",
                "Pair the requests of each key made under no trace context by their order (the i-th of each run), for runs that make the same requests in the same order"
            ),
            TableFormat.option,
        ] + OptionSpec.display,
        arguments: "BASE NEW",
        discussion: """
            Reads two traces of the same app (before and after a change, yesterday's and today's)
            and compares them. Runtimes are matched by their transducer's name and requests by
            their runtime's name and event label, so the runs' ids need not agree. For each
            request key: the count, p50, p90, p99 and max of each run, and a verdict. "slower" or
            "faster" is a Mann-Whitney U test of the two latency distributions (a rank test:
            latencies are skewed and heavy-tailed, so a mean or a t-test follows their outliers;
            this asks whether a request of one run tends to take longer than one of the other),
            significant at 1% divided by the number of comparisons (Bonferroni), with at least a
            medium effect (Vargha and Delaney's A ≥ 0.64 or ≤ 0.36: a busy machine moves short
            waits by a small one). "p99 slower" is the tail: the two p99s' 99.9% distribution-free
            intervals apart and at least 5% apart, which a rank test barely sees. Fewer than 20
            requests on a side: "too few" (for the tail, fewer than about 1,450: a p99's interval
            then reaches the maximum). Each changed key shows the change of the median of each
            latency part (admissionWait, task, sharedTask, resume, ...: the parts of `slow`, which
            add up to the latency); then each runtime's gate (waits, holds, the label that held it
            longest), the tasks whose instances ended otherwise (completed, failed, cancelled,
            running), and the warnings that appeared or went away. Both traces are streamed
            (passes of `slow`'s breakdowns, bounded memory).

            Requests made under a W3C trace context (TraceContext.withCurrent, a server's
            traceparent) are also paired one to one when both runs carry the same one (replayed
            traffic, a load test with fixed ids): per request key, how many pairs got slower and
            faster, the median change and a sign test (exact binomial: does a request tend to
            take longer than the same request did, with no assumption on the differences' shape);
            the pairs that grew most; and the requests of one run only, one by one (ten in the
            text, up to 1,000 each in --format json as "unmatched" rows). With --pair-by-order,
            the requests of a key made under no context are paired by their order (the i-th of
            each run, #i): for runs that make the same requests in the same order (a scripted
            test, one client); with concurrent clients the order differs from run to run, and
            such pairs mean little.
            """,
        epilogue: """
            RULES (--fail-on; exit status 1 when one holds):
              regression                   a request key the tests call slower (whole, p99 or paired)
              new-warnings                 a kind of warning the base did not have
              STAT(request(LABEL)) > +10%  STAT: p50 p90 p99 max mean count; LABEL: an event or *
              STAT(request(LABEL)) > +2ms  an increase by a duration (ns, us, ms, s)
              part(KIND) > +1ms            KIND: a latency part; its p50 a request, any event
              part(KIND, LABEL) > +5%      the same, of one event's requests
              mean(part(KIND)) > +1ms      STAT of a part: p50 p90 p99 max mean

            EXAMPLE:
              trace-view diff main.tdtrace branch.tdtrace --fail-on regression \\
                  --fail-on 'p99(request(load)) > +10%'

            """ + table.help)

    static let table = TableSchema(
        columns: [
            Column("section", "request, part, paired, unmatched, gate, task, warning or rule"),
            Column("runtime", "the runtime's transducer name (null for a warning or a rule)", .orNull(.string)),
            Column(
                "subject",
                "request, part, paired, unmatched: the event label; gate: waits or holds; task: the task's name; warning: what it is; rule: the rule"
            ),
            Column(
                "part",
                "part: the latency part; task: how instances ended (completed, failed, ...); unmatched: the request's trace id and parent span id (TRACEID-SPANID), or #N, its place by order",
                .orNull(.string)),
            Column(
                "base_count", "requests, waits, holds, task instances, warnings, pairs (paired) or 1 (unmatched) in the base",
                .orNull(.integer)),
            Column("new_count", "the same in the new trace", .orNull(.integer)),
            Column("base_p50_ns", "request and gate: the base's p50", .orNull(.integer)),
            Column("new_p50_ns", "the new trace's p50", .orNull(.integer)),
            Column("base_p90_ns", "the base's p90", .orNull(.integer)),
            Column("new_p90_ns", "the new trace's p90", .orNull(.integer)),
            Column("base_p99_ns", "the base's p99", .orNull(.integer)),
            Column("new_p99_ns", "the new trace's p99", .orNull(.integer)),
            Column("base_max_ns", "the base's max (unmatched: the request's latency)", .orNull(.integer)),
            Column("new_max_ns", "the new trace's max", .orNull(.integer)),
            Column("base_mean_ns", "the base's mean (part: the part's mean a request)", .orNull(.integer)),
            Column("new_mean_ns", "the new trace's mean (part: the part's mean a request)", .orNull(.integer)),
            Column(
                "p_value", "request and gate: the Mann-Whitney U test's two-sided p; paired: the sign test's (null: too few)",
                .orNull(number)),
            Column(
                "superiority", "P(new > base) + P(tie)/2 (0.5: no change); paired: the share of changed pairs that got slower",
                .orNull(number)),
            Column(
                "verdict",
                "request, gate and paired: slower, faster, same, too few, only in base, only in new; unmatched: only in base or only in new; rule: holds or does not hold",
                .orNull(.string)),
            Column("tail", "request and gate: the p99's verdict", .orNull(.string)),
            Column(
                "detail",
                "gate: the label that held it longest in all (base -> new); request: the admission waits' largest holder; paired: the median change; rule: one piece of evidence",
                .orNull(.string)),
        ], row: "comparison (requests, parts, gates, tasks, warnings, then the --fail-on rules)")

    private static let number = ColumnType.json(#"{"maximum":1,"minimum":0,"type":"number"}"#)

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let format = try TableFormat(args)
        var rules: [DiffRule] = []
        for text in args.repeated["fail-on"] ?? [] {
            do throws(DiffRuleError) {
                rules.append(try DiffRule(text))
            } catch {
                throw CLIError.usage(error.message)
            }
        }
        let paths = try args.inputs(["BASE", "NEW"])
        let byOrder = args.flag("pair-by-order")
        let (base, baseNotes) = try profile(paths[0], args, byOrder: byOrder)
        let (new, newNotes) = try profile(paths[1], args, byOrder: byOrder)
        let diff = TraceDiff(base: base.profile, new: new.profile)
        let outcomes = rules.map { ($0, $0.evidence(in: diff)) }
        if format == .text {
            var lines = diff.render(base: base.name, new: new.name, options: options)
            for (name, lost) in [("base", base.lost), ("new", new.lost)] where lost != nil {
                lines.append("")
                lines.append(
                    "note: the \(name) trace lost \(lost! > 0 ? counted(lost!, "event") : "events"): its counts may be short")
            }
            for (rule, evidence) in outcomes {
                lines.append("")
                lines.append("fail-on \(rule.text): " + (evidence.isEmpty ? "does not hold" : "holds"))
                lines += evidence.prefix(20).map { "  " + $0 }
                if evidence.count > 20 { lines.append("  (and \(evidence.count - 20) more)") }
            }
            Terminal.print(lines, options: options)
        } else {
            table.print(rows(diff) + ruleRows(outcomes), format: format)
            for (rule, evidence) in outcomes where !evidence.isEmpty {
                Terminal.error("trace-view: fail-on \(rule.text) holds: " + evidence.prefix(5).joined(separator: "; "))
            }
        }
        try finish(notes: baseNotes + newNotes)
        let held = outcomes.filter { !$0.1.isEmpty }
        if !held.isEmpty {
            throw CLIError(
                "\(counted(held.count, "--fail-on rule")) held: " + held.map { $0.0.text }.joined(separator: ", "),
                .invariantsBroken)
        }
    }

    /// One input read into a profile: every event, then every request's breakdown, in passes of
    /// bounded memory (``TraceSource/breakdowns(alongside:_:)``, as the CSV requests table). Its name, the events it lost (nil when none; 0 for a number not
    /// known), and its notes.
    static func profile(_ path: String, _ args: Arguments, byOrder: Bool = false) throws -> (
        (profile: TraceProfile, name: String, lost: UInt64?), [String]
    ) {
        let source = try TraceSource(path: path, args, access: .passes)
        var profile = TraceProfile()
        profile.pairsByOrder = byOrder
        try source.breakdowns(alongside: { profile.consume($0) }) {
            for b in $0 { profile.add(b) }
        }
        let c = source.counts ?? TraceCounts()
        let lost = c.overwritten.plus(c.discarded).plus(c.lost)
        profile.finish(lost: lost, lossesUnknown: source.lossesUnknown)
        return ((profile, source.name, lost > 0 ? lost : source.lossesUnknown ? 0 : nil), source.notes)
    }

    /// The comparisons as table rows, in the text's order.
    static func rows(_ diff: TraceDiff) -> [[TableCell]] {
        let int = { (n: UInt64) in TableCell.number(n) }
        func figures(_ c: TraceDiff.Comparison) -> [TableCell] {
            let (b, n) = (c.base, c.new)
            return [
                int(b.count), int(n.count), int(b.p50), int(n.p50), int(b.p90), int(n.p90), int(b.p99), int(n.p99),
                int(b.max), int(n.max), int(b.mean), int(n.mean),
                c.shift.map { .json(decimal($0.p)) } ?? .null, c.shift.map { .json(decimal($0.superiority)) } ?? .null,
                .string(c.verdict.rawValue), .string(c.tail.rawValue),
            ]
        }
        let none = [TableCell](repeating: .null, count: 10)
        var rows: [[TableCell]] = []
        for r in diff.requestsInOrder {
            rows.append(
                [.string("request"), .string(r.key.runtime), .string(r.key.label), .null] + figures(r.latency)
                    + [r.newHolder.isEmpty ? .null : .string(r.newHolder)])
            for p in r.parts {
                let (b, n) = (p.base, p.new)
                rows.append(
                    [
                        .string("part"), .string(r.key.runtime), .string(r.key.label), .string(p.kind.rawValue), int(b.count),
                        int(n.count), int(b.p50), int(n.p50), int(b.p90), int(n.p90), int(b.p99), int(n.p99), int(b.max),
                        int(n.max), int(b.mean), int(n.mean), .null, .null, .null, .null, .null,
                    ])
            }
        }
        if let pairing = diff.pairing {
            for k in pairing.keys {
                rows.append(
                    [
                        .string("paired"), .string(k.key.runtime), .string(k.key.label), .null, int(UInt64(k.pairs)),
                        int(UInt64(k.pairs)),
                    ] + [TableCell](repeating: .null, count: 10)
                        + [
                            k.p.map { .json(decimal($0)) } ?? .null,
                            k.slower + k.faster == 0 ? .null : .json(decimal(Double(k.slower) / Double(k.slower + k.faster))),
                            .string(k.verdict.rawValue), .null,
                            .string("median change \(k.medianChange) ns; \(k.slower) slower, \(k.faster) faster"),
                        ])
            }
            for r in pairing.onlyBase + pairing.onlyNew {
                rows.append(
                    [
                        .string("unmatched"), .string(r.key.runtime), .string(r.key.label), .string(r.id),
                        int(r.base == nil ? 0 : 1), int(r.new == nil ? 0 : 1), .null, .null, .null, .null, .null, .null,
                        r.base.map(int) ?? .null, r.new.map(int) ?? .null, .null, .null, .null, .null,
                        .string(r.base == nil ? "only in new" : "only in base"), .null, .null,
                    ])
            }
        }
        for g in diff.gates {
            let holder = g.baseHolder == g.newHolder ? g.newHolder : "\(g.baseHolder) -> \(g.newHolder)"
            for (subject, c) in [("waits", g.waits), ("holds", g.holds)] {
                rows.append(
                    [.string("gate"), .string(g.runtime), .string(subject), .null] + figures(c)
                        + [holder.isEmpty ? .null : .string(holder)])
            }
        }
        for t in diff.tasks {
            for fate in Set(t.base.keys).union(t.new.keys).sorted() {
                rows.append(
                    [
                        .string("task"), .string(t.key.runtime), .string(t.key.name), .string(fate),
                        int(UInt64(t.base[fate] ?? 0)), int(UInt64(t.new[fate] ?? 0)),
                    ] + none + [.null, .null, .null, .null, .null])
            }
        }
        for w in diff.warnings {
            rows.append(
                [.string("warning"), .null, .string(w.warning), .null, int(UInt64(w.base)), int(UInt64(w.new))] + none
                    + [.null, .null, .null, .null, .null])
        }
        return rows
    }

    /// A row for each rule that does not hold, and one for each piece of evidence of each that does.
    private static func ruleRows(_ outcomes: [(DiffRule, [String])]) -> [[TableCell]] {
        let none = [TableCell](repeating: .null, count: 14)
        return outcomes.flatMap { rule, evidence -> [[TableCell]] in
            let head: [TableCell] = [.string("rule"), .null, .string(rule.text), .null]
            guard !evidence.isEmpty else { return [head + none + [.string("does not hold"), .null, .null]] }
            return evidence.map { head + none + [.string("holds"), .null, .string($0)] }
        }
    }

    /// A number between 0 and 1 as JSON (Swift's shortest form that reads back the same).
    private static func decimal(_ value: Double) -> String {
        value.isFinite ? "\(min(1, max(0, value)))" : "null"
    }
}
