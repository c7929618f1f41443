/// ``InvariantRule/taskSpawnedAndEndedOnce``: each task instance is spawned once and ends once
/// (settled or cancelled), a cancelled instance's late outcome is discarded, and in a whole trace
/// every task ends and none ends unspawned.
///
/// Memory follows the live tasks, not the trace: an instance that ended as it should is kept
/// whole among the last ``recent`` (a late event about it then shows all its events), older ones
/// only as an id in ``IDRanges`` by how they ended (a late event then shows itself).
struct TaskSpawnedAndEndedOnce: TraceRule {
    var invariant: InvariantRule { .taskSpawnedAndEndedOnce }
    /// Whether missing spawns and ends count (read at ``finish(report:)``).
    var whole: Bool
    /// How many ended instances are kept whole.
    static let recent = 16_384

    private struct Entry {
        var spawns: [TraceEvent] = []
        var cancels: [TraceEvent] = []
        var settles: [TraceEvent] = []
        /// What it did before it was forgotten (a forgotten one was spawned once and ended once).
        var forgottenSpawn = false
        var forgottenCancel = false
        var forgottenSettle = false

        var spawnCount: Int { spawns.count + (forgottenSpawn ? 1 : 0) }
        var cancelCount: Int { cancels.count + (forgottenCancel ? 1 : 0) }
        var settleCount: Int { settles.count + (forgottenSettle ? 1 : 0) }
        var ended: Bool { cancelCount + settleCount > 0 }
        /// A late outcome after a cancel, which should have been discarded.
        var lateOutcome: TraceEvent? {
            cancelCount > 0 ? settles.first { $0.taskOutcome != .cancelled } : nil
        }
        /// Something the rule reports whatever the trace (a missing spawn counts only in a whole
        /// trace, so an unspawned one is kept too).
        var broken: Bool {
            spawnCount != 1 || cancelCount > 1 || settleCount > 1 || lateOutcome != nil || cancelledAfterForgottenEnd
        }
        /// Cancelled after an outcome that was forgotten, which was then not discarded (a
        /// forgotten outcome that followed a cancel was a discarded one).
        var cancelledAfterForgottenEnd: Bool { forgottenSettle && !forgottenCancel && !cancels.isEmpty }
    }
    private var live: [TraceIndex.Key: Entry] = [:]
    private var ended = RecentlyDone<TraceIndex.Key, Entry>(capacity: recent)
    private var cancelled: [RuntimeKey: IDRanges] = [:]
    private var settled: [RuntimeKey: IDRanges] = [:]
    /// What the rule reports (and, at the end, the live ones).
    private var broken: [TraceIndex.Key: Entry] = [:]

    init(whole: Bool) { self.whole = whole }

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        guard e.kind == .taskSpawn || e.kind == .taskCancel || e.kind == .taskSettle else { return }
        let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.task)
        var entry: Entry
        if let known = broken.removeValue(forKey: key) ?? live.removeValue(forKey: key) ?? ended.remove(key) {
            entry = known
        } else if cancelled[key.runtime]?.contains(key.id) == true || settled[key.runtime]?.contains(key.id) == true {
            entry = Entry(
                forgottenSpawn: true, forgottenCancel: cancelled[key.runtime]?.contains(key.id) == true,
                forgottenSettle: settled[key.runtime]?.contains(key.id) == true)
        } else {
            entry = Entry()
        }
        switch e.kind {
        case .taskSpawn: entry.spawns.append(e)
        case .taskCancel: entry.cancels.append(e)
        default: entry.settles.append(e)
        }
        if entry.broken {
            broken[key] = entry
        } else if !entry.ended {
            live[key] = entry
        } else if let (old, done) = ended.insert(key, entry) {
            if done.cancelCount > 0 { cancelled[old.runtime, default: IDRanges()].insert(old.id) }
            if done.settleCount > 0 { settled[old.runtime, default: IDRanges()].insert(old.id) }
        }
    }

    mutating func finish(report: (Finding) -> Void) {
        let open = whole ? live : [:]
        for (key, entry) in broken.merging(open, uniquingKeysWith: { a, _ in a }).sorted(by: {
            ($0.key.runtime, $0.key.id) < ($1.key.runtime, $1.key.id)
        }) {
            let all = entry.spawns + entry.cancels + entry.settles
            if entry.spawnCount > 1 {
                report(Finding(key.runtime, "task #\(key.id) was spawned \(entry.spawnCount) times", entry.spawns))
            }
            if entry.spawnCount == 0 && whole {
                report(Finding(key.runtime, "task #\(key.id) ended without a spawn", all, restsOnAMissingEvent: true))
            }
            if entry.cancelCount > 1 || entry.settleCount > 1 {
                report(Finding(key.runtime, "task #\(key.id) ended more than once", all))
            }
            if let late = entry.lateOutcome {
                let reason = entry.cancels.first.map { " (\($0.codeName))" } ?? ""
                report(
                    Finding(
                        key.runtime,
                        "task #\(key.id) was cancelled\(reason) but its outcome \(late.codeName) was not discarded",
                        (entry.cancels.first.map { [$0] } ?? []) + [late]))
            }
            if entry.cancelledAfterForgottenEnd && entry.cancelCount == 1 && entry.settleCount == 1 {
                report(
                    Finding(
                        key.runtime,
                        "task #\(key.id) was cancelled (\(entry.cancels[0].codeName)) but its outcome was not discarded",
                        entry.cancels))
            }
            if whole && !entry.ended, let spawn = entry.spawns.first {
                report(Finding(key.runtime, "task #\(key.id) '\(spawn.label)' never ended", [spawn], restsOnAMissingEvent: true))
            }
        }
    }
}
