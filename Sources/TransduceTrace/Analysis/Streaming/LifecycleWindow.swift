/// Where in a stream of events one request's lifecycle (``TraceIndex/requestLifecycle(runtime:dispatch:)``)
/// lies, found in a pass that keeps only the lifecycle's own objects: so a view of one request
/// reads back just that stretch of its runtime's events, indexes it, and draws exactly what an
/// index of the whole trace would.
///
/// The lifecycle grows forward in time: from its dispatch to the cycles that ran it, the tasks
/// they started, the tasks' re-entries and requests, and the replacements that took a waiter on.
/// One link points back: a task it *joins* was spawned earlier, and may have made requests of its
/// own before the join. The stretch then starts at that spawn, and when such a task had made
/// requests, ``seeds`` names it: a further pass, told of it from the start, follows them too.
///
/// Positions count the events consumed, from 0 (as ``RequestWindows``'s do).
package struct LifecycleWindow: TraceConsumer {
    /// The request's dispatch id.
    package let dispatch: UInt64
    /// Per runtime, tasks known (from an earlier pass) to join the lifecycle, followed from
    /// their spawn.
    package private(set) var seeds: [RuntimeKey: Set<UInt64>]
    /// The runtimes that have a dispatch of that id, in the order they first showed one.
    package private(set) var runtimes: [RuntimeKey] = []
    /// The most runtimes with the dispatch whose lifecycles are found: past it, the id is
    /// ambiguous and the rest are only named (``tooMany``), for a caller to pick one of.
    package static let maxRuntimes = 64
    /// Whether more than ``maxRuntimes`` runtimes have the dispatch: then no lifecycle is
    /// followed (each runtime's was kept: 574 MB at 10M events in 78,126 runtimes, all with a
    /// #7, to say which to pick), and ``runtimes`` names them all.
    package private(set) var tooMany = false
    /// ``runtimes`` as a set, once ``tooMany``.
    private var named: Set<RuntimeKey> = []
    /// The highest dispatch id seen in any runtime (for an error that says where ids end).
    package private(set) var highestDispatch: UInt64?

    private struct Tracker {
        var dispatches: Set<UInt64> = []
        var cycles: Set<UInt64> = []
        var tasks: Set<UInt64> = []
        /// Included tasks that carry the waiter of an included dispatch.
        var carrying: Set<UInt64> = []
        /// Included admissions whose cycle hands its waiters on, and whether those are ours.
        var handsOn: [UInt64: Bool] = [:]
        var open: (cycle: UInt64, dispatch: UInt64)?
        /// Every live task's spawn position.
        var live: [UInt64: Int] = [:]
        /// The spawn positions of the tasks that ended last: a replacement names the instance
        /// its cycle just cancelled, a task's re-entry follows its settle.
        var ended = RecentlyDone<UInt64, Int>(capacity: 4_096, reserving: 0)
        func spawn(_ task: UInt64) -> Int? { live[task] ?? ended[task] }
        mutating func end(_ task: UInt64) {
            if let p = live.removeValue(forKey: task) { _ = ended.insert(task, p) }
        }
        /// Live tasks that made requests of their own (a join of one needs a further pass).
        var requested: Set<UInt64> = []
        var first = Int.max
        var last = -1
        var started = false
        /// Included dispatches whose cycle has not entered yet.
        var pending: Set<UInt64> = []
        /// Included awaited dispatches not resumed yet.
        var unresumed: Set<UInt64> = []
        /// Included tasks not settled yet (a cancelled one still settles when it returns).
        var unsettledTasks: Set<UInt64> = []
        /// Included tasks that settled with an event whose re-entry has not come yet.
        var reentering: Set<UInt64> = []
        var settled = false

        /// Whether nothing later can join the lifecycle: its dispatch came, every dispatch it
        /// includes ran its cycle and (if awaited) resumed, and every task it includes settled
        /// and re-entered. (A task or dispatch joins only through one of those.)
        func isSettled() -> Bool {
            guard started, pending.isEmpty, unresumed.isEmpty, unsettledTasks.isEmpty, reentering.isEmpty else {
                return false
            }
            if let open, cycles.contains(open.cycle) { return false }
            return true
        }

        /// The positions of the lifecycle's events, of the spawns that name its tasks and of
        /// other requests' joins of its tasks, in the order found (a spawn named later comes out
        /// of order).
        var read: [Int] = []

        mutating func touch(_ p: Int) {
            first = min(first, p)
            last = max(last, p)
            if read.last != p { read.append(p) }
        }

        /// A task the lifecycle names (drawn by its spawn's name) was spawned at `p`.
        mutating func refer(to p: Int) {
            first = min(first, p)
            read.append(p)
        }
    }
    private var trackers: [RuntimeKey: Tracker] = [:]
    private var position = 0
    /// Runtimes whose lifecycle has started and is not settled (see ``isSettled``).
    package private(set) var unsettled = 0

    /// Whether every runtime that has the dispatch so far has its whole lifecycle behind the
    /// last event consumed: nothing later joins it. (A runtime whose dispatch is still to come
    /// is not counted: the caller knows where dispatches can be.)
    package var isSettled: Bool { unsettled == 0 && !runtimes.isEmpty && !tooMany }

    /// Finds dispatch #`dispatch`'s lifecycle in every runtime that has one, following `seeds`
    /// (a previous pass's ``seeds``) from their spawn.
    package init(dispatch: UInt64, seeds: [RuntimeKey: Set<UInt64>] = [:]) {
        self.dispatch = dispatch
        self.seeds = seeds
    }

    /// The first and last position of the lifecycle's events in `runtime`, and of the spawns of
    /// the tasks it names (nil when the runtime has no such dispatch).
    package func range(runtime: RuntimeKey) -> ClosedRange<Int>? {
        guard let t = trackers[runtime], t.started, t.first <= t.last else { return nil }
        return t.first...t.last
    }

    /// The positions of the lifecycle's events in `runtime`, of the spawns of the tasks it
    /// names and of the joins of its tasks, ascending (what a view of it draws and lists).
    package func positions(runtime: RuntimeKey) -> [Int] {
        guard let t = trackers[runtime], t.started else { return [] }
        return Array(Set(t.read)).sorted()
    }

    package mutating func consume(_ e: TraceEvent) {
        consume(e, at: position)
    }

    /// Follows `e`, at `position` (a finder of several requests hands each only its runtime's
    /// events, with the stream's positions).
    mutating func consume(_ e: TraceEvent, at position: Int) {
        self.position = position
        defer { self.position = position + 1 }
        if e.kind == .dispatch { highestDispatch = max(highestDispatch ?? 0, e.dispatch) }
        let r = e.runtimeKey
        if tooMany {
            if e.kind == .dispatch && e.dispatch == dispatch && named.insert(r).inserted { runtimes.append(r) }
            return
        }
        if e.kind == .dispatch && e.dispatch == dispatch && runtimes.count == Self.maxRuntimes && trackers[r]?.started != true {
            // One more runtime has it: it is ambiguous, and nothing needs following any more.
            tooMany = true
            trackers = [:]
            unsettled = 0
            named = Set(runtimes)
            named.insert(r)
            runtimes.append(r)
            return
        }
        // Every runtime is followed from its first event: a task the request joins may have been
        // spawned before it.
        var t = trackers.removeValue(forKey: r) ?? Tracker(tasks: seeds[r] ?? [])
        defer {
            // Only an event of the lifecycle can settle it or unsettle it again.
            if t.started && t.last == position {
                let settled = t.isSettled()
                if settled != t.settled {
                    unsettled += settled ? -1 : 1
                    t.settled = settled
                }
            }
            trackers[r] = t
        }
        let p = position
        switch e.kind {
        case .dispatch:
            let ours = e.dispatch == dispatch && !t.started
            if ours {
                t.started = true
                unsettled += 1
                runtimes.append(r)
            }
            let fromTask = e.otherTask != 0 && t.tasks.contains(e.otherTask)
            if e.otherTask != 0, t.live[e.otherTask] != nil { t.requested.insert(e.otherTask) }
            guard ours || fromTask else { return }
            if e.isTaskReentry { t.reentering.remove(e.otherTask) }
            t.dispatches.insert(e.dispatch)
            t.pending.insert(e.dispatch)
            if e.isAwaitedDispatch { t.unresumed.insert(e.dispatch) }
            if e.handsWaitersToTask {
                t.handsOn[e.dispatch] = e.isAwaitedDispatch || (e.isTaskReentry && t.carrying.contains(e.otherTask))
            }
            t.touch(p)
            // The request made from inside a task is drawn from that task: its name is read
            // from its spawn.
            if ours, e.otherTask != 0, let spawn = t.spawn(e.otherTask) { t.refer(to: spawn) }
        case .requestResume:
            guard t.dispatches.contains(e.dispatch) else { return }
            t.unresumed.remove(e.dispatch)
            t.touch(p)
            if e.task != 0, let spawn = t.spawn(e.task) { t.refer(to: spawn) }
        case .cycleEnter:
            t.open = (e.cycle, e.dispatch)
            if t.dispatches.contains(e.dispatch) {
                t.cycles.insert(e.cycle)
                t.pending.remove(e.dispatch)
                t.touch(p)
            }
        case .transduce, .effect, .eventDropped:
            if t.cycles.contains(e.cycle) { t.touch(p) }
        case .cycleLeave:
            if t.cycles.contains(e.cycle) { t.touch(p) }
            if t.open?.cycle == e.cycle { t.open = nil }
        case .taskSpawn:
            t.live[e.task] = p
            var included = t.tasks.contains(e.task)
            if t.cycles.contains(e.cycle) {
                included = true
                if let open = t.open, open.cycle == e.cycle, t.handsOn[open.dispatch] == true { t.carrying.insert(e.task) }
            }
            if e.otherTask != 0, t.tasks.contains(e.otherTask), t.carrying.contains(e.otherTask) {
                // The waiter moved to the replacement.
                included = true
                t.carrying.insert(e.task)
            }
            guard included else { return }
            t.tasks.insert(e.task)
            t.unsettledTasks.insert(e.task)
            t.touch(p)
            if e.otherTask != 0, let replaced = t.spawn(e.otherTask) { t.refer(to: replaced) }
        case .taskJoin:
            if let open = t.open, t.cycles.contains(open.cycle) { t.touch(p) }
            // Another request joining one of its tasks is part of that task's life (what the
            // terminal UI lists for a task), not of the lifecycle.
            if t.tasks.contains(e.task) && t.read.last != p { t.read.append(p) }
            guard t.dispatches.contains(e.dispatch) else { return }
            t.carrying.insert(e.task)
            if !t.tasks.contains(e.task) {
                t.tasks.insert(e.task)
                t.unsettledTasks.insert(e.task)
                if let spawn = t.spawn(e.task) { t.refer(to: spawn) }
                if t.requested.contains(e.task) { seeds[r, default: []].insert(e.task) }
            }
        case .taskCancel:
            if t.tasks.contains(e.task) { t.touch(p) }
            if e.cancelReason != .runtimeStop, let open = t.open, t.cycles.contains(open.cycle) {
                t.touch(p)
                if let spawn = t.spawn(e.task) { t.refer(to: spawn) }
            }
            t.end(e.task)
            t.requested.remove(e.task)
        case .taskSettle:
            if t.tasks.contains(e.task) {
                t.unsettledTasks.remove(e.task)
                if e.isReentrySettle { t.reentering.insert(e.task) }
                t.touch(p)
            }
            t.end(e.task)
            t.requested.remove(e.task)
        case .runtimeStart, .runtimeStop, .dispatchRejected, .traceContext:
            break
        }
    }
}

