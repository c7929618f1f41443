/// The slowest awaited requests of a trace, each with its ``LatencyBreakdown``, narrowed by event
/// label and a threshold, slowest first, and latency by event label (``LatencyByEvent``).
/// Rendered by ``render(options:)`` and ``json()``.
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

    /// From a stream read twice, never held whole: `read` hands every event, in the same order
    /// each time, to the function it is given. The first pass finds every request's latency
    /// (``RequestWindows``); the second breaks down only those shown and those at or above
    /// their label's p99 (``WindowedBreakdowns``), which is what the figures need.
    ///
    /// Memory: about 80 bytes per awaited request, plus the events of the windows being broken
    /// down.
    public init(
        top: Int, threshold: UInt64? = nil, event: String? = nil, read: ((TraceEvent) -> Void) throws -> Void
    ) rethrows {
        self.event = event
        self.threshold = threshold
        var windows = RequestWindows()
        try read { windows.consume($0) }
        let byLabel = windows.byLabel.filter { event == nil || $0.key == event }
        // The slowest `top` (by total, then dispatch position) in a bounded heap, not a sort of all.
        var heap = TopHeap<RequestWindows.Request>(capacity: max(1, top)) { ($0.total, $1.position) > ($1.total, $0.position) }
        var slowCount = 0
        var awaitedCount = 0
        var totals: [String: [UInt64]] = [:]
        var p99: [String: UInt64] = [:]
        var wanted: [RequestWindows.Request] = []
        for (label, requests) in byLabel {
            awaitedCount += requests.count
            let sorted = requests.map(\.total).sorted()
            totals[label] = sorted
            p99[label] = LatencyByEvent.percentile(0.99, of: sorted)
            for r in requests {
                if r.total >= p99[label]! { wanted.append(r) }
                if threshold == nil || r.total >= threshold! {
                    slowCount += 1
                    heap.insert(r)
                }
            }
        }
        self.awaitedCount = awaitedCount
        self.slowCount = slowCount
        let shownRequests = heap.sortedBest()
        let shownKeys = Set(shownRequests.map { TraceIndex.Key(runtime: $0.runtime, id: $0.dispatch) })
        var breakdowns = WindowedBreakdowns(Array(Set(wanted + shownRequests)))
        var shownFound: [TraceIndex.Key: LatencyBreakdown] = [:]
        var tails: [String: LatencyByEvent.Tail] = [:]
        try read { e in
            breakdowns.consume(e)
            guard !breakdowns.breakdowns.isEmpty else { return }
            for (key, b) in breakdowns.take() {
                if shownKeys.contains(key) { shownFound[key] = b }
                if let p = p99[b.label], b.total >= p { tails[b.label, default: LatencyByEvent.Tail()].add(b) }
            }
        }
        shown = shownRequests.compactMap { shownFound[TraceIndex.Key(runtime: $0.runtime, id: $0.dispatch)] }
        byEvent = LatencyByEvent(totals: totals, tails: tails)
    }
}
