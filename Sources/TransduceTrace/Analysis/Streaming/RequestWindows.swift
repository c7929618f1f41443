/// Every resumed awaited request of a stream of events, found in one pass in memory that follows
/// what is open (queued admissions, live tasks, waiting callers), with its latency and the
/// stretch of the stream its breakdown reads: its *window*.
///
/// A request's ``LatencyBreakdown`` reads events of its runtime only, and only from its window:
/// from the earliest of its own dispatch, the dispatch of the cycle holding the gate when it came
/// (or of a recent one that left after its time: records of several threads may come out of time
/// order),
/// the oldest admission still queued then (admissions enter in order, so every cycle it waits
/// behind was dispatched no earlier), and the spawn of any task it joined; to its resume.
/// ``WindowedBreakdowns`` reads just those events back and breaks the request down exactly as
/// ``TraceIndex/latencyBreakdown(runtime:dispatch:)`` does over the whole trace.
///
/// Positions count the events consumed, from 0, so a second pass over the same events (with the
/// same selection) finds the same ones.
package struct RequestWindows: TraceConsumer {
    /// One resumed awaited request.
    package struct Request: Sendable, Hashable {
        /// Its runtime (a ``RuntimeKey``).
        package var runtime: RuntimeKey
        /// Its dispatch id.
        package var dispatch: UInt64
        /// When it was dispatched.
        package var start: UInt64
        /// Dispatch to resume (as its breakdown's total).
        package var total: UInt64
        /// Its event label.
        package var label: String
        /// Its style's code (``TraceEvent/codeName`` of its dispatch names it).
        package var style: UInt8
        /// Its resume's outcome's code (``TraceEvent/codeName`` of its resume names it).
        package var outcome: UInt8
        /// The position of its dispatch (ties in ``total`` are ordered by it).
        package var position: Int
        /// The first position its breakdown reads.
        package var first: Int
        /// The last: its resume.
        package var last: Int
    }

    /// One runtime's gate as the stream shows it: what the window of an admission starts at.
    /// (``TraceFileIndex`` follows it too, to know where a request's view must start reading.)
    struct Runtime {
        /// Accepted admissions not yet entered, oldest first (by id, with their positions).
        var queued: [(dispatch: UInt64, position: Int)] = []
        var queuedHead = 0
        /// The position of the dispatch of the cycle holding the gate, if one does.
        var holding: Int?
        /// Live tasks' spawn positions.
        var tasks = SmallTable<UInt64, Int>()
        /// The cycles that left last, oldest first: the dispatch position of each and when it
        /// left. A dispatch's time is read before its event is recorded, so a cycle that left
        /// after that time may come earlier in the stream and still hold the gate in its wait.
        /// The last ``leftKeep`` are kept.
        var left: [(position: Int, time: UInt64)] = []
        /// How many cycles that left are kept: twice the most a dispatch of this runtime has
        /// reached back so far (at least 8, at most ``leftKept``). Its own dispatches only, so a
        /// runtime's windows are the same whatever else a selection keeps. A recorder's
        /// dispatches reach back a cycle or two (a thread preempted between reading the time and
        /// recording); 64 for each of tens of thousands of runtimes open at once was a sixth of
        /// the terminal UI's memory.
        var leftKeep: UInt8 = 8
        static let leftKept: UInt8 = 64
        /// Whether it stopped: once nothing of it is open, its state can go.
        var stopped = false

        /// Whether it holds nothing a window could start at: as a new one.
        var isEmpty: Bool { queuedHead == queued.count && holding == nil && tasks.isEmpty && left.isEmpty }

        /// Where the window of an admission dispatched at `time` (at `position`) starts.
        func windowStart(dispatchedAt time: UInt64, position: Int) -> Int {
            var first = position
            if let h = holding { first = min(first, h) }
            if let l = leftAfter(time) { first = min(first, l) }
            if queuedHead < queued.count { first = min(first, queued[queuedHead].position) }
            return first
        }

        /// The earliest position the window of an admission dispatched from now on can start at
        /// (before its own dispatch): the cycle holding the gate's, the oldest queued one's, a
        /// kept cycle that left's. Nil when none is.
        var lookbackStart: Int? {
            var first = holding
            if queuedHead < queued.count { first = min(first ?? .max, queued[queuedHead].position) }
            for l in left { first = min(first ?? .max, l.position) }
            return first
        }

        /// Follows `e`, at `position`, of this runtime: an admission queued (ask
        /// ``windowStart(dispatchedAt:position:)`` of a dispatch first) or entered, a cycle
        /// left, a stop (which clears what waited for the gate), a task spawned or ended (an
        /// ended task is joined no more).
        mutating func follow(_ e: TraceEvent, at position: Int) {
            switch e.kind {
            case .dispatch:
                queued.append((e.dispatch, position))
                // All kept left after it: it may reach back further still.
                let reach = left.reversed().prefix { $0.time > e.time }.count
                if reach * 2 > leftKeep {
                    leftKeep = UInt8(min(Int(Self.leftKept), max(Int(leftKeep) * 2, reach * 2)))
                }
            case .cycleEnter: enter(dispatch: e.dispatch, at: position)
            case .cycleLeave: leave(at: position, time: e.time)
            case .runtimeStop:
                // Nothing enters a stopped runtime: what a window could start at goes (a trace of
                // a runtime per connection has tens of thousands that stopped).
                queued = []
                queuedHead = 0
                left = []
                stopped = true
            case .taskSpawn: tasks[e.task] = position
            case .taskCancel, .taskSettle: tasks[e.task] = nil
            default: break
            }
        }

        /// The admission of `dispatch` entered its cycle (at `position`).
        mutating func enter(dispatch: UInt64, at position: Int) {
            // Usually the head (admissions enter in order); a damaged trace's stray is searched.
            if queuedHead < queued.count, queued[queuedHead].dispatch == dispatch {
                holding = queued[queuedHead].position
                queuedHead += 1
            } else if let i = queued[queuedHead...].firstIndex(where: { $0.dispatch == dispatch }) {
                holding = queued[i].position
                queued.remove(at: i)
            } else {
                holding = position
            }
            if queuedHead == queued.count {
                // Empty: starts over in the storage it has (a runtime's queue is as long as its
                // deepest backlog, not as its history).
                queued.removeAll(keepingCapacity: true)
                queuedHead = 0
            } else if queuedHead > 1_024 && queuedHead * 2 > queued.count {
                queued.removeFirst(queuedHead)
                queuedHead = 0
            }
        }

        /// The cycle holding the gate left (at `position`, at `time`): remembered by its
        /// dispatch's position (its own, for a cycle whose admission the stream lacks).
        mutating func leave(at position: Int, time: UInt64) {
            // The oldest goes first: appended past its capacity, the array would double.
            if left.count >= Int(leftKeep) { left.removeFirst(left.count - Int(leftKeep) + 1) }
            left.append((position: holding ?? position, time: time))
            holding = nil
        }

        /// The earliest dispatch position of a kept cycle that left after `time`. Cycles leave
        /// one at a time (the gate serializes them), so the walk back from the newest stops at
        /// the first that left before.
        func leftAfter(_ time: UInt64) -> Int? {
            var found: Int?
            for l in left.reversed() {
                guard l.time > time else { break }
                found = min(found ?? l.position, l.position)
            }
            return found
        }
    }
    private struct Waiting {
        var label: String
        var styleCode: UInt8
        var time: UInt64
        var position: Int
        var first: Int
    }
    /// One runtime's gate and its awaited requests waiting, by dispatch: what is asked of a
    /// runtime is answered from its own (a trace of a runtime per connection has tens of
    /// thousands with requests waiting at once).
    private struct Open {
        var gate = Runtime()
        var waiting = SmallTable<UInt64, Waiting>()
    }
    private var runtimes = PerRuntime<Open>()
    private var position = 0
    /// The resumed requests, in resume order, by their event label.
    package private(set) var byLabel: [String: [Request]] = [:]

    /// An awaited request not resumed (yet).
    package struct Waiter: Sendable {
        /// Its runtime (a ``RuntimeKey``).
        package var runtime: RuntimeKey
        /// Its dispatch id.
        package var dispatch: UInt64
        /// Its event label.
        package var label: String
        /// Its style (`send`, `request`, …).
        package var style: String
        /// When it was dispatched.
        package var time: UInt64
    }

    /// The awaited requests not resumed by the last event consumed.
    package var waiters: [Waiter] {
        runtimes.keys.flatMap { runtime in
            (runtimes.state(runtime)?.waiting.entries ?? []).map {
                Waiter(
                    runtime: runtime, dispatch: $0.key, label: $0.value.label,
                    style: TraceNames.codeName(kind: .dispatch, code: $0.value.styleCode), time: $0.value.time)
            }
        }
    }

    /// The earliest position the window of a request of runtime `key` can start at from now on:
    /// that of a request still waiting, of one dispatched later (behind the cycle holding the
    /// gate, the oldest queued admission, a cycle that left lately), or of one that joins a
    /// live task (its spawn). Nil when nothing of the runtime is open.
    package func earliestOpen(runtime key: RuntimeKey) -> Int? {
        var earliest: Int?
        func keep(_ p: Int?) { if let p { earliest = min(earliest ?? p, p) } }
        guard let open = runtimes.state(key) else { return nil }
        open.waiting.forEach { keep($1.first) }
        let r = open.gate
        keep(r.holding)
        if r.queuedHead < r.queued.count { keep(r.queued[r.queuedHead].position) }
        for l in r.left { keep(l.position) }
        r.tasks.forEach { keep($1) }
        return earliest
    }

    /// Where the window of awaited request `dispatch` of `runtime`, waiting, starts (nil when it
    /// is not waiting).
    package func first(runtime: RuntimeKey, dispatch: UInt64) -> Int? {
        runtimes.state(runtime)?.waiting[dispatch]?.first
    }

    /// The awaited requests of `runtime` waiting, with where their windows start.
    package func waiting(runtime: RuntimeKey) -> [(dispatch: UInt64, first: Int)] {
        runtimes.state(runtime)?.waiting.entries.map { ($0.key, $0.value.first) } ?? []
    }

    /// Where the window of an admission of `runtime` dispatched at `time` (at `position`)
    /// starts, from its gate's state now.
    package func windowStart(runtime: RuntimeKey, dispatchedAt time: UInt64, position: Int) -> Int {
        runtimes.state(runtime)?.gate.windowStart(dispatchedAt: time, position: position) ?? position
    }

    /// What a window opened from now on in `runtime` can reach back to: from where on its gate's
    /// state can start one (``Runtime/lookbackStart``), and its live tasks' spawns (a request
    /// that joins one starts there).
    package func reachedBack(runtime: RuntimeKey) -> (lookback: Int?, spawns: [Int]) {
        guard let r = runtimes.state(runtime)?.gate else { return (nil, []) }
        return (r.lookbackStart, Array(r.tasks.values))
    }

    /// Hands over every request found (by label, then resume order) and keeps none, so a caller
    /// that breaks them all down never holds two copies.
    package mutating func takeAll() -> [Request] {
        var all: [Request] = []
        all.reserveCapacity(byLabel.values.reduce(0) { $0 + $1.count })
        for label in Array(byLabel.keys) { all += byLabel.removeValue(forKey: label) ?? [] }
        return all
    }
    /// A bound on the distinct labels kept (a hostile trace can name every event differently).
    static let maxLabels = 65_536

    /// Only dispatches of this id are kept (nil: every one).
    package let only: UInt64?
    /// Whether resumed requests are kept in ``byLabel``; if not, ``takeResumed()`` hands them
    /// out as they come.
    package let keeps: Bool
    private var recent: [Request] = []

    /// Finds every resumed awaited request, or only those of dispatch id `only`; kept in
    /// ``byLabel`` unless `keeps` is false.
    package init(only: UInt64? = nil, keeps: Bool = true) {
        self.only = only
        self.keeps = keeps
    }

    /// Whether a request was resumed since the last ``takeResumed()`` (when not `keeps`).
    ///
    /// Stored, not computed (see ``TaskRows/readyCount``).
    package private(set) var hasResumed = false

    /// The requests resumed since the last call, in resume order (when not `keeps`).
    package mutating func takeResumed() -> [Request] {
        defer {
            recent.removeAll(keepingCapacity: true)
            hasResumed = false
        }
        return recent
    }

    /// Lets go of slot `i`'s runtime once it stopped and nothing of it is open: a later event of
    /// it would find a new state the same.
    private mutating func releaseIfDone(_ i: Int) {
        guard runtimes[slot: i].gate.stopped, runtimes[slot: i].gate.isEmpty, runtimes[slot: i].waiting.isEmpty else { return }
        runtimes.release(i, leaving: Open())
    }

    package mutating func consume(_ e: TraceEvent) {
        defer { position += 1 }
        let r = e.runtimeKey
        switch e.kind {
        case .dispatch:
            let i = runtimes.slot(r) { Open() }
            if e.isAwaitedDispatch && (only == nil || only == e.dispatch) {
                let first = runtimes[slot: i].gate.windowStart(dispatchedAt: e.time, position: position)
                runtimes[slot: i].waiting[e.dispatch] = Waiting(
                    label: e.label, styleCode: e.code, time: e.time, position: position, first: first)
            }
            runtimes[slot: i].gate.follow(e, at: position)
        case .taskSpawn:
            runtimes[slot: runtimes.slot(r) { Open() }].gate.follow(e, at: position)
        case .cycleEnter, .cycleLeave, .runtimeStop, .taskCancel, .taskSettle:
            guard let i = runtimes.slot(r) else { return }
            runtimes[slot: i].gate.follow(e, at: position)
            runtimes.letGoIfEmpty(\.gate.tasks, of: i)
            releaseIfDone(i)
        case .taskJoin:
            if let i = runtimes.slot(r), let spawn = runtimes[slot: i].gate.tasks[e.task],
                let w = runtimes[slot: i].waiting[e.dispatch], spawn < w.first
            {
                runtimes[slot: i].waiting[e.dispatch]?.first = spawn
            }
        case .requestResume:
            guard let i = runtimes.slot(r), let w = runtimes[slot: i].waiting.removeValue(forKey: e.dispatch) else { return }
            runtimes.letGoIfEmpty(\.waiting, of: i)
            releaseIfDone(i)
            let label = byLabel[w.label] != nil || byLabel.count < Self.maxLabels ? w.label : "(other labels)"
            let request =
                Request(
                    runtime: r, dispatch: e.dispatch, start: w.time, total: max(e.time, w.time) - w.time, label: w.label,
                    style: w.styleCode,
                    outcome: e.code, position: w.position, first: w.first, last: position)
            if keeps {
                byLabel[label, default: []].append(request)
            } else {
                recent.append(request)
                hasResumed = true
            }
        default:
            break
        }
    }
}
