import TransduceTrace

/// `trace-view tasks`: every task instance and its fate.
enum TasksCommand: Subcommand {
    static let spec = CommandSpec(
        name: "tasks", abstract: "Every task instance: policy, run time, outcome, replaced-by, joined-by",
        options: OptionSpec.selection + OptionSpec.display,
        discussion: """
            Every task instance with name, policy, spawning event, run time, outcome and the task
            that replaced it or the dispatches that joined it; warnings for tasks that never
            ended and for switchToLatest churn (instances replaced again and again, none done).
            """)

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        var events: [TraceEvent] = []
        let (notes, counts) = try input.forEach(progress: Progress()) { if selection.keep($0) { events.append($0) } }
        try selection.check()
        let c = counts ?? TraceCounts()
        let lost = c.overwritten.plus(c.discarded).plus(c.lost)
        Terminal.print(
            TaskReport(index: TraceIndex(events), lost: lost, lossesUnknown: input.lossesUnknown).render(options: options))
        try finish(notes: notes)
    }
}
