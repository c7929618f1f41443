/// The ``LatencyBreakdown``s of chosen requests, from a second pass over the same events as
/// ``RequestWindows``: each request's window of its runtime's events is followed while the pass
/// is inside it, what its breakdown reads of it is indexed when the pass reaches its end, and
/// let go.
///
/// Memory: of each runtime with a window open, its events since the earliest open window's
/// start; past a thousand, only those an open window reads (the stretches where its path
/// waited for the gate and ran its cycles, its tasks' ends, its resume) and those a re-entry's
/// window could still start at. So a request resumed only at the end of a long run keeps its
/// few dozen events, not the run.
package struct WindowedBreakdowns: TraceConsumer {
    private let requests: [RequestWindows.Request]
    /// Index into `requests` (sorted by first position) of the next window to open.
    private var nextToOpen = 0
    /// Open windows' runtimes and dispatches, by the position they end at.
    private var ending: [Int: [TraceIndex.Key]] = [:]

    /// A runtime with open windows: its events and what each window reads, and its gate,
    /// followed from where its first open window started (where a re-entry's window starts).
    private struct Runtime {
        var keeper = BreakdownKeeper()
        var gate = RequestWindows.Runtime()
    }
    private var runtimes = PerRuntime<Runtime>()
    /// The open windows' requests.
    private var opened: [TraceIndex.Key: RequestWindows.Request] = [:]
    private var position = 0
    /// Events kept now, of every runtime.
    private var keptCount = 0
    /// The most events kept at once (what the pass's memory grows with).
    package private(set) var peakKept = 0
    /// The breakdowns found and not yet taken (a request whose window did not yield one — a
    /// damaged trace — has none).
    package private(set) var breakdowns: [TraceIndex.Key: LatencyBreakdown] = [:]
    /// With `keepsWindows`, each found breakdown's window's index (what the breakdown read).
    package private(set) var windows: [TraceIndex.Key: TraceIndex] = [:]
    private var keepsWindows = false
    /// With `keepsReads`, the events each found breakdown read, with their positions.
    private var reads: [TraceIndex.Key: [(position: Int, event: TraceEvent)]] = [:]
    private var keepsReads = false

    /// Hands over the breakdowns found so far, so that a caller who folds them as they come
    /// (``LatencyByEvent/Tail``) holds none.
    package mutating func take() -> [TraceIndex.Key: LatencyBreakdown] {
        defer { breakdowns = [:] }
        return breakdowns
    }

    /// Breaks down `requests` (found by ``RequestWindows`` over the same events).
    package init(_ requests: consuming [RequestWindows.Request]) {
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

    package mutating func consume(_ e: TraceEvent) {
        defer { position += 1 }
        while nextToOpen < requests.count, requests[nextToOpen].first == position {
            let r = requests[nextToOpen]
            let key = TraceIndex.Key(runtime: r.runtime, id: r.dispatch)
            runtimes[slot: runtimes.slot(r.runtime) { Runtime() }].keeper.open(r.dispatch, first: r.first)
            opened[key] = r
            ending[r.last, default: []].append(key)
            nextToOpen += 1
        }
        guard !opened.isEmpty, let i = runtimes.slot(e.runtimeKey), !runtimes[slot: i].keeper.isIdle else { return }
        let start = e.isTaskReentry ? runtimes[slot: i].gate.windowStart(dispatchedAt: e.time, position: position) : nil
        runtimes[slot: i].keeper.consume(e, at: position, windowStart: start)
        runtimes[slot: i].gate.follow(e, at: position)
        keptCount += 1
        peakKept = max(peakKept, keptCount)
        if runtimes[slot: i].keeper.isDueForCompaction {
            keptCount -= runtimes[slot: i].keeper.compact(lookback: runtimes[slot: i].gate.lookbackStart, spawns: [])
        }
        guard let ends = ending.removeValue(forKey: position) else { return }
        for key in ends {
            guard let r = opened.removeValue(forKey: key), let i = runtimes.slot(key.runtime) else { continue }
            let reads = runtimes[slot: i].keeper.close(key.id)
            breakDown(r, reading: runtimes[slot: i].keeper.events(from: r.first, reading: reads))
            if runtimes[slot: i].keeper.isIdle {
                // Nothing of the runtime is followed until a window of it opens again (from its
                // start: every admission it waits behind comes after).
                keptCount -= runtimes[slot: i].keeper.count
                runtimes[slot: i] = Runtime()
            } else {
                let gate = runtimes[slot: i].gate.lookbackStart ?? .max
                let earliest = min(gate, runtimes[slot: i].keeper.earliestRead ?? .max)
                keptCount -= runtimes[slot: i].keeper.drop(before: earliest)
            }
        }
    }

    private mutating func breakDown(_ r: RequestWindows.Request, reading read: [(position: Int, event: TraceEvent)]) {
        let key = TraceIndex.Key(runtime: r.runtime, id: r.dispatch)
        if keepsReads { reads[key] = read }
        let index = TraceIndex(read.map(\.event))
        guard let b = index.latencyBreakdown(runtime: r.runtime, dispatch: r.dispatch) else { return }
        breakdowns[key] = b
        if keepsWindows { windows[key] = index }
    }
}
