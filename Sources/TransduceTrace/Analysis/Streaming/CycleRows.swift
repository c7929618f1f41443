/// One row per cycle from a stream of events, each handed out when the cycle leaves the gate, in
/// memory that follows the admissions waiting and the cycles open (one per runtime), not the
/// trace: for tables (`export --format csv --table cycles`).
package struct CycleRows: TraceConsumer {
    /// One cycle.
    package struct Row: Sendable {
        /// Its runtime (a ``RuntimeKey``).
        package var runtime: RuntimeKey
        /// Its id.
        package var cycle: UInt64
        /// The dispatch it ran.
        package var dispatch: UInt64
        /// That dispatch's event label ("" when the dispatch is not in the trace).
        package var label: String
        /// That dispatch's style.
        package var style: String
        /// When it entered the gate.
        package var enter: UInt64
        /// How long its admission waited for the gate, from its dispatch by the trace's clock
        /// (nil when the dispatch is not in the trace).
        package var waited: UInt64?
        /// When it left (nil while open at the end of the trace, as the next three).
        package var leave: UInt64?
        /// How long it held the gate.
        package var held: UInt64?
        /// How many transduce steps it took.
        package var steps: UInt32?
        /// How it ended (`settled`, `handedOff`, …).
        package var outcome: String?
        /// The effects it ran.
        package var effects: Int = 0
        /// The tasks it spawned.
        package var spawned: Int = 0
    }

    private var queued: [TraceIndex.Key: (time: UInt64, label: String, style: String)] = [:]
    /// Runtimes that stopped since their queued admissions were last let go: they go in bulk,
    /// once these are an eighth of the queue. (A walk of the whole queue at every stop was half
    /// the CPU of the CSV cycles table at 10M events in 78,126 runtimes, and a copy of it each
    /// time stood on top of the peak.)
    private var stopped = Set<RuntimeKey>()
    private var open: [RuntimeKey: Row] = [:]
    private var ready: [Row] = []

    /// A table that has seen no event.
    package init() {}

    package mutating func consume(_ e: TraceEvent) {
        let r = e.runtimeKey
        switch e.kind {
        case .dispatch:
            // A runtime that dispatches again (a key used anew) keeps what it queues from now.
            if !stopped.isEmpty, stopped.contains(r) { letGoOfStoppedQueues() }
            queued[TraceIndex.Key(runtime: r, id: e.dispatch)] = (e.time, e.label, e.codeName)
        case .cycleEnter:
            if let unfinished = open.removeValue(forKey: r) {
                ready.append(unfinished)
                readyCount = ready.count
            }
            var admission = queued.removeValue(forKey: TraceIndex.Key(runtime: r, id: e.dispatch))
            // Queued before its runtime stopped: gone at the stop, though not let go yet.
            if admission != nil, !stopped.isEmpty, stopped.contains(r) { admission = nil }
            open[r] = Row(
                runtime: r, cycle: e.cycle, dispatch: e.dispatch, label: admission?.label ?? "", style: admission?.style ?? "",
                enter: e.time, waited: admission.map { e.time.minus($0.time) })
        case .effect:
            if open[r]?.cycle == e.cycle { open[r]!.effects += 1 }
        case .taskSpawn:
            if open[r]?.cycle == e.cycle { open[r]!.spawned += 1 }
        case .cycleLeave:
            guard var row = open[r], row.cycle == e.cycle else { return }
            open[r] = nil
            row.leave = e.time
            row.held = e.time.minus(row.enter)
            row.steps = e.step
            row.outcome = e.codeName
            ready.append(row)
            readyCount = ready.count
        case .runtimeStop:
            // A stop clears the queue: what waited never enters.
            stopped.insert(r)
            if stopped.count >= max(64, queued.count / 8) { letGoOfStoppedQueues() }
        default:
            break
        }
    }

    /// Lets go of the queued admissions of the runtimes that stopped: one walk of the queue, and
    /// only those removed (no copy of the rest).
    private mutating func letGoOfStoppedQueues() {
        let gone = queued.keys.filter { stopped.contains($0.runtime) }
        for key in gone { queued[key] = nil }
        stopped.removeAll(keepingCapacity: true)
        // Emptied, a table keeps its storage: as runtimes stop, the queue moves to storage of its
        // size once it fills a quarter of what it has (at each stop, the copy did that).
        if queued.capacity > 4 * queued.count + 1_024 {
            var smaller = [TraceIndex.Key: (time: UInt64, label: String, style: String)](minimumCapacity: queued.count)
            for (key, value) in queued { smaller[key] = value }
            queued = smaller
        }
    }

    /// How many rows ``take()`` would hand out now.
    ///
    /// Stored (see ``TaskRows/readyCount``).
    package private(set) var readyCount = 0

    /// The cycles that left since the last call, in the order they left.
    package mutating func take() -> [Row] {
        defer {
            ready = []
            readyCount = 0
        }
        return ready
    }

    /// The rest: cycles that left, then those still open at the end (by runtime).
    package mutating func finish() -> [Row] {
        let stillOpen = open.values.sorted { ($0.runtime, $0.cycle) < ($1.runtime, $1.cycle) }
        open = [:]
        return take() + stillOpen
    }
}
