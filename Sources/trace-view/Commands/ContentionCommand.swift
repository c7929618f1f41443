import TransduceTrace

/// `trace-view contention`: gate wait and hold distributions, in one streaming pass.
enum ContentionCommand: Subcommand {
    static let spec = CommandSpec(
        name: "contention", abstract: "Gate wait and hold distributions, who held the gate, queue depth",
        options: OptionSpec.selection + [OptionSpec("long-hold", "T", "Threshold of the long-hold warning (default 10ms)")]
            + OptionSpec.display,
        discussion: """
            Gate wait and hold distributions (p50, p90, p99, max, histogram), hold time by event
            and by action, the longest waits with what held the gate meanwhile, queue depth over
            time, and warnings for long holds and growing queues. Reads the trace in one pass
            with bounded memory.
            """)

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        var report = ContentionReport()
        if let threshold = try args.duration("long-hold") { report.longHoldThreshold = threshold }
        let (notes, _) = try input.forEach(progress: Progress()) { if selection.keep($0) { report.consume($0) } }
        try selection.check()
        Terminal.print(report.render(options: options))
        try finish(notes: notes)
    }
}
