/// A pull-based stream of events: trace files and JSON Lines readers.
public protocol TraceEventSource: AnyObject {
    /// The next event, or `nil` at the end (or at the first damage; see ``notes``).
    func next() -> TraceEvent?
    /// What could not be read so far.
    var notes: [String] { get }
    /// The recorder's counts, once the stream has reached them.
    var footer: TraceCounts? { get }
    /// The host of each process seen so far.
    var hosts: [UInt32: String] { get }
}

extension TraceFileReader: TraceEventSource {}
extension JSONLinesReader: TraceEventSource {}

/// Something that folds events one at a time (summaries, reports, exporters), so that reading
/// a trace never needs it all in memory.
public protocol TraceConsumer {
    /// Takes the next event, in trace order.
    mutating func consume(_ event: TraceEvent)
}

extension TraceEventSource {
    /// Reads the rest of the stream into a ``Trace`` (memory grows with the trace).
    public func readAll() -> Trace {
        var events: [TraceEvent] = []
        while let event = next() { events.append(event) }
        var counts = footer ?? TraceCounts()
        counts.events = UInt64(events.count)
        var trace = Trace(events: events, counts: counts, notes: notes)
        trace.hosts = hosts
        return trace
    }

    /// Feeds every remaining event to `consumer`.
    public func feed<C: TraceConsumer>(_ consumer: inout C) {
        while let event = next() { consumer.consume(event) }
    }
}

extension Trace {
    /// Feeds every event to `consumer`, in order.
    public func feed<C: TraceConsumer>(_ consumer: inout C) {
        for event in events { consumer.consume(event) }
    }
}
