/// A recorded trace in memory: events in recording order plus what the recorder lost.
public struct Trace: Sendable {
    /// The events, in recording order.
    public var events: [TraceEvent]
    /// What the recorder offered and lost.
    public var counts: TraceCounts
    /// Notes about input that could not be read (truncation, corruption), empty when whole.
    public var notes: [String]
    /// The host name of each process the events came from, where the input says.
    public var hosts: [UInt32: String] = [:]

    /// A trace of `events` with the recorder's `counts` and the reader's `notes`.
    public init(events: [TraceEvent] = [], counts: TraceCounts = TraceCounts(), notes: [String] = []) {
        self.events = events
        self.counts = counts
        self.notes = notes
    }
}

extension Trace {
    /// The earliest event time: what every view counts its times from (`nil` for no events).
    /// The earliest, not the first: the runtime stamps a few events out of order.
    public var start: UInt64? { events.lazy.map(\.time).min() }
}
