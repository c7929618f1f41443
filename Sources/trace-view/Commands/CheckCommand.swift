import TraceInputs
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
            OptionSpec(
                "shrink", "FILE",
                "Write the smallest window of one runtime's cycles that still breaks the first broken invariant to FILE (a trace file)"
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

            --shrink FILE holds the trace (at most TRACE_VIEW_MAX_EVENTS events) and writes the
            smallest window of cycles of the first violation's runtime that still breaks the same
            invariant with the same message, with the events of the dispatches those cycles
            admitted and the tasks they started: a trace that check, the views and Replay
            read. It says how far it shrank (cycles and events, of how many).
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
        let shrinkTo = args.options["shrink"]
        var held: Trace?
        var checker = InvariantChecker()
        if shrinkTo != nil {
            // Windows of it are checked again and again: held.
            let trace = try source.hold().trace
            trace.feed(&checker)
            held = trace
        } else {
            try source.pass { checker.consume($0) }
        }
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
        if let shrinkTo, let held {
            let line = try shrink(report, held, to: shrinkTo)
            if format == .text { Terminal.print(["", line], options: options) } else { Terminal.error("trace-view: " + line) }
        }
        try finish(notes: source.notes)
        if !report.violations.isEmpty {
            throw CLIError("the trace breaks \(counted(report.violations.count, "runtime invariant"))", .invariantsBroken)
        }
    }

    /// Writes the shrunk window of `report`'s first violation to `path`; says how far it shrank.
    private static func shrink(_ report: InvariantReport, _ trace: Trace, to path: String) throws -> String {
        guard let violation = report.violations.first else { return "shrink: no invariant is broken: nothing written" }
        let shrinker = ViolationShrinker(trace: trace, whole: report.whole, lossy: report.lossy)
        guard let result = shrinker.shrink(violation) else {
            return "shrink: no window of runtime \(violation.runtime.name)'s cycles breaks \(violation.rule.rawValue) "
                + "alone: nothing written"
        }
        let output = try OutputFile(path: path)
        var bytes: [UInt8] = []
        TraceFileWriter.encodeBinary(result.trace, into: { bytes += $0 })
        output.write(bytes)
        try output.close()
        let c = result.cycles
        let all = result.runtimeCycles
        return "shrunk \(violation.rule.rawValue) on runtime \(violation.runtime.name) to cycles "
            + "\(c.lowerBound)–\(c.upperBound) (\(counted(result.windowCycleCount, "cycle")) of \(result.runtimeCycleCount), "
            + "\(all.lowerBound)–\(all.upperBound); \(counted(result.trace.events.count, "event")) of \(trace.events.count); "
            + "\(counted(result.checks, "window")) checked): \(path)"
    }
}
