/// ``InvariantRule/fifoAdmission``: a dispatch enters the gate only when every dispatch accepted
/// before it has entered (a stop clears what was waiting).
struct FIFOAdmission: TraceRule {
    var invariant: InvariantRule { .fifoAdmission }

    private struct Queue {
        var accepted: [UInt64] = []
        var acceptedAt: [UInt64: EventStamp] = [:]
    }
    private var queues: [RuntimeKey: Queue] = [:]

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        switch e.kind {
        case .dispatch:
            queues[e.runtimeKey, default: Queue()].accepted.append(e.dispatch)
            queues[e.runtimeKey, default: Queue()].acceptedAt[e.dispatch] = EventStamp(e)
        case .cycleEnter:
            // Taken out while it is updated, so its collections are not copied.
            guard var q = queues.removeValue(forKey: e.runtimeKey) else { return }
            // An emptied queue is let go, not put back: its storage is as large as the runtime's
            // deepest backlog, and tens of thousands of runtimes are open at once in a trace of a
            // runtime per connection (85 MB at 10M events in 78,126 runtimes).
            defer { if !q.accepted.isEmpty { queues[e.runtimeKey] = q } }
            guard let position = q.accepted.firstIndex(of: e.dispatch) else { return }
            if position > 0, let first = q.acceptedAt[q.accepted[0]] {
                let firstID = q.accepted[0]
                let own = q.acceptedAt[e.dispatch].map { [$0.event(runtime: e.runtimeKey, dispatch: e.dispatch)] }
                report(
                    Finding(
                        e.runtimeKey,
                        "dispatch #\(e.dispatch) entered before dispatch #\(firstID), which was accepted first",
                        [first.event(runtime: e.runtimeKey, dispatch: firstID)] + (own ?? []) + [e], restsOnAMissingEvent: true))
            }
            q.accepted.remove(at: position)
            q.acceptedAt[e.dispatch] = nil
        case .runtimeStop:
            queues[e.runtimeKey] = nil
        default:
            break
        }
    }
}
