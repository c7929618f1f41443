import TraceInputs
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
            .flag("json", "The same as --format json (JSON Lines: one object per request, see COLUMNS below)"),
        ] + OptionSpec.display + [Pager.option],
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
            Column("runtime", "the runtime's id within its process", .integer),
            Column("pid", "its process (null when the trace has none)", .orNull(.integer)),
            Column("dispatch", "the request's dispatch id", .integer), Column("style", "send, request, uniqueRequest, ..."),
            Column("label", "its event"), Column("outcome", "response, error, ..."),
            Column("start_ns", "its dispatch (CLOCK_MONOTONIC ns)", .integer), Column("total_ns", "dispatch to resume", .integer),
            Column("trace_id", "the W3C trace id it was dispatched under (null for none)", .orNull(.string)),
            Column("parent_span_id", "the caller's span id it was dispatched under (null for none)", .orNull(.string)),
            Column(
                "parts", "JSON array of {name, title, ns, cycle, task, dispatch, held_by}; the ns add up to total_ns",
                .json(partsSchema)),
        ], row: "request shown (slowest first)")

    /// The shape of `parts`: what ``LatencyBreakdown/partsJSON()`` writes.
    static let partsSchema =
        #"{"items":{"additionalProperties":false,"properties":{"cycle":{"minimum":0,"type":"integer"},"dispatch":{"minimum":0,"type":"integer"},"#
        + #""held_by":{"items":{"additionalProperties":false,"properties":{"action_ns":{"minimum":0,"type":"integer"},"#
        + #""async_action_ns":{"minimum":0,"type":"integer"},"cycle":{"minimum":0,"type":"integer"},"label":{"type":"string"},"#
        + #""ns":{"minimum":0,"type":"integer"}},"required":["cycle","label","ns","action_ns","async_action_ns"],"type":"object"},"#
        + #""type":"array"},"name":{"type":"string"},"ns":{"minimum":0,"type":"integer"},"task":{"minimum":0,"type":"integer"},"#
        + #""title":{"type":"string"}},"required":["name","title","ns"],"type":"object"},"type":"array"}"#

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let source = try TraceSource(args, access: .passes)
        let top = try args.integer("top") ?? 10
        guard top >= 1 && top <= 100_000 else { throw CLIError.usage("--top must be between 1 and 100000") }
        let threshold = try args.duration("over")
        let event = args.options["event"]
        var labels: Set<String> = []
        // Two passes, neither holding the trace: latencies first, then the breakdowns of only
        // the requests shown and those at their label's p99.
        let slow = try SlowRequests(top: Int(top), threshold: threshold, event: event) { body in
            guard source.passes == 0 else { return try source.pass(body) }
            try source.pass {
                if $0.kind == .dispatch && labels.count < 65_536 { labels.insert($0.label) }
                body($0)
            }
        }
        if let event, !labels.contains(event) {
            let labels = labels.sorted()
            throw CLIError(
                "no dispatch of event '\(event)' in this trace; it has "
                    + (labels.isEmpty
                        ? "no dispatches" : labels.prefix(10).joined(separator: ", ") + (labels.count > 10 ? ", …" : "")),
                .nothingSelected)
        }
        let format = try TableFormat(args)
        if args.flag("json"), args.options["format"].map({ $0 != "json" }) == true {
            throw CLIError.usage("--json is --format json: it does not go with --format \(format.rawValue)")
        }
        if format == .text && !args.flag("json") {
            Terminal.print(slow.render(options: options), options: options)
        } else {
            table.print(
                slow.shown.map { b in
                    TableCell.runtime(b.runtime) + [
                        .number(b.dispatch), .string(b.styleName), .string(b.label), .string(b.outcomeName), .number(b.start),
                        .number(b.total), b.traceContext.map { .string($0.traceID) } ?? .null,
                        b.traceContext.map { .string($0.spanIDHex) } ?? .null, .json(b.partsJSON()),
                    ]
                }, format: args.flag("json") ? .json : format)
        }
        try finish(notes: source.notes)
    }
}
