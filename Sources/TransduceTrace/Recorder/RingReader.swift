import CTraceRing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns a ring's slots into a ``Trace``: what a recorder and its slow-request dumper share, so the
/// dumper needs no reference to the recorder.
struct RingReader: Sendable {
    let ring: TraceRings
    let labels: LabelTable
    let payloads: PayloadStore?

    /// The events of `batch` as a trace of this process, with its loss counts and the slow-request
    /// counts `slowRequests` (none without a trigger).
    func trace(from batch: TraceRingBuffer.Batch, slowRequests: SlowRequestDumpCounts?) -> Trace {
        let process = TraceRecorder.processID
        var trace = Trace(
            events: batch.records.map { decode($0, process: process) },
            counts: counts(batch.counts, read: batch.records.count, unreadable: batch.unreadable, slowRequests: slowRequests))
        trace.hosts = [process: TraceRecorder.hostName]
        return trace
    }

    /// A snapshot of the ring as a trace that says why it was taken.
    func snapshot(occasion: TraceCounts.Occasion, slowRequests: SlowRequestDumpCounts?) -> Trace {
        var trace = trace(from: ring.snapshot(), slowRequests: slowRequests)
        trace.counts.occasion = occasion
        return trace
    }

    /// Writes what ``trace(from:slowRequests:)`` of a snapshot would hold, in the binary format,
    /// straight from the ring a chunk at a time: no copy of the ring, no `TraceEvent` or `String`
    /// per event (each distinct label is resolved once). Memory: one chunk and the labels seen.
    func encodeSnapshot(
        occasion: TraceCounts.Occasion, slowRequests: SlowRequestDumpCounts?, into sink: ([UInt8]) -> Void
    ) {
        let process = TraceRecorder.processID
        var encoder = TraceFileEncoder(hosts: [process: TraceRecorder.hostName])
        var read = 0
        let text = { (reference: UInt64, payload: Bool) -> String in
            payload ? payloads?.resolve(reference) ?? "" : labels.resolve(reference)
        }
        let (ringCounts, unreadable) = ring.walk(chunk: TraceFileFormat.eventsPerChunk) { records in
            encoder.append(records: records, process: process, text: text, into: sink)
            read += records.count
        }
        var counts = counts(ringCounts, read: read, unreadable: unreadable, slowRequests: slowRequests)
        counts.occasion = occasion
        encoder.finish(counts: counts, into: sink)
    }

    /// `clock`'s time in nanoseconds, as `clock_gettime` reads it.
    private static func nanoseconds(of clock: clockid_t) -> UInt64 {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    private func counts(
        _ ring: TraceRingBuffer.Counts, read: Int, unreadable: UInt64, slowRequests: SlowRequestDumpCounts?
    ) -> TraceCounts {
        var counts = TraceCounts()
        counts.events = UInt64(read)
        counts.overwritten = ring.overwritten
        counts.discarded = ring.discarded
        counts.lost = unreadable
        // The two clocks read side by side, each as clock_gettime gives it.
        counts.monotonicOrigin = Self.nanoseconds(of: CLOCK_MONOTONIC)
        counts.realtimeOrigin = Self.nanoseconds(of: CLOCK_REALTIME)
        if let slowRequests {
            counts.slowRequests = UInt64(slowRequests.slowRequests)
            counts.slowDumps = UInt64(slowRequests.written)
        }
        return counts
    }

    /// The event in slot form `r`, recorded by `process`.
    func decode(_ r: RawRecord, process: UInt32) -> TraceEvent {
        var event = TraceEvent(
            kind: TraceEvent.Kind(rawValue: r.kindCode) ?? .eventDropped, time: r.time, thread: r.thread, runtime: r.runtime)
        event.process = process
        event.dispatch = r.dispatch
        event.cycle = r.cycle
        event.task = r.task
        event.otherTask = r.otherTask
        event.step = r.step
        event.code = r.code
        event.code2 = r.code2
        event.count = r.count
        event.nanos = r.nanos
        event.label = labels.resolve(r.label)
        if event.kind == .runtimeStart {
            event.label2 = labels.resolve(r.label2)
        } else if let payloads {
            event.payload = payloads.resolve(r.label2)
        }
        return event
    }
}
