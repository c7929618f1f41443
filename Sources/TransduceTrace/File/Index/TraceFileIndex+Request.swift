extension TraceFileIndex {
    /// Finds dispatch #`dispatch`'s lifecycle (``LifecycleWindow/find(dispatch:maxPasses:read:)``)
    /// in the file at `path` that this index describes, reading only from the place its view
    /// reaches back to (``plan(dispatch:admits:)``) until it is settled past every place the
    /// dispatch can be, and `margin` events more (records of several threads come slightly out
    /// of order). Only the events `admits` accepts count, of the runtimes `admitsRuntime` accepts
    /// (the same selection). No runtime has it when the plan has no start.
    ///
    /// The stretches it finds count positions from the plan's start: read them with
    /// ``events(of:in:from:path:admits:)``.
    package func findLifecycle(
        of dispatch: UInt64, path: String, admits: (TraceEvent) -> Bool, admitsRuntime: (RuntimeKey) -> Bool,
        margin: Int = TraceFileFormat.eventsPerChunk
    ) throws -> (found: LifecycleWindow.Found, plan: Plan) {
        let plan = self.plan(dispatch: dispatch, admits: admitsRuntime)
        guard let start = plan.start else {
            return (LifecycleWindow.Found(runtimes: [], highestDispatch: plan.highestDispatch, stretches: [:], passes: 0), plan)
        }
        let found = try LifecycleWindow.find(dispatch: dispatch) { body, settled in
            let reader = try self.reader(path: path, from: start)
            var stopAt = Int.max
            reader.forEach(while: { reader.eventCount < stopAt }) { event in
                if admits(event) { body(event) }
                if stopAt == .max, reader.eventCount >= plan.through, settled() { stopAt = reader.eventCount + margin }
            }
        }
        return (found, plan)
    }

    /// The events of `runtime` at positions `stretch` (from ``findLifecycle(of:path:admits:admitsRuntime:margin:)``,
    /// counted from `start`) of the file at `path`, read from `start` to the stretch's end.
    package func events(
        of runtime: RuntimeKey, in stretch: ClosedRange<Int>, from start: TraceFileReader.Resume, path: String,
        admits: (TraceEvent) -> Bool
    ) throws -> [TraceEvent] {
        var events: [TraceEvent] = []
        var position = 0
        try reader(path: path, from: start).forEach(while: { position <= stretch.upperBound }) { event in
            guard admits(event) else { return }
            if stretch.contains(position) && event.runtimeKey == runtime { events.append(event) }
            position += 1
        }
        return events
    }
}
