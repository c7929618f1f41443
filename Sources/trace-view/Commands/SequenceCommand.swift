import TraceInputs
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
        let requested = try args.integer("request")
        // One request is read in passes (through the index of the file the passes read, unless
        // --no-index); the whole chart holds the selection.
        let source = try TraceSource(args, access: requested == nil ? .once : args.flag("no-index") ? .passes : .seeks)
        let index: TraceIndex
        var request: (runtime: RuntimeKey, dispatch: UInt64)?
        if let id = requested, !args.flag("no-index"), let file = try source.seekIndex(), let path = source.passPath {
            // One request, read through the index: only the stretch it draws.
            guard file.firstTime != nil else {
                Terminal.print(["(no events)"])
                return try finish(notes: source.notes)
            }
            let found = try IndexedRequest.events(of: id, in: file, path: path, selection: source.selection)
            index = TraceIndex(found.events)
            request = (found.runtime, id)
        } else if let id = requested {
            // One request, found in passes that keep only its own objects; only that stretch of
            // its runtime is read back and indexed.
            let found = try LifecycleWindow.find(dispatch: id, read: source.pass)
            guard source.firstTime != nil else {
                Terminal.print(["(no events)"])
                return try finish(notes: source.notes)
            }
            let runtime = try source.selection.runtime(holding: id, among: found.runtimes, highest: found.highestDispatch)
            index = TraceIndex(try LifecycleWindow.events(of: found, runtime: runtime, read: source.pass))
            request = (runtime, id)
        } else {
            // Index the whole runtime selection, so names and links resolve outside the window too.
            index = TraceIndex(try source.hold().trace.events)
        }
        let notes = source.notes
        let startTime = source.firstTime
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
        let drawing = Terminal.outputIsTerminal ? nil : Progress()
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
