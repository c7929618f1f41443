import TraceInputs
import TransduceTrace

/// `trace-view contention`: gate wait and hold distributions, in one streaming pass.
enum ContentionCommand: Subcommand {
    static let spec = CommandSpec(
        name: "contention", abstract: "Gate wait and hold distributions, who held the gate, queue depth",
        options: OptionSpec.selection + [
            OptionSpec("long-hold", "T", "Threshold of the long-hold warning (default 10ms)"),
            .flag("pooled", "Every runtime's gate together, as one total (each runtime has its own gate)"),
            TableFormat.option,
        ] + OptionSpec.display + [Pager.option],
        discussion: """
            Gate wait and hold distributions (p50, p90, p99, max, histogram), hold time by event
            and by action, the longest waits with what held the gate meanwhile, queue depth over
            time, and warnings for long holds and growing queues: runtime by runtime, since each
            has its own gate and queue (the busiest 8 gates first, a line naming how many quieter
            ones were left out; past the first 64 runtimes of the trace the rest are one section,
            together, said so). --pooled gives one total over every runtime instead. Reads the
            trace in one pass with bounded memory. With --format json or tsv, a row per runtime
            and event label on standard output and the warnings on standard error.
            """,
        epilogue: table.help)

    static let table = TableSchema(
        columns: [
            Column("label", "the event whose cycles held the gate, or whose requests waited"),
            Column("cycles", "its cycles", .integer), Column("held_ns", "their total hold of the gate", .integer),
            Column("longest_hold_ns", "the longest", .integer), Column("requests", "its awaited requests resumed", .integer),
            Column("request_p99_ns", "their p99 latency (null for none)", .orNull(.integer)),
            Column(
                "p99_exact", "false when the label had more requests than the p99 is kept exactly for (null for none)",
                .orNull(.boolean)),
            Column(
                "runtime", "the runtime's id within its process (null for several together: --pooled, or past the first 64)",
                .orNull(.integer)),
            Column("pid", "its process (null when the trace has none, or for several runtimes together)", .orNull(.integer)),
        ], row: "runtime and event label: the busiest gate first, then its most held label first")

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let source = try TraceSource(args, access: .once)
        var report = ContentionByRuntime(
            longHoldThreshold: try args.duration("long-hold") ?? ContentionReport.defaultLongHoldThreshold,
            pooled: args.flag("pooled"))
        try source.pass { report.consume($0) }
        let format = try TableFormat(args)
        if format == .text {
            Terminal.print(report.render(options: options), options: options)
        } else {
            var sections: [(key: RuntimeKey?, report: ContentionReport)] =
                report.pooled.map { [(nil, $0)] } ?? report.busiestFirst.map { ($0.key, $0.report) }
            if report.pooled == nil, let others = report.others { sections.append((nil, others)) }
            table.print(sections.flatMap { rows($0.report, runtime: $0.key) }, format: format)
            for (key, section) in sections {
                let whose = key.map { "runtime \($0.name): " } ?? ""
                for w in section.warnings { Terminal.error("trace-view: warning: " + whose + w.message) }
            }
        }
        try finish(notes: source.notes)
    }

    /// A report's rows, one per event label, most held first; `runtime` nil for several together.
    private static func rows(_ report: ContentionReport, runtime: RuntimeKey?) -> [[TableCell]] {
        let labels = Set(report.holdByLabel.keys).union(report.requestTails.keys).sorted {
            (report.holdByLabel[$0]?.total ?? 0, $1) > (report.holdByLabel[$1]?.total ?? 0, $0)
        }
        let whose = runtime.map(TableCell.runtime) ?? [.null, .null]
        return labels.map { label in
            let hold = report.holdByLabel[label]
            let tail = report.requestTails[label]
            return [
                .string(label), .number(UInt64(hold?.count ?? 0)), .number(hold?.total ?? 0),
                .number(hold?.max ?? 0), .number(UInt64(tail?.count ?? 0)),
                tail.map { .number($0.p99.value) } ?? .null, tail.map { .bool($0.p99.exact) } ?? .null,
            ] + whose
        }
    }
}
