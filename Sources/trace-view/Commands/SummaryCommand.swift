import TransduceTrace

/// `trace-view summary`: counts, runtimes, span and losses, in one streaming pass.
enum SummaryCommand: Subcommand {
    static let spec = CommandSpec(
        name: "summary", abstract: "Counts per kind, runtimes, time span, events lost by the recorder",
        options: OptionSpec.selection + [OptionSpec("over", "T", "Also count the requests that took T or more")]
            + OptionSpec.display,
        discussion: """
            Counts per kind, runtimes and their processes, time span and events lost by the
            recorder or by LTTng; with --over T, how many requests took T or more. One pass,
            bounded memory.
            """)

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var report = SummaryReport()
        report.slowThreshold = try args.duration("over")
        var selection = try Selection(args)
        let (notes, counts) = try input.forEach(progress: Progress()) { if selection.keep($0) { report.consume($0) } }
        try selection.check()
        report.processHosts = input.hosts
        report.recorder = counts
        report.notes = notes
        Terminal.print(report.render(options: options) + ["", "input: \(input.kind.rawValue)"])
        try finish(notes: notes)
    }
}
