import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `trace-view sequence`: the request-lifecycle sequence diagram.
enum SequenceCommand: Subcommand {
    static let spec = CommandSpec(
        name: "sequence", abstract: "Draw the request-lifecycle sequence diagram",
        options: OptionSpec.selection + [
            OptionSpec(
                "request", "ID",
                "Only dispatch #ID's lifecycle, whatever its style: its cycles, what they cancelled, the tasks they started or joined (to their end), the tasks' re-entries and requests, and its resume"
            ),
            OptionSpec(
                "from", "T",
                "Start of the time window: a duration from the trace's first event (5ms, 250us; a bare number is ns), or an absolute CLOCK_MONOTONIC time"
            ),
            OptionSpec("to", "T", "End of the time window, likewise"),
            .flag(
                "no-index",
                "With --request on a trace file: read the whole file, not the index kept beside it (TRACE.tdidx)"),
        ] + OptionSpec.display + [Pager.option],
        discussion: """
            Draws lifelines for callers, the compute gate, transduce(), the task manager and
            task instances, with times (ms from the trace's first event) and durations. Task
            lanes go to the tasks live in the rows shown; a row names a lane's new task. The chart
            of an awaited --request ends with its latency breakdown (see 'slow').

            --request on a trace file reads only the part of it the request's chart draws, found
            through an index of the file: built in one pass the first time and kept beside the
            trace as TRACE.tdidx (rebuilt whenever the trace changes), so later requests of the
            same trace take well under a second whatever its size.
            """)

    static func run(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        let progress = Progress()
        let requested = try args.integer("request")
        let index: TraceIndex
        let notes: [String]
        let startTime: UInt64?
        var request: (runtime: RuntimeKey, dispatch: UInt64)?
        if let id = requested, !args.flag("no-index"), let file = try input.fileIndex(progress: progress) {
            // One request of a trace file, read through its index: only the stretch it draws.
            selection.count(runtimes: file.runtimes.map(\.key), events: file.events)
            try selection.check()
            guard file.firstTime != nil else {
                Terminal.print(["(no events)"])
                return try finish(notes: file.notes)
            }
            let found = try IndexedRequest.events(of: id, in: file, path: input.path, selection: selection)
            index = TraceIndex(found.events)
            request = (found.runtime, id)
            notes = file.notes
            startTime = file.firstTime
        } else if let id = requested, input.rereadable {
            // One request of a file: passes that keep only its own objects find where it lies,
            // and only that stretch of its runtime is read back and indexed.
            var first: (notes: [String], counts: TraceCounts?)?
            var start: UInt64?
            let read = { (body: (TraceEvent) -> Void) throws in
                if first == nil {
                    first = try input.forEach(progress: progress) {
                        start = min(start ?? $0.time, $0.time)
                        if selection.keep($0) { body($0) }
                    }
                } else {
                    try TraceInput(path: input.path, allProcesses: args.flag("all-processes")).forEach {
                        if selection.keep($0) { body($0) }
                    }
                }
            }
            let found = try LifecycleWindow.find(dispatch: id, read: read)
            try selection.check()
            guard start != nil else {
                Terminal.print(["(no events)"])
                return try finish(notes: first?.notes ?? [])
            }
            let runtime = try selection.runtime(holding: id, among: found.runtimes, highest: found.highestDispatch)
            index = TraceIndex(try LifecycleWindow.events(of: found, runtime: runtime, read: read))
            request = (runtime, id)
            notes = first?.notes ?? []
            startTime = start
        } else {
            let (trace, start) = try input.load(progress: progress) { selection.keep($0) }
            try selection.check()
            // Index the whole runtime selection, so names and links resolve outside the window too.
            index = TraceIndex(trace.events)
            if let id = requested { request = (try selection.runtime(holding: id, in: index), id) }
            notes = trace.notes
            startTime = start
        }
        // Times count from the trace's start, whatever is shown, so views of one trace agree.
        guard let start = startTime else {
            Terminal.print(["(no events)"])
            return try finish(notes: notes)
        }
        let window = try Window(args, start: start)
        let events = index.events
        let indices =
            (request.map { index.requestLifecycle(runtime: $0.runtime, dispatch: $0.dispatch) }
            ?? Array(events.indices)).filter { window.contains(events[$0].time) }
        var out = OutputStream(options: options)
        // Progress while drawing only when the diagram is not going to the same terminal.
        let drawing = Terminal.outputIsTerminal ? nil : progress
        SequenceDiagram(index: index, options: options, origin: start).render(
            indices, progress: { drawing?.update("drew \($0) of \(indices.count) rows") }
        ) { out.line($0) }
        drawing?.done()
        // A request's chart ends with why it took as long as it did.
        if let request, window.isOpen,
            let breakdown = index.latencyBreakdown(runtime: request.runtime, dispatch: request.dispatch)
        {
            out.line("")
            for line in breakdown.render(options: options) { out.line(line) }
        }
        out.flush()
        try finish(notes: notes)
    }
}