extension LifecycleWindow {
    /// What passes over a stream found of one request id: the runtimes that have it, the
    /// highest dispatch id, and in each runtime the stretch of positions its view reads (its
    /// lifecycle, the spawns of the tasks that lifecycle names, and, for an awaited request, its
    /// latency breakdown's window: ``RequestWindows``).
    package struct Found: Sendable {
        /// The runtimes that have the dispatch, in order of first appearance.
        package var runtimes: [RuntimeKey]
        /// The highest dispatch id of any runtime.
        package var highestDispatch: UInt64?
        /// Each runtime's stretch of positions to read back.
        package var stretches: [RuntimeKey: ClosedRange<Int>]
        /// Passes made (one, unless the request joined a task that had made requests of its own).
        package var passes: Int
        /// Each runtime's positions of the lifecycle's events (``positions(runtime:)``): what a
        /// view of it reads of its stretch, with what its breakdown reads.
        package var lifecycles: [RuntimeKey: [Int]] = [:]
        /// Each runtime's awaited request of that id, whose breakdown's window the stretch holds.
        package var requests: [RuntimeKey: RequestWindows.Request] = [:]
    }

    /// Finds dispatch #`dispatch` in a stream that `read` hands over whole, in the same order,
    /// each time it is called: one pass, or a few when the request joined tasks that had made
    /// requests before (at most `maxPasses`; past that the stretch may miss what those did).
    package static func find(
        dispatch: UInt64, maxPasses: Int = 8, read: ((TraceEvent) -> Void) throws -> Void
    ) rethrows -> Found {
        try find(
            dispatch: dispatch, maxPasses: maxPasses,
            readingUntilSettled: { body, _ in
                try withoutActuallyEscaping(body) { try read($0) }
            })
    }

