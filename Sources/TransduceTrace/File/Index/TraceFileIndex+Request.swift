extension TraceFileIndex {
    /// Finds dispatch #`dispatch`'s lifecycle (`LifecycleWindow/find(dispatch:maxPasses:read:)`)
    /// in the file at `path` that this index describes, reading only from the place its view
    /// reaches back to (``plan(dispatch:admits:)``) until it is settled past every place the
    /// dispatch can be, and `margin` events more (records of several threads come slightly out
    /// of order). Only the events `admits` accepts count, of the runtimes `admitsRuntime` accepts
    /// (the same selection). No runtime has it when the plan has no start; when more than
    /// `LifecycleWindow/maxRuntimes` may (the index's ranges of their dispatches hold it),
    /// nothing is read and the found runtimes are those, without stretches.
    ///
    /// The stretches it finds count positions from the plan's start: read them with
    /// ``events(of:runtime:from:path:admits:)``.
    package func findLifecycle(
        of dispatch: UInt64, path: String, admits: (TraceEvent) -> Bool, admitsRuntime: (RuntimeKey) -> Bool,
        margin: Int = TraceFileFormat.eventsPerChunk
    ) throws -> (found: LifecycleWindow.Found, plan: Plan) {
        let plan = self.plan(dispatch: dispatch, admits: admitsRuntime)
        guard let start = plan.start, plan.runtimes.count <= LifecycleWindow.maxRuntimes else {
            // None, or more runtimes than a view reads at once for the caller to pick one of (each
            // one's stretch would be read and held: 665 MB at 10M events in 78,126 runtimes):
            // named from the index alone.
            return (
                LifecycleWindow.Found(runtimes: plan.runtimes, highestDispatch: plan.highestDispatch, stretches: [:], passes: 0),
                plan
            )
        }
        let found = try LifecycleWindow.find(dispatch: dispatch) { body, settled in
            let reader = try self.reader(path: path, from: start)
            // Counted here: the reader counts once a chunk while it hands events over.
            var position = reader.eventCount
            var stopAt = Int.max
            reader.forEach(while: { position < stopAt }) { event in
                position += 1
                if admits(event) { body(event) }
                if stopAt == .max, position >= plan.through, settled() { stopAt = position + margin }
            }
        }
        return (found, plan)
    }

    /// What a view of the request reads in `runtime` (`LifecycleWindow/Reader`: its
    /// lifecycle's events and its breakdown's, of the stretch ``findLifecycle(of:path:admits:admitsRuntime:margin:)``
    /// found, counted from `start`) of the file at `path`, read from `start` to the stretch's end.
    package func events(
        of found: LifecycleWindow.Found, runtime: RuntimeKey, from start: TraceFileReader.Resume, path: String,
        admits: (TraceEvent) -> Bool
    ) throws -> [TraceEvent] {
        var view = LifecycleWindow.Reader(found, runtime: runtime)
        let reader = try self.reader(path: path, from: start)
        reader.forEach(while: { !view.isPast }) { event in
            if admits(event) { view.consume(event) }
        }
        return view.take()
    }
}
