/// Every task instance: name, policy, spawning event, run time, outcome, replaced-by and
/// joined-by; warnings for tasks that never ended and for `switchToLatest` churn (instances
/// replaced over and over while none completes).
public struct TaskReport: Sendable {
    /// One task instance.
    public struct Row: Sendable {
        /// Its runtime (its ``RuntimeKey``).
        public var runtime: UInt64
        /// Its id.
        public var task: UInt64
        /// Its name ("" for an anonymous task).
        public var name: String
        /// Its policy (`switchToLatest`, `shareable`, `unique`).
        public var policy: String
        /// The cycle that spawned it, by its event label and id.
        public var spawnedBy: String
        /// When it was spawned.
        public var start: UInt64
        /// How long it ran, once it ended.
        public var ran: UInt64?
        /// How it ended (`settle`, `request(loaded)`, `cancelled (replaced)`, …) or `running`.
        public var outcome: String
        /// The task that replaced it (0 for none).
        public var replacedBy: UInt64
        /// The dispatches whose waiters joined it.
        public var joinedBy: [UInt64]
    }

    /// One row per task instance, in spawn order.
    public private(set) var rows: [Row] = []
    /// Tasks that never ended and `switchToLatest` churn.
    public private(set) var warnings: [AnalysisWarning] = []

    /// - Parameters:
    ///   - index: the trace, indexed.
    ///   - lost: events the recorder or tracer lost. A task without an end may have had one among
    ///     them, so its warning then says so instead of asserting it never settled.
    ///   - lossesUnknown: the input lost events in a number it did not say (likewise).
    public init(index: TraceIndex, lost: UInt64 = 0, lossesUnknown: Bool = false) {
        let lossy = lost > 0 || lossesUnknown
        let lostText = lossesUnknown ? "events in unknown number" : "\(lost) event(s)"
        // The latest time, not the last event's: the runtime stamps some events out of order.
        let lastTime = index.events.lazy.map(\.time).max() ?? 0
        // Per runtime and name: instances, and how many ended their work (settled, requested or
        // responded).
        struct Named: Hashable, Comparable {
            var runtime: UInt64
            var name: String
            static func < (a: Named, b: Named) -> Bool { (a.runtime, a.name) < (b.runtime, b.name) }
        }
        var churn: [Named: (spawned: Int, replaced: Int, completed: Int)] = [:]
        let ordered = index.tasks.sorted { ($0.value.spawn) < ($1.value.spawn) }
        for (key, record) in ordered {
            let spawn = index.events[record.spawn]
            var row = Row(
                runtime: key.runtime, task: key.id, name: record.name, policy: spawn.codeName,
                spawnedBy: index.cycleLabel(runtime: key.runtime, cycle: record.cycle), start: spawn.time, ran: nil,
                outcome: "running", replacedBy: record.replacedBy,
                joinedBy: record.joins.map { index.events[$0].dispatch })
            if let cancel = record.cancels.first {
                let e = index.events[cancel]
                row.outcome = "cancelled (\(e.codeName))"
                row.ran = e.time.minus(spawn.time)
            } else if let settle = record.settles.first {
                let e = index.events[settle]
                row.outcome = e.label.isEmpty ? e.codeName : "\(e.codeName)(\(e.label))"
                // The trace's own clock, as every view (the runtime's measure is another one on
                // LTTng input).
                row.ran = e.time.minus(spawn.time)
            }
            if row.outcome == "running" {
                let task = "\(index.taskTitle(runtime: key.runtime, task: key.id)) (runtime \(RuntimeKey.name(key.runtime)))"
                let running =
                    "spawned by \(row.spawnedBy), running \(formatDuration(lastTime.minus(spawn.time))) at the end of the trace"
                warnings.append(
                    lossy
                        ? AnalysisWarning(
                            .noEndRecorded,
                            "no end recorded: \(task) \(running); the trace lost \(lostText), which may hold its end")
                        : AnalysisWarning(.neverSettled, "never settled: \(task) \(running)"))
            }
            if !record.name.isEmpty && row.policy != "shareable" {
                let k = Named(runtime: key.runtime, name: record.name)
                churn[k, default: (0, 0, 0)].spawned += 1
                if record.replacedBy != 0 { churn[k, default: (0, 0, 0)].replaced += 1 }
                if record.cancels.isEmpty, let settle = record.settles.first,
                    [.settle, .request, .response].contains(index.events[settle].taskOutcome)
                {
                    churn[k, default: (0, 0, 0)].completed += 1
                }
            }
            rows.append(row)
        }
        // Replacing is what switchToLatest is for (a debounce replaces nearly every instance);
        // it is churn when the work never gets done: many instances replaced, none completed.
        for (k, c) in churn.sorted(by: { $0.key < $1.key }) where c.replaced >= 5 && c.completed == 0 {
            warnings.append(
                AnalysisWarning(
                    .switchToLatestChurn,
                    "switchToLatest churn: \(c.replaced) of \(c.spawned) '\(k.name)' instances of runtime "
                        + "\(RuntimeKey.name(k.runtime)) were replaced and none completed"))
        }
    }
}
