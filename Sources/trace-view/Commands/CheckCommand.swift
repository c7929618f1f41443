import TransduceTrace

/// `trace-view check`: the runtime's invariants, checked on a trace.
enum CheckCommand: Subcommand {
    static let spec = CommandSpec(
        name: "check", abstract: "Check the runtime's invariants (one cycle at a time, FIFO admission, …)",
        options: OptionSpec.selection + [
            .flag(
                "incomplete",
                "The trace is a snapshot of a live process: check only what a partial trace can prove (a trace whose recorder lost events always is one)"
            ),
            .flag(
                "complete",
                "Check a dump written mid-run (on SIGUSR2, by the slow-request trigger, at a crash) as a whole run"
            ),
            TableFormat.option,
        ] + OptionSpec.display + [Pager.option],
        discussion: """
            Checks the runtime's invariants on the trace: one cycle at a time, admissions enter
            in the order accepted, every awaited caller resumed exactly once, every task spawned
            once and ended once, nothing transduced after stop. Violations are listed with the
            events that show them, times from the trace's first event. Exits 1 when any is
            broken. A dump says why it was written: one taken while its process ran on or as it
            was cut short is checked as a partial trace unless --complete, and the first line
            says which was done. With --format json or tsv, one row per violation on standard
            output (none when all hold) and how the trace was checked on standard error.
            """,
        epilogue: table.help)

    static let table = TableSchema(
        columns: [
            Column("rule", "the invariant broken (oneCycleAtATime, fifoAdmission, ...)"),
            Column("runtime", "the runtime's id within its process", .integer),
            Column("pid", "its process (null when the trace has none)", .orNull(.integer)),
            Column("message", "what the events show"), Column("events", "how many events show it", .integer),
            Column("first_ns", "the first of them (CLOCK_MONOTONIC ns; null for none)", .orNull(.integer)),
        ], row: "violation")

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let source = try TraceSource(args, access: .once)
        if args.flag("complete") && args.flag("incomplete") {
            throw CLIError.usage("--complete and --incomplete contradict each other")
        }
        let complete: Bool? = args.flag("complete") ? true : args.flag("incomplete") ? false : nil
        // One pass, the checker keeping only what is open: a trace of any length checks in
        // bounded memory.
        var checker = InvariantChecker()
        try source.pass { checker.consume($0) }
        let report = InvariantReport(checker, counts: source.counts ?? TraceCounts(), complete: complete)
        let format = try TableFormat(args)
        if format == .text {
            Terminal.print(report.render(options: options), options: options)
        } else {
            table.print(
                report.violations.map { v in
                    [.string(v.rule.rawValue)] + TableCell.runtime(v.runtime) + [
                        .string(v.message), .number(UInt64(v.events.count)),
                        v.events.map(\.time).min().map(TableCell.number) ?? .null,
                    ]
                }, format: format)
            if let line = report.render(options: options).first { Terminal.error("trace-view: " + line) }
        }
        try finish(notes: source.notes)
        if !report.violations.isEmpty {
            throw CLIError("the trace breaks \(counted(report.violations.count, "runtime invariant"))", .invariantsBroken)
        }
    }
}
