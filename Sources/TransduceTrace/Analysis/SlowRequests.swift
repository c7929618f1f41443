/// The slowest awaited requests of a trace: every awaited request's ``LatencyBreakdown``,
/// narrowed by event label and a threshold, slowest first. Rendered by ``render(options:)`` and
/// ``json()``.
public struct SlowRequests: Sendable {
    /// Every resumed awaited request (of ``event``, when given).
    public let awaited: [LatencyBreakdown]
    /// Those that took ``threshold`` or more, slowest first.
    public let slow: [LatencyBreakdown]
    /// The first `top` of ``slow``.
    public let shown: [LatencyBreakdown]
    /// Only requests of this event label, when given.
    public let event: String?
    /// Only requests that took this long or longer, when given.
    public let threshold: UInt64?

    /// - Parameters:
    ///   - index: the trace, indexed.
    ///   - top: how many to show (at least 1).
    ///   - threshold: only requests that took this long or longer.
    ///   - event: only requests of this event label.
    public init(index: TraceIndex, top: Int, threshold: UInt64? = nil, event: String? = nil) {
        self.event = event
        self.threshold = threshold
        awaited = index.latencyBreakdowns().filter { event == nil || $0.label == event }
        slow = awaited.filter { threshold == nil || $0.total >= threshold! }.sorted { $0.total > $1.total }
        shown = Array(slow.prefix(max(1, top)))
    }
}
