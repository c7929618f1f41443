extension TraceIndex {
    /// A request's lifecycle (``requestLifecycle(runtime:dispatch:)``) plus the cycles of other
    /// dispatches that entered while it was in flight, with their dispatches, transduce steps and
    /// resumes: what shows that the gate was released while the request waited. Sorted event
    /// indices.
    public func lifecycleWithConcurrentCycles(runtime: RuntimeKey, dispatch: UInt64) -> [Int] {
        let own = requestLifecycle(runtime: runtime, dispatch: dispatch)
        guard let first = own.first, let last = own.last else { return own }
        var all = Set(own)
        for (key, cycle) in cycles where key.runtime == runtime && cycle.enter > first && cycle.enter < last {
            guard let dispatchRecord = dispatches[Key(runtime: runtime, id: cycle.dispatch)] else { continue }
            all.insert(dispatchRecord.event)
            all.insert(cycle.enter)
            if let leave = cycle.leave { all.insert(leave) }
            all.formUnion(cycle.events.filter { events[$0].kind == .transduce })
            all.formUnion(dispatchRecord.resumes)
        }
        return all.sorted()
    }
}