    /// ``find(dispatch:maxPasses:read:)`` over a stream that `read` may end early: its second
    /// argument says, after each event, whether every runtime that has shown the dispatch has its
    /// lifecycle and latency window behind it (``isSettled``). A reader that knows where the
    /// dispatch can be (the index `trace-view` keeps beside a trace file) stops once it is past
    /// those places and that holds.
    package static func find(
        dispatch: UInt64, maxPasses: Int = 8,
        readingUntilSettled read: (_ body: (TraceEvent) -> Void, _ settled: () -> Bool) throws -> Void
    ) rethrows -> Found {
        var seeds: [RuntimeKey: Set<UInt64>] = [:]
        var passes = 0
        while true {
            passes += 1
            var lifecycle = LifecycleWindow(dispatch: dispatch, seeds: seeds)
            var windows = RequestWindows(only: dispatch)
            try read(
                {
                    lifecycle.consume($0)
                    // Past the runtimes it follows, the windows would be of requests never drawn.
                    if !lifecycle.tooMany { windows.consume($0) }
                }, { lifecycle.isSettled })
            guard !lifecycle.tooMany && lifecycle.seeds != seeds && passes < maxPasses else {
                return lifecycle.found(passes: passes, windows: Array(windows.byLabel.values.joined()))
            }
            seeds = lifecycle.seeds
        }
    }

