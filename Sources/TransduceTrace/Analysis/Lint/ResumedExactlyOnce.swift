/// ``InvariantRule/resumedExactlyOnce``: every awaited dispatch gets one resume; in a whole trace,
/// none is left without one.
struct ResumedExactlyOnce: TraceRule {
    var invariant: InvariantRule { .resumedExactlyOnce }
    let whole: Bool
    private var awaited: [TraceIndex.Key: (dispatch: TraceEvent, resumes: [TraceEvent])] = [:]

    init(whole: Bool) { self.whole = whole }

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        switch e.kind {
        case .dispatch where e.isAwaitedDispatch:
            awaited[TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)] = (e, [])
        case .requestResume:
            awaited[TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)]?.resumes.append(e)
        default:
            break
        }
    }

    mutating func finish(report: (Finding) -> Void) {
        for (key, entry) in awaited.sorted(by: { $0.value.dispatch.time < $1.value.dispatch.time }) {
            if entry.resumes.count > 1 {
                report(
                    Finding(
                        key.runtime, "dispatch #\(key.id) was resumed \(entry.resumes.count) times",
                        [entry.dispatch] + entry.resumes))
            } else if entry.resumes.isEmpty && whole {
                report(
                    Finding(
                        key.runtime,
                        "dispatch #\(key.id) (\(entry.dispatch.codeName) '\(entry.dispatch.label)') was never resumed",
                        [entry.dispatch]))
            }
        }
    }
}
