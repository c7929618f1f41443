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
        ] + OptionSpec.display,
        discussion: """
            Checks the runtime's invariants on the trace: one cycle at a time, admissions enter
            in the order accepted, every awaited caller resumed exactly once, every task spawned
            once and ended once, nothing transduced after stop. Violations are listed with the
            events that show them, times from the trace's first event. Exits 1 when any is
            broken. A dump says why it was written: one taken while its process ran on or as it
            was cut short is checked as a partial trace unless --complete, and the first line
            says which was done.
            """)

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        var trace = try input.load(progress: Progress())
        trace.events = trace.events.filter { selection.keep($0) }
        try selection.check()
        if args.flag("complete") && args.flag("incomplete") {
            throw CLIError.usage("--complete and --incomplete contradict each other")
        }
        let complete: Bool? = args.flag("complete") ? true : args.flag("incomplete") ? false : nil
        let report = InvariantReport(trace, complete: complete)
        Terminal.print(report.render(options: options))
        try finish(notes: trace.notes)
        if !report.violations.isEmpty {
            throw CLIError("the trace breaks \(report.violations.count) runtime invariant(s)", .invariantsBroken)
        }
    }
}
