import TransduceTrace

/// `trace-view slow`: the slowest requests, each latency split into its parts.
enum SlowCommand: Subcommand {
    static let spec = CommandSpec(
        name: "slow", abstract: "The slowest requests, each latency split into the parts that made it",
        options: [
            OptionSpec("top", "N", "How many to list (default 10)"),
            OptionSpec("over", "T", "Only requests that took T or more (250us, 5ms, 1.5s)"),
            OptionSpec("event", "LABEL", "Only requests of this event"),
        ] + OptionSpec.selection + [
            TableFormat.option,
            .flag(
                "json",
                "One object per request: dispatch, label, style, outcome, total_ns, and parts ({name, title, ns, cycle, task, dispatch, held_by}) whose ns add up to total_ns"
            ),
        ] + OptionSpec.display,
        discussion: """
            The slowest awaited requests (send, request, uniqueRequest, and requests made inside
            tasks), each with its latency from dispatch to resume split along its critical path:
            the admission's wait for the gate (and which cycles held it, in actions or not), its
            cycles (transduce, actions, async actions), the tasks that carried its waiter (run,
            joined, replaced, cancelled), re-entry waits and cycles, and the resume. The parts add
            up to the latency exactly. The three slowest are broken down in full.
            """,
        epilogue: """
            An app can keep such traces itself: with TRANSDUCE_SLOW=50ms (and TRANSDUCE_SLOW_DIR,
            TRANSDUCE_SLOW_EVERY) its bootstrapped recorder dumps the ring when a request is slow.

            """ + table.help)

    static let table = TableSchema(
        columns: [
            ("runtime", "the runtime's id within its process"), ("pid", "its process (null when the trace has none)"),
            ("dispatch", "the request's dispatch id"), ("style", "send, request, uniqueRequest, ..."),
            ("label", "its event"), ("outcome", "response, error, ..."), ("start_ns", "its dispatch (CLOCK_MONOTONIC ns)"),
            ("total_ns", "dispatch to resume"),
            ("parts", "JSON array of {name, title, ns, cycle, task, dispatch, held_by}; the ns add up to total_ns"),
        ], row: "request shown (slowest first)")

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        let top = try args.integer("top") ?? 10
        guard top >= 1 && top <= 100_000 else { throw CLIError.usage("--top must be between 1 and 100000") }
        let threshold = try args.duration("over")
        let event = args.options["event"]
        let slow: SlowRequests
        let notes: [String]
        var labels: Set<String> = []
        if input.rereadable {
            // Two passes, neither holding the trace: latencies first, then the breakdowns of only
            // the requests shown and those at their label's p99.
            var first: (notes: [String], counts: TraceCounts?)?
            slow = try SlowRequests(top: Int(top), threshold: threshold, event: event) { body in
                if first == nil {
                    first = try input.forEach(progress: Progress()) {
                        guard selection.keep($0) else { return }
                        if $0.kind == .dispatch && labels.count < 65_536 { labels.insert($0.label) }
                        body($0)
                    }
                } else {
                    try TraceInput(path: input.path, allProcesses: args.flag("all-processes")).forEach {
                        if selection.keep($0) { body($0) }
                    }
                }
            }
            notes = first?.notes ?? []
        } else {
            let trace = try input.load(progress: Progress()) { selection.keep($0) }.trace
            let index = TraceIndex(trace.events)
            slow = SlowRequests(index: index, top: Int(top), threshold: threshold, event: event)
            notes = trace.notes
            labels = Set(index.events.lazy.filter { $0.kind == .dispatch }.map(\.label))
        }
        try selection.check()
        if let event, !labels.contains(event) {
            let labels = labels.sorted()
            throw CLIError(
                "no dispatch of event '\(event)' in this trace; it has "
                    + (labels.isEmpty
                        ? "no dispatches" : labels.prefix(10).joined(separator: ", ") + (labels.count > 10 ? ", …" : "")),
                .nothingSelected)
        }
        let format = try TableFormat(args)
        if args.flag("json") {
            Terminal.print(slow.json())
        } else if format == .text {
            Terminal.print(slow.render(options: options), options: options)
        } else {
            table.print(
                slow.shown.map { b in
                    TableCell.runtime(b.runtime) + [
                        .number(b.dispatch), .string(b.styleName), .string(b.label), .string(b.outcomeName), .number(b.start),
                        .number(b.total), .json(b.partsJSON()),
                    ]
                }, format: format)
        }
        try finish(notes: notes)
    }
}
