import TransduceTrace

/// What a report counts of the whole trace, before any cut to its limits (the page says how many
/// of each it shows): awaited requests dispatched and task instances spawned.
struct ReportTotals {
    private(set) var requests = 0
    private(set) var tasks = 0

    mutating func consume(_ e: TraceEvent) {
        switch e.kind {
        case .dispatch where e.isAwaitedDispatch: requests += 1
        case .taskSpawn: tasks += 1
        default: break
        }
    }
}
