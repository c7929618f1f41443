import TraceInputs
import TransduceTrace

/// `trace-view summary`: counts, runtimes, span and losses, in one streaming pass.
enum SummaryCommand: Subcommand {
    static let spec = CommandSpec(
        name: "summary", abstract: "Counts per kind, runtimes, time span, events lost by the recorder",
        options: OptionSpec.selection + [
            OptionSpec("over", "T", "Also count the requests that took T or more"), TableFormat.option,
        ] + OptionSpec.display + [Pager.option],
        discussion: """
            Counts per kind, runtimes and their processes, time span and events lost by the
            recorder or by LTTng; with --over T, how many requests took T or more. One pass,
            bounded memory. With --format json or tsv, the runtimes' table alone.
            """,
        epilogue: table.help)

    static let table = TableSchema(
        columns: [
            Column("runtime", "the runtime's id within its process", .integer),
            Column("pid", "its process (null when the trace has none)", .orNull(.integer)),
            Column("host", "the process's host (null when the trace does not say)", .orNull(.string)),
            Column("transducer", "the transducer's type (null when the trace lost its start)", .orNull(.string)),
            Column("host_kind", "BaseRuntime, EffectObservable, ... (null when the trace lost its start)", .orNull(.string)),
            Column("events", "its events in the trace", .integer),
            Column("first_ns", "its first event (CLOCK_MONOTONIC ns)", .integer), Column("last_ns", "its last event", .integer),
            Column("stop", "how it stopped (null while running)", .orNull(.string)),
        ], row: "runtime")

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let source = try TraceSource(args, access: .once)
        var report = SummaryReport()
        report.slowThreshold = try args.duration("over")
        try source.pass { report.consume($0) }
        report.processHosts = source.hosts
        report.recorder = source.counts
        report.notes = source.notes
        let format = try TableFormat(args)
        if format == .text {
            Terminal.print(report.render(options: options) + ["", "input: \(source.kind.rawValue)"], options: options)
        } else {
            table.print(
                report.runtimeOrder.map { key in
                    let r = report.runtime(key)!
                    let host = source.hosts[key.process]
                    return TableCell.runtime(key) + [
                        host.map(TableCell.string) ?? .null, r.transducer.isEmpty ? .null : .string(r.transducer),
                        r.host.isEmpty ? .null : .string(r.host), .number(UInt64(r.events)), .number(r.first),
                        .number(r.last), r.stop.isEmpty ? .null : .string(r.stop),
                    ]
                }, format: format)
        }
        try finish(notes: source.notes)
    }
}
