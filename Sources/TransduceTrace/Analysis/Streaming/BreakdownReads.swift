/// Which events of its runtime one awaited request's ``LatencyBreakdown`` reads, found as the
/// stream goes by, so that a request whose window spans a long run keeps only those.
///
/// The breakdown follows the caller's waiter: each admission on its path waits for the gate
/// (split by the cycles that held it meanwhile) and runs its cycle; a task the cycle handed the
/// waiter to (or one the request joined, or the replacement of either) runs, settles and
/// re-enters, and its re-entry is the next admission. So it reads:
/// - *stretches*, every event: from where each admission's window starts (the request's own
///   ``RequestWindows/Request/first``; for a re-entry, where the gate's state says its window
///   starts) to its cycle's leave: the wait's holders, their labels and actions, the cycle's
///   work and what it spawned and joined;
/// - *points* between them: the carrying tasks' joins, replacements, cancellations and settles,
///   the request's trace context and its resume.
///
/// The rest of a long window — other requests' cycles while a task carries the waiter — is
/// not read, whatever its length. Positions count the events consumed (as
/// ``RequestWindows``'s do).
struct BreakdownReads {
    /// The request's dispatch id.
    let dispatch: UInt64
    /// Stretches read whole and closed, in the order they closed.
    private(set) var stretches: [ClosedRange<Int>] = []
    /// The start of the stretch being read: while an admission of the path waits for the gate
    /// or its cycle runs (the request's own from its window's first position).
    private(set) var from: Int?
    /// Single positions read outside the stretches, ascending.
    private(set) var points: [Int] = []
    private var started = false
    /// Admissions of the path not yet entered, with whether their cycle hands its waiters on.
    private var admissions: [UInt64: Bool] = [:]
    /// Cycles of the path not yet left, with whether they hand their waiters on.
    private var cycles: [UInt64: Bool] = [:]
    /// Tasks that carried (or carry) the waiter.
    private var carriers: Set<UInt64> = []

    /// Follows request `dispatch`, whose window starts at `first` (the next position consumed).
    init(dispatch: UInt64, first: Int) {
        self.dispatch = dispatch
        self.from = first
    }

    /// The earliest position read.
    var earliest: Int {
        min(stretches.lazy.map(\.lowerBound).min() ?? .max, from ?? .max, points.first ?? .max)
    }

    /// The window starts earlier, at `position` (the spawn of a task the request joined: its
    /// breakdown reads from there).
    mutating func reachBack(to position: Int) {
        if let start = from { from = min(start, position) } else { stretches.append(position...position) }
    }

    /// What an event followed changed in the ids the path watches: the ids of the events that
    /// can still change what it reads (a runtime with many windows open hands each event only to
    /// the windows that watch one of its ids, ``WindowedBreakdowns``).
    struct Watch {
        /// An admission joined the path (its dispatch id: its cycle's enter is watched).
        var dispatch: UInt64?
        /// That admission entered (its dispatch id, not watched any more unless the request's).
        var entered: UInt64?
        /// A cycle of the path entered (its leave and spawns are watched).
        var cycle: UInt64?
        /// A cycle of the path left.
        var left: UInt64?
        /// A task carries the waiter (its ends, re-entries and replacement are watched).
        var task: UInt64?
    }

    /// Follows `e`, at `position`, of the request's runtime, when it names an id the path
    /// watches (its dispatch's, or one a ``Watch`` named); `windowStart` says where the window
    /// of an admission dispatched now starts (``RequestWindows``'s gate state).
    mutating func follow(_ e: TraceEvent, at position: Int, windowStart: () -> Int) -> Watch {
        var watch = Watch()
        switch e.kind {
        case .dispatch:
            if e.dispatch == dispatch && !started {
                started = true
                admissions[e.dispatch] = e.handsWaitersToTask
            } else if e.isTaskReentry && carriers.contains(e.otherTask) && admissions[e.dispatch] == nil {
                let start = windowStart()
                from = min(from ?? start, start)
                admissions[e.dispatch] = e.handsWaitersToTask
                watch.dispatch = e.dispatch
            }
        case .cycleEnter:
            if let handsOn = admissions.removeValue(forKey: e.dispatch) {
                cycles[e.cycle] = handsOn
                watch.cycle = e.cycle
                if e.dispatch != dispatch { watch.entered = e.dispatch }
            }
        case .cycleLeave:
            if cycles.removeValue(forKey: e.cycle) != nil { watch.left = e.cycle }
        case .taskSpawn:
            // A replacement takes the waiter over from the instance it replaced; a task spawned
            // by a path cycle that hands its waiters on carries them.
            if cycles[e.cycle] == true || (e.otherTask != 0 && carriers.contains(e.otherTask)),
                carriers.insert(e.task).inserted
            {
                watch.task = e.task
                point(position)
            }
        case .taskJoin:
            if e.dispatch == dispatch {
                if carriers.insert(e.task).inserted { watch.task = e.task }
                point(position)
            }
        case .taskCancel, .taskSettle:
            if carriers.contains(e.task) { point(position) }
        case .requestResume, .traceContext:
            if e.dispatch == dispatch { point(position) }
        default:
            break
        }
        if let start = from, started, admissions.isEmpty, cycles.isEmpty {
            stretches.append(start...position)
            from = nil
        }
        return watch
    }

    /// The ids it watches: its own dispatch and the admissions not yet entered, the cycles not
    /// yet left, the carrying tasks.
    var watched: (dispatches: [UInt64], cycles: [UInt64], tasks: [UInt64]) {
        ([dispatch] + admissions.keys.filter { $0 != dispatch }, Array(cycles.keys), Array(carriers))
    }

    /// The positions read, as ranges (an open stretch runs to `Int.max`), unsorted.
    var ranges: [ClosedRange<Int>] {
        var all = stretches + points.map { $0...$0 }
        if let from { all.append(from...Int.max) }
        return all
    }

    private mutating func point(_ position: Int) {
        if from == nil { points.append(position) }
    }

    /// Whether the breakdown reads the event at `position` (one consumed already).
    func reads(_ position: Int) -> Bool {
        if let from, position >= from { return true }
        for s in stretches where s.contains(position) { return true }
        let i = points.partitionPoint { $0 >= position }
        return i < points.count && points[i] == position
    }
}
