/// Which runtimes have awaited requests waiting, event by event, and the most at once: a census
/// pass's count of how many groups the passes that break requests down split the runtimes into
/// (``BreakdownPasses``).
///
/// Per runtime, the waiting requests' dispatch ids only (not their windows: the census follows
/// every runtime at once, and at 25.6M events in 200,000 runtimes open at once their gates took
/// 200 MB before the first breakdown). A runtime's table goes when its last request resumes.
package struct RuntimesWaiting {
    private var waiting = PerRuntime<SmallTable<UInt64, Void>>()
    /// The most runtimes with requests waiting at once.
    package private(set) var peak = 0

    package init() {}

    /// The requests still waiting, per runtime: after the last event, those dispatched and
    /// never resumed.
    var stillWaiting: [RuntimeKey: IDRanges] {
        var sets: [RuntimeKey: IDRanges] = [:]
        for runtime in waiting.keys {
            waiting.state(runtime)?.forEach { id, _ in sets[runtime, default: IDRanges()].insert(id) }
        }
        return sets
    }

    /// Takes the next event of the trace, in order: true when it resumed a request whose
    /// awaited dispatch it took before (a request a breakdown pass breaks down).
    @discardableResult
    package mutating func consume(_ e: TraceEvent) -> Bool {
        switch e.kind {
        case .dispatch where e.isAwaitedDispatch:
            let slot = waiting.slot(e.runtimeKey) { SmallTable() }
            waiting[slot: slot][e.dispatch] = ()
            peak = max(peak, waiting.count)
            return false
        case .requestResume:
            guard let slot = waiting.slot(e.runtimeKey), waiting[slot: slot].removeValue(forKey: e.dispatch) != nil else {
                return false
            }
            if waiting[slot: slot].isEmpty { waiting.release(slot, leaving: SmallTable()) }
            return true
        default:
            return false
        }
    }
}
