/// The ``LatencyBreakdown``s of chosen requests, from a second pass over the same events as
/// ``RequestWindows``: each request's window of its runtime's events is followed while the pass
/// is inside it, what its breakdown reads of it is indexed when the pass reaches its end, and
/// let go.
///
/// Memory: of each runtime with a window open, its events since the earliest open window's
/// start; past a few thousand, only those an open window reads (the stretches where its path
/// waited for the gate and ran its cycles, its tasks' ends, its resume) and those a re-entry's
/// window could still start at. So a request resumed only at the end of a long run keeps its
/// few dozen events, not the run.
public struct WindowedBreakdowns: TraceConsumer {
    private let requests: [RequestWindows.Request]
    /// Index into `requests` (sorted by first position) of the next window to open.
    private var nextToOpen = 0
    /// Open windows' runtimes and dispatches, by the position they end at.
    private var ending: [Int: [TraceIndex.Key]] = [:]
    private var openCount = 0

    /// A runtime with open windows.
    private struct Runtime {
        /// Its gate, followed from where its first open window started: where a re-entry's window
        /// starts.
        var gate = RequestWindows.Runtime()
        /// Its open windows, by dispatch.
        var open: [UInt64: (request: RequestWindows.Request, reads: BreakdownReads)] = [:]
        /// The open windows (their dispatches) that watch each id (``BreakdownReads/Watch``): an
        /// event goes to those alone, so a runtime with thousands open pays for the few that
        /// care.
        var byDispatch: [UInt64: [UInt64]] = [:]
        var byCycle: [UInt64: [UInt64]] = [:]
        var byTask: [UInt64: [UInt64]] = [:]
        /// Its events kept, with their positions, ascending.
        var kept: [(position: Int, event: TraceEvent)] = []
        /// When `kept` is let go of what no window reads.
        var compactAt = Runtime.firstCompaction
        static let firstCompaction = 1_024

        mutating func open(_ r: RequestWindows.Request) {
            open[r.dispatch] = (r, BreakdownReads(dispatch: r.dispatch, first: r.first))
            byDispatch[r.dispatch, default: []].append(r.dispatch)
        }

        /// Closes the window of `dispatch`, handing over what it read.
        mutating func close(_ dispatch: UInt64) -> (request: RequestWindows.Request, reads: BreakdownReads)? {
            guard let w = open.removeValue(forKey: dispatch) else { return nil }
            let watched = w.reads.watched
            for id in watched.dispatches { Self.unwatch(&byDispatch, id, dispatch) }
            for id in watched.cycles { Self.unwatch(&byCycle, id, dispatch) }
            for id in watched.tasks { Self.unwatch(&byTask, id, dispatch) }
            return w
        }

        private static func unwatch(_ map: inout [UInt64: [UInt64]], _ id: UInt64, _ window: UInt64) {
            guard let i = map[id]?.firstIndex(of: window) else { return }
            map[id]!.remove(at: i)
            if map[id]!.isEmpty { map[id] = nil }
        }

        /// Hands `e` (at `position`) to the open windows that watch one of its ids.
        mutating func follow(_ e: TraceEvent, at position: Int) {
            switch e.kind {
            case .dispatch:
                hand(e, at: position, to: byDispatch[e.dispatch])
                if e.otherTask != 0 { hand(e, at: position, to: byTask[e.otherTask]) }
            case .cycleEnter, .taskJoin, .requestResume, .traceContext:
                hand(e, at: position, to: byDispatch[e.dispatch])
            case .cycleLeave:
                hand(e, at: position, to: byCycle[e.cycle])
            case .taskSpawn:
                hand(e, at: position, to: byCycle[e.cycle])
                if e.otherTask != 0 { hand(e, at: position, to: byTask[e.otherTask]) }
            case .taskCancel, .taskSettle:
                hand(e, at: position, to: byTask[e.task])
            default:
                break
            }
            // Where the window of an admission dispatched now starts was asked before the gate
            // takes the dispatch in (as ``RequestWindows`` does).
            gate.follow(e, at: position)
        }

