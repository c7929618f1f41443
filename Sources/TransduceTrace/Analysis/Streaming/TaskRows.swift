/// ``TaskReport``'s rows from a stream of events, each handed out once it is final, in spawn
/// order, in memory that follows the tasks still running (and the rows waiting behind them), not
/// the trace.
///
/// A row is final when its task settled, or when it was cancelled and the cycle that cancelled it
/// left (the `switchToLatest` replacement that names it is spawned in that cycle). Rows wait for
/// every row spawned before them, up to ``maxWaiting``: a task still running that many rows later
/// lets the final rows behind it out first, and its own row comes when it ends.
package struct TaskRows: TraceConsumer {
    /// How many rows may wait behind a running task before they are let out of spawn order.
    package let maxWaiting: Int

    private struct Pending {
        var row: TaskReport.Row
        var final = false
        /// Its end: the first cancel's reason, or the first settle's outcome and label.
        var ended = false
        var cancelled = false
        var completed = false
    }
    /// Rows not yet handed out, by spawn number.
    private var pending: [Int: Pending] = [:]
    /// The next spawn number, the first not handed out, and the first not yet past the
    /// ``maxWaiting`` mark (rows before it go as soon as they are final).
    private var spawned = 0
    private var head = 0
    private var early = 0
    /// The spawn number of each row not yet handed out.
    private var slots: [TraceIndex.Key: Int] = [:]
    private struct Runtime {
        /// Labels of admissions not yet entered, by dispatch id.
        var queued = SmallTable<UInt64, String>()
        var open: (cycle: UInt64, label: String, dispatch: UInt64)?
        /// Tasks cancelled in the open cycle: final when it leaves.
        var cancelledInCycle: [UInt64] = []
    }
    private var runtimes = PerRuntime<Runtime>()
    private var ready: [TaskReport.Row] = []
    /// Per runtime and name: instances, replaced ones and completed ones (``TaskReport``'s churn).
    private var churn: [TaskReport.Named: (spawned: Int, replaced: Int, completed: Int)] = [:]
    /// The latest event time (the runtime stamps a few events out of order).
    private var lastTime: UInt64 = 0
    /// Bounds a hostile trace's distinct task names in the churn table.
    static let maxNames = 65_536

    /// - Parameter maxWaiting: rows that may wait behind a running task (unbounded for a report
    ///   held whole).
    package init(maxWaiting: Int = 65_536) { self.maxWaiting = max(1, maxWaiting) }

    package mutating func consume(_ e: TraceEvent) {
        lastTime = max(lastTime, e.time)
        let r = e.runtimeKey
        switch e.kind {
        case .dispatch:
            runtimes[slot: runtimes.slot(r) { Runtime() }].queued[e.dispatch] = e.label
        case .cycleEnter:
            let i = runtimes.slot(r) { Runtime() }
            let label = runtimes[slot: i].queued.removeValue(forKey: e.dispatch) ?? "?"
            runtimes.letGoIfEmpty(\.queued, of: i)
            runtimes[slot: i].open = (e.cycle, label, e.dispatch)
        case .cycleLeave:
            guard let i = runtimes.slot(r) else { return }
            if runtimes[slot: i].open?.cycle == e.cycle { runtimes[slot: i].open = nil }
            let cancelled = runtimes[slot: i].cancelledInCycle
            runtimes[slot: i].cancelledInCycle = []
            for task in cancelled { finalize(TraceIndex.Key(runtime: r, id: task)) }
        case .runtimeStop:
            guard let i = runtimes.slot(r) else { return }
            let cancelled = runtimes[slot: i].cancelledInCycle
            // As a new one: its slot goes to the next runtime that needs one.
            runtimes.release(i, leaving: Runtime())
            for task in cancelled { finalize(TraceIndex.Key(runtime: r, id: task)) }
        case .taskSpawn:
            let open = runtimes.slot(r).flatMap { runtimes[slot: $0].open }
            let row = TaskReport.Row(
                runtime: r, task: e.task, name: e.label, policy: e.codeName,
                spawnedBy: open?.cycle == e.cycle ? open!.label : "?", start: e.time, ran: nil, outcome: "running",
                replacedBy: 0, joinedBy: [], spawnDispatch: open?.cycle == e.cycle ? open!.dispatch : 0)
            if let old = slots[TraceIndex.Key(runtime: r, id: e.task)] {
                // A second spawn of one id (a damaged trace): the first row ends here, as a
                // report over the whole trace keeps only the last.
                pending[old] = nil
            }
            slots[TraceIndex.Key(runtime: r, id: e.task)] = spawned
            pending[spawned] = Pending(row: row)
            spawned += 1
            if e.otherTask != 0 {
                update(TraceIndex.Key(runtime: r, id: e.otherTask)) { $0.row.replacedBy = e.task }
            }
            release()
        case .taskJoin:
            update(TraceIndex.Key(runtime: r, id: e.task)) { $0.row.joinedBy.append(e.dispatch) }
        case .taskCancel:
            let key = TraceIndex.Key(runtime: r, id: e.task)
            var first = false
            update(key) { p in
                guard !p.cancelled else { return }
                first = true
                p.cancelled = true
                p.ended = true
                p.completed = false
                p.row.outcome = "cancelled (\(e.codeName))"
                p.row.ran = e.time.minus(p.row.start)
            }
            guard first else { return }
            if e.cancelReason != .runtimeStop, let i = runtimes.slot(r), runtimes[slot: i].open != nil {
                runtimes[slot: i].cancelledInCycle.append(e.task)
            } else {
                finalize(key)
            }
        case .taskSettle:
            let key = TraceIndex.Key(runtime: r, id: e.task)
            var settledFirst = false
            update(key) { p in
                guard !p.ended else { return }
                settledFirst = true
                p.ended = true
                p.row.outcome = e.label.isEmpty ? e.codeName : "\(e.codeName)(\(e.label))"
                // The trace's own clock, as every view (the runtime's measure is another one on
                // LTTng input).
                p.row.ran = e.time.minus(p.row.start)
                p.completed = [.settle, .request, .response].contains(e.taskOutcome)
            }
            if settledFirst { finalize(key) }
        default:
            break
        }
    }

    private mutating func update(_ key: TraceIndex.Key, _ change: (inout Pending) -> Void) {
        guard let slot = slots[key], pending[slot] != nil else { return }
        change(&pending[slot]!)
    }

    private mutating func finalize(_ key: TraceIndex.Key) {
        guard let slot = slots[key], pending[slot] != nil else { return }
        pending[slot]!.final = true
        if slot < early { out(slot) }
        release()
    }

    /// Hands out the final rows at the head, and those with more than ``maxWaiting`` rows
    /// spawned after them as soon as they are final.
    private mutating func release() {
        while head < spawned, pending[head]?.final ?? true {
            out(head)
            head += 1
        }
        early = max(early, head)
        while early < spawned - maxWaiting {
            if pending[early]?.final == true { out(early) }
            early += 1
        }
    }

    private mutating func out(_ slot: Int) {
        guard let p = pending.removeValue(forKey: slot) else { return }
        slots[TraceIndex.Key(runtime: p.row.runtime, id: p.row.task)] = nil
        count(p)
        ready.append(p.row)
        readyCount = ready.count
    }

    private mutating func count(_ p: Pending) {
        guard !p.row.name.isEmpty && p.row.policy != "shareable" else { return }
        let k = TaskReport.Named(runtime: p.row.runtime, name: p.row.name)
        guard churn[k] != nil || churn.count < Self.maxNames else { return }
        churn[k, default: (0, 0, 0)].spawned += 1
        if p.row.replacedBy != 0 { churn[k, default: (0, 0, 0)].replaced += 1 }
        if p.completed && !p.cancelled { churn[k, default: (0, 0, 0)].completed += 1 }
    }

    /// How many rows ``take()`` would hand out now.
    ///
    /// Stored, not computed: a view asks after every event, and from another module a `package`
    /// getter copies the whole struct first (a fifth of `tasks`' time).
    package private(set) var readyCount = 0

    /// The rows that became final since the last call, in spawn order (but for those let out
    /// early).
    package mutating func take() -> [TaskReport.Row] {
        defer {
            ready = []
            readyCount = 0
        }
        return ready
    }

    /// The rest of the rows, in spawn order (those still running say so), and the warnings:
    /// tasks that never ended, then `switchToLatest` churn.
    ///
    /// - Parameters:
    ///   - lost: events the recorder or tracer lost (a missing end may be among them).
    ///   - lossesUnknown: the input lost events in a number it did not say.
    package mutating func finish(lost: UInt64 = 0, lossesUnknown: Bool = false) -> (
        rows: [TaskReport.Row], warnings: [AnalysisWarning]
    ) {
        let lossy = lost > 0 || lossesUnknown
        var warnings: [AnalysisWarning] = []
        var rest = take()
        for (_, p) in pending.sorted(by: { $0.key < $1.key }) {
            rest.append(p.row)
            count(p)
            guard !p.ended else { continue }
            let task = AnalysisWarning.Task(
                runtime: p.row.runtime, task: p.row.task, name: p.row.name, spawnedBy: p.row.spawnedBy,
                running: lastTime.minus(p.row.start))
            warnings.append(
                AnalysisWarning(lossy ? .noEndRecorded(task, lost: lossesUnknown ? nil : lost) : .neverSettled(task)))
        }
        pending = [:]
        slots = [:]
        // Replacing is what switchToLatest is for (a debounce replaces nearly every instance);
        // it is churn when the work never gets done: many instances replaced, none completed.
        for (k, c) in churn.sorted(by: { $0.key < $1.key }) where c.replaced >= 5 && c.completed == 0 {
            warnings.append(
                AnalysisWarning(
                    .switchToLatestChurn(runtime: k.runtime, name: k.name, replaced: Int(c.replaced), spawned: Int(c.spawned))))
        }
        return (rest, warnings)
    }
}
