/// ``InvariantRule/causalOrder``: what causes an event comes before it on the one clock every
/// event is timed by: a dispatch's cycle enters after the dispatch was made, a caller is resumed
/// after its dispatch, a cycle leaves after it entered.
///
/// (Each thread's own times do not always rise: the runtime times some events when it decides
/// them and records them a little later, so a thread's records can step back by microseconds.
/// Cause and effect cannot.) Memory: the dispatches not yet entered or resumed and the open cycles.
struct CausalOrder: TraceRule {
    var invariant: InvariantRule { .causalOrder }
    /// Each dispatch still to enter or to be resumed: its event, and whether a resume follows.
    private var dispatched: [TraceIndex.Key: (stamp: EventStamp, awaited: Bool)] = [:]
    private var entered: [RuntimeKey: TraceEvent] = [:]

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)
        switch e.kind {
        case .dispatch:
            dispatched[key] = (EventStamp(e), e.isAwaitedDispatch)
        case .cycleEnter:
            entered[e.runtimeKey] = e
            guard let (dispatch, awaited) = dispatched[key] else { return }
            if e.time < dispatch.time {
                report(
                    Finding(
                        e.runtimeKey, "cycle #\(e.cycle) entered before its dispatch #\(e.dispatch) was made",
                        [dispatch.event(runtime: key.runtime, dispatch: key.id), e]))
            }
            if !awaited { dispatched[key] = nil }
        case .requestResume:
            guard let (dispatch, _) = dispatched.removeValue(forKey: key) else { return }
            if e.time < dispatch.time {
                report(
                    Finding(
                        e.runtimeKey, "dispatch #\(e.dispatch) was resumed before it was made",
                        [dispatch.event(runtime: key.runtime, dispatch: key.id), e]))
            }
        case .cycleLeave:
            guard let enter = entered[e.runtimeKey], enter.cycle == e.cycle else { return }
            entered[e.runtimeKey] = nil
            if e.time < enter.time {
                report(Finding(e.runtimeKey, "cycle #\(e.cycle) left before it entered", [enter, e]))
            }
        default:
            break
        }
    }
}
