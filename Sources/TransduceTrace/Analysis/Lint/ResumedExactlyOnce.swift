/// ``InvariantRule/resumedExactlyOnce``: every awaited dispatch gets one resume; in a whole trace,
/// none is left without one.
///
/// Memory follows the dispatches still waiting, not the trace: a resumed dispatch is kept whole
/// among the last ``recent`` resumed (a second resume then shows all its events), older ones only
/// as an id in ``IDRanges`` (a second resume then shows itself).
struct ResumedExactlyOnce: TraceRule {
    var invariant: InvariantRule { .resumedExactlyOnce }
    /// Whether missing resumes count (read at ``finish(report:)``).
    var whole: Bool
    /// How many resumed dispatches are kept whole.
    static let recent = 16_384

    private struct Entry {
        /// Its dispatch, unless it was forgotten before a late resume came.
        var dispatch: EventStamp?
        var resumes: [TraceEvent] = []
        /// Resumes seen before it was forgotten.
        var forgotten = 0
        var count: Int { resumes.count + forgotten }
        var time: UInt64 { dispatch?.time ?? resumes.first?.time ?? 0 }
    }
    private var waiting: [TraceIndex.Key: Entry] = [:]
    private var resumed = RecentlyDone<TraceIndex.Key, Entry>(capacity: recent)
    private var forgotten: [RuntimeKey: IDRanges] = [:]
    /// Resumed more than once: what the rule reports.
    private var twice: [TraceIndex.Key: Entry] = [:]
    /// Resumes of dispatches the trace does not hold (the first few): a whole trace holds every
    /// dispatch it resumes.
    private var orphans: [TraceEvent] = []
    private var orphanCount = 0
    /// Every dispatch id seen, awaited or not (a few ranges: ids are issued in order).
    private var dispatchedIDs: [RuntimeKey: IDRanges] = [:]

    init(whole: Bool) { self.whole = whole }

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)
        if e.kind == .dispatch { dispatchedIDs[e.runtimeKey, default: IDRanges()].insert(e.dispatch) }
        switch e.kind {
        case .dispatch where e.isAwaitedDispatch:
            _ = resumed.remove(key)
            twice[key] = nil
            waiting[key] = Entry(dispatch: EventStamp(e))
        case .requestResume:
            if twice[key] != nil {
                twice[key]!.resumes.append(e)
            } else if var entry = waiting.removeValue(forKey: key) {
                entry.resumes.append(e)
                if let (old, _) = resumed.insert(key, entry) { forgotten[old.runtime, default: IDRanges()].insert(old.id) }
            } else if var entry = resumed.remove(key) {
                entry.resumes.append(e)
                twice[key] = entry
            } else if forgotten[key.runtime]?.contains(key.id) == true {
                twice[key] = Entry(dispatch: nil, resumes: [e], forgotten: 1)
            } else if dispatchedIDs[key.runtime]?.contains(key.id) != true {
                orphanCount += 1
                if orphans.count < 64 { orphans.append(e) }
            }
        default:
            break
        }
    }

    mutating func finish(report: (Finding) -> Void) {
        let missing = whole ? waiting : [:]
        for (key, entry) in twice.merging(missing, uniquingKeysWith: { a, _ in a }).sorted(by: { $0.value.time < $1.value.time })
        {
            if entry.count > 1 {
                report(
                    Finding(
                        key.runtime, "dispatch #\(key.id) was resumed \(entry.count) times",
                        (entry.dispatch.map { [$0.event(runtime: key.runtime, dispatch: key.id)] } ?? []) + entry.resumes))
            } else if let dispatch = entry.dispatch, entry.count == 0 {
                report(
                    Finding(
                        key.runtime, "dispatch #\(key.id) (\(dispatch.codeName) '\(dispatch.label)') was never resumed",
                        [dispatch.event(runtime: key.runtime, dispatch: key.id)], restsOnAMissingEvent: true))
            }
        }
        guard whole else { return }
        for e in orphans {
            report(
                Finding(
                    e.runtimeKey, "dispatch #\(e.dispatch) was resumed (\(e.codeName)) but never dispatched", [e],
                    restsOnAMissingEvent: true))
        }
        if orphanCount > orphans.count, let last = orphans.last {
            report(
                Finding(
                    last.runtimeKey, "\(orphanCount - orphans.count) more resumes of dispatches never dispatched", [],
                    restsOnAMissingEvent: true))
        }
    }
}