    /// What the passes found, `windows` the awaited requests of that id resumed in them.
    private func found(passes: Int, windows: [RequestWindows.Request]) -> Found {
        var found = Found(runtimes: runtimes, highestDispatch: highestDispatch, stretches: [:], passes: passes)
        guard !tooMany else { return found }
        for runtime in runtimes {
            guard var stretch = range(runtime: runtime) else { continue }
            for request in windows where request.runtime == runtime {
                stretch = min(stretch.lowerBound, request.first)...max(stretch.upperBound, request.last)
                found.requests[runtime] = request
            }
            found.stretches[runtime] = stretch
            found.lifecycles[runtime] = positions(runtime: runtime)
        }
        return found
    }

    /// ``find(dispatch:maxPasses:read:)`` for several requests at once, each in its own runtime
    /// (a runtime and a dispatch id): the same passes for all (and a few more for those that
    /// joined tasks that had made requests before), so a page of a hundred diagrams reads the
    /// input twice, not two hundred times.
    package static func find(
        _ requests: [TraceIndex.Key], maxPasses: Int = 8, read: ((TraceEvent) -> Void) throws -> Void
    ) rethrows -> [Found] {
        var seeds = [[RuntimeKey: Set<UInt64>]](repeating: [:], count: requests.count)
        var results = [Found?](repeating: nil, count: requests.count)
        var pending = Array(requests.indices)
        var passes = 0
        while !pending.isEmpty {
            passes += 1
            var lifecycles = pending.map { LifecycleWindow(dispatch: requests[$0].id, seeds: seeds[$0]) }
            var byRuntime: [RuntimeKey: [Int]] = [:]
            for (j, i) in pending.enumerated() { byRuntime[requests[i].runtime, default: []].append(j) }
            let wanted = Set(pending.map { requests[$0] })
            var windows = RequestWindows(keeps: false)
            var resumed: [TraceIndex.Key: RequestWindows.Request] = [:]
            var position = 0
            try read { e in
                if let mine = byRuntime[e.runtimeKey] { for j in mine { lifecycles[j].consume(e, at: position) } }
                windows.consume(e)
                if windows.hasResumed {
                    for r in windows.takeResumed() where wanted.contains(TraceIndex.Key(runtime: r.runtime, id: r.dispatch)) {
                        resumed[TraceIndex.Key(runtime: r.runtime, id: r.dispatch)] = r
                    }
                }
                position += 1
            }
            var next: [Int] = []
            for (j, i) in pending.enumerated() {
                if lifecycles[j].seeds != seeds[i] && passes < maxPasses {
                    seeds[i] = lifecycles[j].seeds
                    next.append(i)
                } else {
                    results[i] = lifecycles[j].found(passes: passes, windows: resumed[requests[i]].map { [$0] } ?? [])
                }
            }
            pending = next
        }
        return results.map { $0! }
    }
}

