/// ``InvariantRule/fifoAdmission``: a dispatch enters the gate only when every dispatch accepted
/// before it has entered (a stop clears what was waiting).
struct FIFOAdmission: TraceRule {
    var invariant: InvariantRule { .fifoAdmission }

    /// Per runtime, its accepted dispatches not entered yet, in order, each with its stamp (one
    /// array: a dictionary beside it for the stamps cost tens of thousands of runtimes open at
    /// once twice the storage, and the entry's place is searched for anyway).
    private var queues: [RuntimeKey: [(dispatch: UInt64, stamp: EventStamp)]] = [:]

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        switch e.kind {
        case .dispatch:
            queues[e.runtimeKey, default: []].append((e.dispatch, EventStamp(e)))
        case .cycleEnter:
            // Taken out while it is updated, so its storage is not copied.
            guard var q = queues.removeValue(forKey: e.runtimeKey) else { return }
            // An emptied queue is let go, not put back: its storage is as large as the runtime's
            // deepest backlog, and tens of thousands of runtimes are open at once in a trace of a
            // runtime per connection (85 MB at 10M events in 78,126 runtimes).
            defer { if !q.isEmpty { queues[e.runtimeKey] = q } }
            guard let position = q.firstIndex(where: { $0.dispatch == e.dispatch }) else { return }
            if position > 0 {
                let first = q[0]
                report(
                    Finding(
                        e.runtimeKey,
                        "dispatch #\(e.dispatch) entered before dispatch #\(first.dispatch), which was accepted first",
                        [
                            first.stamp.event(runtime: e.runtimeKey, dispatch: first.dispatch),
                            q[position].stamp.event(runtime: e.runtimeKey, dispatch: e.dispatch), e,
                        ], restsOnAMissingEvent: true))
            }
            q.remove(at: position)
        case .runtimeStop:
            queues[e.runtimeKey] = nil
        default:
            break
        }
    }
}