        private mutating func hand(_ e: TraceEvent, at position: Int, to windows: [UInt64]?) {
            guard let windows else { return }
            let gate = self.gate
            for window in windows {
                guard
                    let watch = open[window]?.reads.follow(
                        e, at: position,
                        windowStart: {
                            gate.windowStart(dispatchedAt: e.time, position: position)
                        })
                else { continue }
                if let id = watch.dispatch { byDispatch[id, default: []].append(window) }
                if let id = watch.entered { Self.unwatch(&byDispatch, id, window) }
                if let id = watch.cycle { byCycle[id, default: []].append(window) }
                if let id = watch.left { Self.unwatch(&byCycle, id, window) }
                if let id = watch.task { byTask[id, default: []].append(window) }
            }
        }

        /// Lets go of the kept events that no open window reads and no re-entry's window could
        /// start at; at most once per doubling, so each event is looked at a bounded number of
        /// times.
        mutating func compact() {
            var ranges = open.values.flatMap(\.reads.ranges)
            if let lookback = gate.lookbackStart { ranges.append(lookback...Int.max) }
            ranges.sort { $0.lowerBound < $1.lowerBound }
            var merged: [ClosedRange<Int>] = []
            for r in ranges {
                if let last = merged.last, r.lowerBound <= last.upperBound {
                    merged[merged.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
                } else {
                    merged.append(r)
                }
            }
            // Both ascending: one sweep.
            var i = 0
            kept.removeAll { item in
                while i < merged.count, merged[i].upperBound < item.position { i += 1 }
                return !(i < merged.count && merged[i].contains(item.position))
            }
            compactAt = max(Self.firstCompaction, 2 * kept.count)
        }

        /// The index of the first of `kept` at or after `position` (binary search).
        static func firstIndex(in kept: [(position: Int, event: TraceEvent)], atOrAfter position: Int) -> Int {
            var low = 0
            var high = kept.count
            while low < high {
                let mid = (low + high) / 2
                if kept[mid].position < position { low = mid + 1 } else { high = mid }
            }
            return low
        }

        /// Lets go of the kept events before every open window's and the gate's earliest.
        mutating func trim() {
            var earliest = gate.lookbackStart ?? .max
            for w in open.values { earliest = min(earliest, w.reads.earliest) }
            let before = Self.firstIndex(in: kept, atOrAfter: earliest)
            if before > 0 { kept.removeFirst(before) }
        }
    }
    private var runtimes = PerRuntime<Runtime>()
    private var position = 0
    /// Events kept now, of every runtime.
    private var keptCount = 0
    /// The most events kept at once (what the pass's memory grows with).
    package private(set) var peakKept = 0
    /// The breakdowns found and not yet taken (a request whose window did not yield one — a
    /// damaged trace — has none).
    public private(set) var breakdowns: [TraceIndex.Key: LatencyBreakdown] = [:]
    /// With `keepsWindows`, each found breakdown's window's index (what the breakdown read).
    package private(set) var windows: [TraceIndex.Key: TraceIndex] = [:]
    private var keepsWindows = false
    /// With `keepsReads`, the events each found breakdown read, with their positions.
    private var reads: [TraceIndex.Key: [(position: Int, event: TraceEvent)]] = [:]
    private var keepsReads = false

    /// Hands over the breakdowns found so far, so that a caller who folds them as they come
    /// (``LatencyByEvent/Tail``) holds none.
    public mutating func take() -> [TraceIndex.Key: LatencyBreakdown] {
        defer { breakdowns = [:] }
        return breakdowns
    }

    /// Breaks down `requests` (found by ``RequestWindows`` over the same events).
    public init(_ requests: consuming [RequestWindows.Request]) {
        requests.sort { $0.first < $1.first }
        self.requests = requests
    }