extension LifecycleWindow {
    /// What a view of one request reads of its runtime's stretch (``Found``), collected in one
    /// more pass: the lifecycle's events and those its latency breakdown reads
    /// (``BreakdownReads``), not the whole stretch. A request resumed only at the end of a long
    /// run keeps its few dozen events (the stretch is the run: a report of the slowest requests
    /// of a trace with long windows held each run whole, 262 MB at 10M events).
    package struct Reader {
        /// The request's runtime.
        package let runtime: RuntimeKey
        /// Its stretch of positions (empty when the runtime has none).
        package let stretch: ClosedRange<Int>?
        private let lifecycle: [Int]
        private var next = 0
        private var breakdown: WindowedBreakdowns?
        private var key: TraceIndex.Key?
        private var events: [(position: Int, event: TraceEvent)] = []
        private var position = 0

        /// Reads `runtime`'s part of what `found` found (and, `followsBreakdown`, what its
        /// breakdown reads).
        package init(_ found: Found, runtime: RuntimeKey, followsBreakdown: Bool = true) {
            self.runtime = runtime
            stretch = found.stretches[runtime]
            lifecycle = found.lifecycles[runtime] ?? []
            if followsBreakdown, let request = found.requests[runtime] {
                breakdown = WindowedBreakdowns([request], keepsReads: true)
                key = TraceIndex.Key(runtime: runtime, id: request.dispatch)
            }
        }

        /// Whether the stream is past the stretch: later events change nothing.
        package var isPast: Bool { position > (stretch?.upperBound ?? -1) }

        /// Takes the next event of the same stream as the passes that found it, in order.
        package mutating func consume(_ e: TraceEvent) {
            defer { position += 1 }
            guard let stretch, position <= stretch.upperBound else { return }
            // Every event, so that the breakdown's positions count as the stretch's do.
            breakdown?.consume(e)
            guard e.runtimeKey == runtime else { return }
            collect(e, at: position)
        }

        /// Keeps `e`, of the runtime, at `position`, if it is one of the lifecycle's.
        mutating func collect(_ e: TraceEvent, at position: Int) {
            guard let stretch, stretch.contains(position) else { return }
            while next < lifecycle.count, lifecycle[next] < position { next += 1 }
            if next < lifecycle.count, lifecycle[next] == position { events.append((position, e)) }
        }

        /// Both, merged in stream order (`reads`: what the breakdown read, when the reader did not
        /// follow it itself).
        package mutating func take(reads given: [(position: Int, event: TraceEvent)]? = nil) -> [TraceEvent] {
            let reads = given ?? key.flatMap { breakdown?.takeReads()[$0] } ?? []
            var merged: [TraceEvent] = []
            merged.reserveCapacity(events.count + reads.count)
            var (i, j) = (0, 0)
            while i < events.count || j < reads.count {
                if j == reads.count || (i < events.count && events[i].position < reads[j].position) {
                    merged.append(events[i].event)
                    i += 1
                } else {
                    if i < events.count && events[i].position == reads[j].position { i += 1 }
                    merged.append(reads[j].event)
                    j += 1
                }
            }
            events = []
            return merged
        }
    }

    /// What a view of the request reads in `runtime` (``Reader``), from one more pass of `read`.
    package static func events(
        of found: Found, runtime: RuntimeKey, read: ((TraceEvent) -> Void) throws -> Void
    ) rethrows -> [TraceEvent] {
        var reader = Reader(found, runtime: runtime)
        try read { reader.consume($0) }
        return reader.take()
    }
}

extension LifecycleWindow {
    /// What views of several requests read (``Reader``), each in its runtime, from one more pass
    /// of `read`: the lifecycles' events and what one breakdown pass of them all reads.
    package static func events(
        of found: [(found: Found, runtime: RuntimeKey)], read: ((TraceEvent) -> Void) throws -> Void
    ) rethrows -> [[TraceEvent]] {
        var readers = found.map { Reader($0.found, runtime: $0.runtime, followsBreakdown: false) }
        var breakdowns = WindowedBreakdowns(found.compactMap { $0.found.requests[$0.runtime] }, keepsReads: true)
        var byRuntime: [RuntimeKey: [Int]] = [:]
        for (j, f) in found.enumerated() { byRuntime[f.runtime, default: []].append(j) }
        let end = readers.lazy.compactMap(\.stretch?.upperBound).max() ?? -1
        var position = 0
        try read { e in
            defer { position += 1 }
            guard position <= end else { return }
            breakdowns.consume(e)
            if let mine = byRuntime[e.runtimeKey] { for j in mine { readers[j].collect(e, at: position) } }
        }
        let reads = breakdowns.takeReads()
        return readers.indices.map { j in
            let request = found[j].found.requests[found[j].runtime]
            let key = request.map { TraceIndex.Key(runtime: $0.runtime, id: $0.dispatch) }
            return readers[j].take(reads: key.flatMap { reads[$0] } ?? [])
        }
    }
}
