import TraceInputs
import TransduceTrace

/// `trace-view report`: one self-contained HTML page of a trace (``ReportModel`` drawn by
/// ``ReportPage``), read as a stream in memory that follows what the page holds, not the trace.
enum ReportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "report", abstract: "One self-contained HTML page: timeline, requests, gate, tasks, warnings",
        options: [
            OptionSpec("output", "FILE", "Write to FILE instead of standard output (atomically where FILE is a regular file)"),
            OptionSpec(
                "baseline", "BASE",
                "Compare with the run of trace BASE, as diff BASE TRACE does, in a section that draws both latency distributions"
            ),
        ] + OptionSpec.selection,
        discussion: """
            Writes one HTML file with everything inline (styles, script, SVG; no network, no
            fonts) that opens from disk in any current browser: a timeline of each runtime's gate
            cycles (coloured by event, async ones marked), task instances and requests (zoom with
            the wheel or + and -, pan by dragging or with the arrow keys, 0 resets); click a
            request, or its row, for its sequence diagram and latency breakdown, with its path
            (dispatch, cycles, tasks, resume) drawn on the timeline; the gate's wait and hold
            histograms, hold by event and by action, the longest waits and their holders, the
            queue depth over time; a sortable, filterable table of the requests and of the tasks
            (policy, run time, fate, replaced by, joined by); the warnings; the summary. A page
            holds at most the 10,000 slowest requests, the 10,000 longest-running tasks and the
            20,000 longest cycles (the rest as the share of time they held the gate), the diagrams
            of the first 100 requests, and a gate card and timeline lane for each of the first
            \(RuntimeLanes.maxWhole) runtimes (the others on one, together); its top says what was
            left out. With --baseline BASE, a section compares the trace with the run of BASE as
            `diff BASE TRACE` does (verdicts, figures, the parts that moved, requests paired by
            trace context, gates, warnings), drawing each request key's two latency
            distributions on one axis; TRACE must then be a file (it is read again for that).
            page.html#request=D
            (or #request=R.D, R the runtime's place among the gate cards, from 0) opens dispatch D's
            detail.
            """)

    static func run(_ args: Arguments) throws {
        // The comparison first: a wrong baseline fails before the page is read.
        var baseline: ReportBaseline?
        if let base = args.options["baseline"] {
            let trace = try args.trace()
            guard trace != "-" else { throw CLIError.usage("--baseline needs TRACE to be a file: it is read again") }
            let (old, oldNotes) = try DiffCommand.profile(base, args)
            let (new, newNotes) = try DiffCommand.profile(trace, args)
            try finish(notes: oldNotes + newNotes)
            baseline = ReportBaseline(base: old.profile, new: new.profile, source: old.name)
        }
        let source = try TraceSource(args, access: .seeks)
        let output = try OutputFile(path: args.options["output"])
        var limits = ReportModel.Limits()
        var cycles = ReportCycles(limit: limits.cycles)
        var totals = ReportTotals()
        // Read as a stream, through the index of the file the passes read (the trace file's,
        // found or built in a pass of its own first, or its copy's) for the diagrams; a second
        // pass finds the largest parts (as tui).
        let read = { (body: (TraceEvent) -> Void) throws in
            guard source.passes == 0 else { return try source.pass(body) }
            try source.pass {
                body($0)
                cycles.consume($0)
                totals.consume($0)
            }
        }
        var data = try TraceOverview(reading: read, hosts: { source.hosts }, maxRows: limits.requests)
        let counts = source.counts ?? TraceCounts()
        data.lost = counts.overwritten + counts.discarded
        if let index = source.index, let path = source.passPath {
            data.readDetails(through: index, path: path)
        } else {
            // No index (the file changed as it was read): each diagram then reads it again, as
            // many as take about four passes of a million events.
            limits.diagrams = max(5, min(limits.diagrams, Int(2_000_000 / max(1, data.events))))
        }
        cycles.finish()
        var (model, diagrams) = ReportModel.make(
            data: data, cycles: cycles, totals: totals, source: source.name, hosts: source.hosts, limits: limits)
        model.baseline = baseline
        // Written as it is made, in 64 KiB writes: the page is never whole in memory.
        var buffer: [UInt8] = []
        ReportPage.write(model: model, diagrams: diagrams) { piece in
            buffer.append(contentsOf: piece.utf8)
            if buffer.count >= 1 << 16 {
                output.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        output.write(buffer)
        try output.close()
        try finish(notes: source.notes)
    }
}
