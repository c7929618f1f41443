import TraceInputs
import TransduceTrace

/// `trace-view tasks`: every task instance and its fate.
enum TasksCommand: Subcommand {
    static let spec = CommandSpec(
        name: "tasks", abstract: "Every task instance: policy, run time, outcome, replaced-by, joined-by",
        options: OptionSpec.selection + [TableFormat.option] + OptionSpec.display + [Pager.option],
        discussion: """
            Every task instance with name, policy, spawning event, run time, outcome and the task
            that replaced it or the dispatches that joined it; warnings for tasks that never
            ended and for switchToLatest churn (instances replaced again and again, none done).
            With --format json or tsv the table goes to standard output and the warnings to
            standard error.
            """,
        epilogue: table.help)

    static let table = TableSchema(
        columns: [
            Column("runtime", "the runtime's id within its process", .integer),
            Column("pid", "its process (null when the trace has none)", .orNull(.integer)),
            Column("task", "the task instance's id", .integer), Column("name", "its name (\"\" for an anonymous task)"),
            Column("policy", "switchToLatest, shareable or unique"),
            Column("spawned_by", "the event of the cycle that spawned it (? when the trace lost that cycle)"),
            Column("spawned_ns", "when (CLOCK_MONOTONIC ns)", .integer),
            Column("ran_ns", "spawn to its end (null while running)", .orNull(.integer)),
            Column("outcome", "settle, request(loaded), cancelled (replaced), running, ..."),
            Column("replaced_by", "the task that replaced it (null for none)", .orNull(.integer)),
            Column("joined_by", "the dispatches whose waiters joined it", .integers),
        ], row: "task instance")

    static func cells(_ r: TaskReport.Row) -> [TableCell] {
        TableCell.runtime(r.runtime) + [
            .number(r.task), .string(r.name), .string(r.policy), .string(r.spawnedBy), .number(r.start),
            r.ran.map(TableCell.number) ?? .null, .string(r.outcome), r.replacedBy == 0 ? .null : .number(r.replacedBy),
            .numbers(r.joinedBy),
        ]
    }

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let source = try TraceSource(args, access: .once)
        let format = try TableFormat(args)
        // One pass: each row is printed once its task ended (in spawn order), so memory follows
        // the running tasks, not the trace.
        var builder = TaskRows()
        var text = TaskReportStream(options: options)
        var tsvHeader = format == .tsv || format == .csv
        func emit(_ rows: [TaskReport.Row]) {
            guard !rows.isEmpty || tsvHeader else { return }
            if format == .text {
                Terminal.print(text.add(rows), options: options)
            } else {
                table.print(rows.map(Self.cells), format: format, header: tsvHeader)
                tsvHeader = false
            }
        }
        try source.pass {
            builder.consume($0)
            if builder.readyCount >= 512 { emit(builder.take()) }
        }
        let c = source.counts ?? TraceCounts()
        let lost = c.overwritten.plus(c.discarded).plus(c.lost)
        let (rest, warnings) = builder.finish(lost: lost, lossesUnknown: source.lossesUnknown)
        if format == .text {
            Terminal.print(text.finish(rest, warnings: warnings), options: options)
        } else {
            emit(rest)
            for w in warnings { Terminal.error("trace-view: warning: " + w.message) }
        }
        try finish(notes: source.notes)
    }
}
