/// A stream that is still being recorded (a live session), kept in bounded memory: the most
/// recent events, for the analyses that need events (latency parts, task fates, gate holds), and
/// a ``LiveTally`` of everything, for the totals.
///
/// A value: fold events into it with ``add(_:)`` in the order they arrive, take ``trace`` at any
/// time and give it to any analysis, as a flight recorder's dump is (the analyses expect a trace
/// whose oldest events may be gone: a request whose dispatch fell out of the window is not
/// shown, one whose resume has not come yet is still waiting). Memory is ``capacity`` events and
/// the tally's bounds, whatever the stream's length. Copying it is cheap (the events are shared
/// until the next ``add(_:)`` copies them once).
package struct LiveWindow: Sendable {
    /// The most events kept.
    package let capacity: Int
    /// The totals of every event folded in, kept or not.
    package private(set) var tally = LiveTally()
    /// Events that left the window to make room (oldest first).
    package private(set) var evicted: UInt64 = 0
    /// The kept events; once full, `next` is the oldest and where the next event goes.
    private var ring: [TraceEvent] = []
    private var next = 0

    /// An empty window of at most `capacity` events (at least 1).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring.reserveCapacity(min(self.capacity, 1 << 16))
    }

    /// Folds in one event: into the tally, and into the window in place of the oldest when full.
    package mutating func add(_ event: TraceEvent) {
        tally.add(event)
        if ring.count < capacity {
            ring.append(event)
        } else {
            ring[next] = event
            next = next + 1 == capacity ? 0 : next + 1
            evicted += 1
        }
    }

    /// The kept events, oldest first.
    package var events: [TraceEvent] { Array(ring[next...]) + ring[..<next] }

    /// The kept events as a trace for the analyses; its counts say how many events there were in
    /// all (``TraceCounts/events``), not the window's.
    package var trace: Trace {
        var trace = Trace(events: events)
        trace.counts.events = tally.events
        return trace
    }
}
