/// ``InvariantRule/idsUsedOnce``: a runtime's dispatch ids and cycle ids are each used once (a
/// dispatch event per dispatch id, a cycle's enter per cycle id).
///
/// Memory follows the gaps in the ids seen (``IDRanges``: a runtime issues them in order, so they
/// form a few long runs), not their number.
struct IDsUsedOnce: TraceRule {
    var invariant: InvariantRule { .idsUsedOnce }
    private var dispatches: [RuntimeKey: IDRanges] = [:]
    private var cycles: [RuntimeKey: IDRanges] = [:]
    /// The first event of each id, while there are few: a finding shows both uses.
    private var firsts: [TraceIndex.Key: TraceEvent] = [:]

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        let id: UInt64
        let what: String
        switch e.kind {
        case .dispatch: (id, what) = (e.dispatch, "dispatch #\(e.dispatch) was dispatched twice")
        case .cycleEnter: (id, what) = (e.cycle, "cycle #\(e.cycle) was entered twice")
        default: return
        }
        // One key space for both kinds: the id shifted, the kind in the low bit.
        let key = TraceIndex.Key(runtime: e.runtimeKey, id: id << 1 | (e.kind == .dispatch ? 0 : 1))
        if e.kind == .dispatch ? dispatches[e.runtimeKey]?.contains(id) == true : cycles[e.runtimeKey]?.contains(id) == true {
            report(Finding(e.runtimeKey, what, (firsts[key].map { [$0] } ?? []) + [e]))
            return
        }
        if e.kind == .dispatch {
            dispatches[e.runtimeKey, default: IDRanges()].insert(id)
        } else {
            cycles[e.runtimeKey, default: IDRanges()].insert(id)
        }
        if firsts.count < 4_096 { firsts[key] = e }
    }
}
