import TraceInputs
import Transduce
import TransduceTrace

/// What the terminal UI and the report add to the library's ``TraceOverview``: the runtime
/// column's width, a request's diagram as text, and its details read through a trace file's
/// index (which this tool owns).
extension TraceOverview {
    /// The runtime column's width: its names (`3 (pid 4242)` when the trace has pids), 9 to 24.
    /// With runtimes kept together, the requests and tasks of those name runtimes no row shows:
    /// a few more columns than the whole ones' names. (Worked out on each draw: at most
    /// ``RuntimeLanes/maxWhole`` and one gates.)
    var runtimeWidth: Int {
        let widest = gates.lazy.map { $0.name.count + 2 }.max() ?? 0
        return min(24, max(9, widest + (gates.contains { $0.together > 0 } ? 3 : 0)))
    }

    /// The sequence diagram of one request's lifecycle, at `width` columns.
    func diagram(of request: Request, options: RenderOptions) -> [String] {
        guard let (index, indices) = lifecycle(of: request) else { return ["(the trace could not be read again)"] }
        var lines: [String] = []
        SequenceDiagram(index: index, options: options, origin: start).render(indices, progress: { _ in }) { lines.append($0) }
        if let breakdown = index.latencyBreakdown(runtime: request.runtime, dispatch: request.dispatch) {
            lines.append("")
            lines += breakdown.render(options: options)
        }
        return lines
    }

    /// Reads a request's chart (and so its largest part) from `index`, the index of the trace
    /// file at `path`, when it is asked for: the diagrams, and the largest part of each request
    /// a screen shows, remembered once found.
    mutating func readDetails(through index: TraceFileIndex, path: String) {
        let lifecycle = { (request: Request) throws -> [TraceEvent] in
            try IndexedRequest.events(
                of: request.dispatch, in: index, path: path, selection: Selection(key: request.runtime)
            ).events
        }
        self.lifecycle = lifecycle
        let found = Lock<[TraceIndex.Key: String]>([:])
        dominantPart = { request in
            let key = TraceIndex.Key(runtime: request.runtime, id: request.dispatch)
            if let part = found.withLock({ $0[key] }) { return part }
            let events = (try? lifecycle(request)) ?? []
            let part = Self.dominant(
                of: TraceIndex(events).latencyBreakdown(runtime: request.runtime, dispatch: request.dispatch))
            found.withLock { $0[key] = part }
            return part
        }
    }
}