    /// Breaks down `requests` keeping each window's index too (``windows``).
    package init(_ requests: consuming [RequestWindows.Request], keepsWindows: Bool) {
        self.init(requests)
        self.keepsWindows = keepsWindows
    }

    /// Breaks down `requests` keeping the events each read, with their positions
    /// (``takeReads()``).
    package init(_ requests: consuming [RequestWindows.Request], keepsReads: Bool) {
        self.init(requests)
        self.keepsReads = keepsReads
    }

    /// Hands over the events each request's breakdown read so far, with their positions.
    package mutating func takeReads() -> [TraceIndex.Key: [(position: Int, event: TraceEvent)]] {
        defer { reads = [:] }
        return reads
    }

    /// Hands over the breakdowns found so far with their windows' indexes.
    package mutating func takeWithWindows() -> [(breakdown: LatencyBreakdown, window: TraceIndex)] {
        defer {
            breakdowns = [:]
            windows = [:]
        }
        return breakdowns.sorted { ($0.key.runtime.rawValue, $0.key.id) < ($1.key.runtime.rawValue, $1.key.id) }.compactMap {
            key, b in
            windows[key].map { (b, $0) }
        }
    }

    public mutating func consume(_ e: TraceEvent) {
        defer { position += 1 }
        while nextToOpen < requests.count, requests[nextToOpen].first == position {
            let r = requests[nextToOpen]
            let slot = runtimes.slot(r.runtime) { Runtime() }
            runtimes[slot: slot].open(r)
            ending[r.last, default: []].append(TraceIndex.Key(runtime: r.runtime, id: r.dispatch))
            openCount += 1
            nextToOpen += 1
        }
        guard openCount > 0, let slot = runtimes.slot(e.runtimeKey), !runtimes[slot: slot].open.isEmpty else { return }
        follow(e, in: slot)
        guard let ends = ending.removeValue(forKey: position) else { return }
        for key in ends {
            guard let i = runtimes.slot(key.runtime), let w = runtimes[slot: i].close(key.id) else { continue }
            openCount -= 1
            breakDown(w.request, reading: w.reads, from: runtimes[slot: i].kept)
            keptCount -= runtimes[slot: i].kept.count
            if runtimes[slot: i].open.isEmpty {
                // Nothing of the runtime is followed until a window of it opens again (from its
                // start: every admission it waits behind comes after).
                runtimes[slot: i] = Runtime()
            } else {
                runtimes[slot: i].trim()
            }
            keptCount += runtimes[slot: i].kept.count
        }
    }

    /// Follows `e` in its runtime (slot `i`): its gate, its open windows, what it keeps.
    private mutating func follow(_ e: TraceEvent, in i: Int) {
        runtimes[slot: i].follow(e, at: position)
        runtimes[slot: i].kept.append((position, e))
        keptCount += 1
        peakKept = max(peakKept, keptCount)
        if runtimes[slot: i].kept.count >= runtimes[slot: i].compactAt {
            keptCount -= runtimes[slot: i].kept.count
            runtimes[slot: i].compact()
            keptCount += runtimes[slot: i].kept.count
        }
    }

    private mutating func breakDown(
        _ r: RequestWindows.Request, reading reads: BreakdownReads, from kept: [(position: Int, event: TraceEvent)]
    ) {
        let from = Runtime.firstIndex(in: kept, atOrAfter: r.first)
        let read = kept[from...].filter { reads.reads($0.position) }
        let key = TraceIndex.Key(runtime: r.runtime, id: r.dispatch)
        if keepsReads { self.reads[key] = read }
        let index = TraceIndex(read.map(\.event))
        guard let b = index.latencyBreakdown(runtime: r.runtime, dispatch: r.dispatch) else { return }
        breakdowns[key] = b
        if keepsWindows { windows[key] = index }
    }
}
