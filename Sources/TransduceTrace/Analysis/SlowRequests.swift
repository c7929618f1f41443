import Transduce

/// The slowest awaited requests of a trace, each with its ``LatencyBreakdown``, narrowed by event
/// label and a threshold, slowest first, and latency by event label (``LatencyByEvent``).
/// Rendered by `trace-view slow` (as text or JSON).
public struct SlowRequests: Sendable {
    /// How many awaited requests (of ``event``, when given) were resumed.
    public let awaitedCount: Int
    /// How many of them took ``threshold`` or more (all of them without one).
    public let slowCount: Int
    /// The slowest `top` of those, slowest first.
    public let shown: [LatencyBreakdown]
    /// Percentiles and the cause at p99, per event label, over every awaited request.
    public let byEvent: LatencyByEvent
    /// Only requests of this event label, when given.
    public let event: String?
    /// Only requests that took this long or longer, when given.
    public let threshold: UInt64?

    /// From a trace held whole.
    ///
    /// - Parameters:
    ///   - index: the trace, indexed.
    ///   - top: how many to show (at least 1).
    ///   - threshold: only requests that took this long or longer.
    ///   - event: only requests of this event label.
    public init(index: TraceIndex, top: Int, threshold: UInt64? = nil, event: String? = nil) {
        self.event = event
        self.threshold = threshold
        let awaited = index.latencyBreakdowns().filter { event == nil || $0.label == event }
        let slow = awaited.filter { threshold == nil || $0.total >= threshold! }.sorted { $0.total > $1.total }
        awaitedCount = awaited.count
        slowCount = slow.count
        shown = Array(slow.prefix(max(1, top)))
        byEvent = LatencyByEvent(awaited)
    }

    /// From a stream read three times, never held whole: `read` hands every event, in the same
    /// order each time, to the function it is given. The first pass finds every request's
    /// latency (`RequestWindows`) and keeps the latencies by label and the slowest `top`; the
    /// second finds the windows of those at or above their label's p99; the third breaks down
    /// only those and the ones shown (`WindowedBreakdowns`), which is what the figures need.
    ///
    /// Memory: 8 bytes per awaited request (its latency, for the percentiles), the windows of
    /// the p99 tails and of those shown, and the events of the windows being broken down.
    public init(
        top: Int, threshold: UInt64? = nil, event: String? = nil, read: ((TraceEvent) -> Void) throws -> Void
    ) rethrows {
        self.event = event
        self.threshold = threshold
        // A hostile trace can give every request a label of its own: past the bound they share one.
        var totals: [String: [UInt64]] = [:]
        func label(_ r: RequestWindows.Request) -> String? {
            guard event == nil || r.label == event else { return nil }
            return totals[r.label] != nil || totals.count < RequestWindows.maxLabels ? r.label : "(other labels)"
        }
        // The slowest `top` (by total, then dispatch position) in a bounded heap, not a sort of all.
        var heap = TopHeap<RequestWindows.Request>(capacity: max(1, top))
        var slowCount = 0
        var windows = RequestWindows(keeps: false)
        try read {
            windows.consume($0)
            guard windows.hasResumed else { return }
            for r in windows.takeResumed() {
                guard let l = label(r) else { continue }
                totals[l, default: []].append(r.total)
                if threshold == nil || r.total >= threshold! {
                    slowCount += 1
                    heap.insert(r, key: TopHeap<RequestWindows.Request>.key(descending: r.total, ascending: UInt64(r.position)))
                }
            }
        }
        awaitedCount = totals.values.reduce(0) { $0 + $1.count }
        self.slowCount = slowCount
        for key in Array(totals.keys) { totals[key]!.sort() }
        let p99 = totals.mapValues { LatencyByEvent.percentile(0.99, of: $0) }
        // The tails' windows, now that the p99s are known.
        var wanted = Set(heap.sortedBest())
        windows = RequestWindows(keeps: false)
        try read {
            windows.consume($0)
            guard windows.hasResumed else { return }
            for r in windows.takeResumed() {
                if let l = label(r), r.total >= p99[l]! { wanted.insert(r) }
            }
        }
        let shownRequests = heap.sortedBest()
        let shownKeys = Set(shownRequests.map { TraceIndex.Key(runtime: $0.runtime, id: $0.dispatch) })
        var breakdowns = WindowedBreakdowns(Array(wanted))
        var shownFound: [TraceIndex.Key: LatencyBreakdown] = [:]
        var tails: [String: LatencyByEvent.Tail] = [:]
        // A context comes before its dispatch, outside the request's window: kept here.
        var contexts: [TraceIndex.Key: TraceContext] = [:]
        try read { e in
            if let context = e.traceContext {
                let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)
                if shownKeys.contains(key) { contexts[key] = context }
            }
            breakdowns.consume(e)
            guard !breakdowns.breakdowns.isEmpty else { return }
            for (key, b) in breakdowns.take() {
                if shownKeys.contains(key) { shownFound[key] = b }
                if let p = p99[b.label], b.total >= p { tails[b.label, default: LatencyByEvent.Tail()].add(b) }
            }
        }
        shown = shownRequests.compactMap { r in
            let key = TraceIndex.Key(runtime: r.runtime, id: r.dispatch)
            var b = shownFound[key]
            b?.traceContext = contexts[key]
            return b
        }
        byEvent = LatencyByEvent(totals: totals, tails: tails)
    }
}
