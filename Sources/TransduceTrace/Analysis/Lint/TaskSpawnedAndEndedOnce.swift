/// ``InvariantRule/taskSpawnedAndEndedOnce``: each task instance is spawned once and ends once
/// (settled or cancelled), a cancelled instance's late outcome is discarded, and in a whole trace
/// every task ends and none ends unspawned.
struct TaskSpawnedAndEndedOnce: TraceRule {
    var invariant: InvariantRule { .taskSpawnedAndEndedOnce }
    let whole: Bool
    private var tasks: [TraceIndex.Key: (spawns: [TraceEvent], cancels: [TraceEvent], settles: [TraceEvent])] = [:]

    init(whole: Bool) { self.whole = whole }

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.task)
        switch e.kind {
        case .taskSpawn: tasks[key, default: ([], [], [])].spawns.append(e)
        case .taskCancel: tasks[key, default: ([], [], [])].cancels.append(e)
        case .taskSettle: tasks[key, default: ([], [], [])].settles.append(e)
        default: break
        }
    }

    mutating func finish(report: (Finding) -> Void) {
        for (key, entry) in tasks.sorted(by: { ($0.key.runtime, $0.key.id) < ($1.key.runtime, $1.key.id) }) {
            let all = entry.spawns + entry.cancels + entry.settles
            if entry.spawns.count > 1 {
                report(Finding(key.runtime, "task #\(key.id) was spawned \(entry.spawns.count) times", entry.spawns))
            }
            if entry.spawns.isEmpty && whole { report(Finding(key.runtime, "task #\(key.id) ended without a spawn", all)) }
            if entry.cancels.count > 1 || entry.settles.count > 1 {
                report(Finding(key.runtime, "task #\(key.id) ended more than once", all))
            }
            if let cancel = entry.cancels.first, let late = entry.settles.first(where: { $0.taskOutcome != .cancelled }) {
                report(
                    Finding(
                        key.runtime,
                        "task #\(key.id) was cancelled (\(cancel.codeName)) but its outcome \(late.codeName) was not discarded",
                        [cancel, late]))
            }
            if whole && entry.cancels.isEmpty && entry.settles.isEmpty, let spawn = entry.spawns.first {
                report(Finding(key.runtime, "task #\(key.id) '\(spawn.label)' never ended", [spawn]))
            }
        }
    }
}
