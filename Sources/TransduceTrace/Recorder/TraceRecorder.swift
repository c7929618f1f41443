import CLTTng
import CTraceRing
import Synchronization
import Transduce

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The runtime instrument of the toolkit: feeds an in-process ring buffer and LTTng-UST at once.
///
/// With default settings the ring buffer always records, and LTTng receives events whenever an
/// LTTng session enables `transduce:*` (no rebuild, no code change). A recorder whose ring is
/// disabled (``isRingEnabled`` `false`) and that no session traces reports
/// ``isRecording`` `false`, so hosts prepare nothing.
///
/// ```swift
/// let recorder = TraceRecorder()
/// RuntimeInstrumentation.bootstrap(recorder)      // hosts created from now on record
/// ...
/// try recorder.write(to: "run.tdtrace")
/// ```
///
/// Thread-safety: every method may be called from any thread.
public final class TraceRecorder: RuntimeInstrument {
    package let ring: TraceRings
    package let labels: LabelTable
    /// Whether events also go to LTTng-UST when a session enables them.
    public let feedsLTTng: Bool
    private let ringEnabled: Atomic<Bool>
    private let payloadCapture: PayloadCapture?
    private let payloads: PayloadStore?
    /// Resumes slower than this trip ``slowDumper`` (`.max`: no trigger).
    private let slowThreshold: UInt64
    let slowDumper: SlowRequestDumper?
    /// Turns the ring into traces and dumps (shared with ``slowDumper``).
    let reader: RingReader

    /// - Parameters:
    ///   - capacity: ring-buffer events in all (rounded up to a power of two); 104 bytes each,
    ///     allocated once. From 2,048 events on, the ring is split into lanes (twice the
    ///     processors, at most 16, none under 1,024 events) and each runtime records into the lane
    ///     of its id, so runtimes recording at once do not contend: a runtime keeps at least
    ///     `capacity ÷ lanes` of its newest events (``eventsKeptPerRuntime``; a quarter of the
    ///     capacity on a two-core machine, a sixteenth on eight cores). Dumps and snapshots merge
    ///     the lanes by time.
    ///   - mode: overwrite the oldest events (flight recorder) or discard new ones when full.
    ///   - lttng: also feed LTTng-UST whenever a session enables `transduce:*` (loads the
    ///     provider, see ``LTTngProvider``).
    ///   - payloads: opt-in capture of dispatched event values, redacted.
    ///   - ringEnabled: keep events in the ring buffer (`false`: LTTng only).
    ///   - slowRequests: dump the ring to a file when an awaited request takes longer than a
    ///     threshold (see ``SlowRequestTrigger``; needs the ring).
    ///   - lanes: how many lanes to split the ring into (a power of two, at most half the
    ///     capacity); `nil` chooses as above. An app with one runtime, or one that records far
    ///     more than the others, passes 1 to keep the whole capacity for it (runtimes recording
    ///     at once then contend for the one lane).
    public convenience init(
        capacity: Int = 1 << 16, mode: TraceBufferMode = .overwriteOldest, lttng: Bool = true,
        payloads: PayloadCapture? = nil, ringEnabled: Bool = true, slowRequests: SlowRequestTrigger? = nil,
        lanes: Int? = nil
    ) {
        precondition(lanes.map { $0 > 0 && $0 & ($0 - 1) == 0 } ?? true, "lanes must be a power of two")
        self.init(
            capacity: capacity, mode: mode, lttng: lttng, payloads: payloads, ringEnabled: ringEnabled,
            slowRequests: slowRequests, lanes: lanes, dumpWriter: { try TraceFileWriter.write($0, to: $1) })
    }

    /// The fewest of its newest events the ring keeps of any one runtime: the capacity divided
    /// among the lanes (a runtime with a lane to itself keeps all of its lane).
    public var eventsKeptPerRuntime: Int { ring.lanes.first?.capacity ?? 0 }

    /// `lanes` splits the ring (``TraceRings``; `nil`: as many as suit this machine);
    /// `dumpWriter` writes slow-request dumps (tests give one that stalls).
    package init(
        capacity: Int, mode: TraceRingBuffer.Mode, lttng: Bool, payloads: PayloadCapture?, ringEnabled: Bool,
        slowRequests: SlowRequestTrigger?, lanes: Int?, dumpWriter: @escaping @Sendable (Trace, String) throws -> Void
    ) {
        ring = TraceRings(capacity: capacity, mode: mode, lanes: lanes)
        labels = LabelTable()
        feedsLTTng = lttng && LTTngProvider.isLoaded
        self.ringEnabled = Atomic(ringEnabled)
        payloadCapture = payloads
        self.payloads = payloads.map { PayloadStore(capacity: $0.capacity) }
        slowThreshold = slowRequests?.threshold ?? .max
        // The dumper reads the ring through its own reader, never through the recorder: a weak
        // reference to the recorder would move its reference count to a side table, and every
        // retain of it on the record path would take the slow road.
        let reader = RingReader(ring: ring, labels: labels, payloads: self.payloads)
        self.reader = reader
        slowDumper = slowRequests.map {
            SlowRequestDumper(
                trigger: $0, snapshot: { reader.snapshot(occasion: .slowRequest, slowRequests: $0) }, write: dumpWriter)
        }
    }

    /// What the slow-request trigger has done (all zero without one).
    public var slowRequestDumps: SlowRequestDumpCounts {
        slowDumper?.counts ?? SlowRequestDumpCounts(slowRequests: 0, written: 0, suppressed: 0, failed: 0)
    }

    /// Waits until the slow-request dumps asked for so far are written.
    public func flushSlowRequestDumps() { slowDumper?.flush() }

    /// Turns ring-buffer recording on or off at run time (one relaxed atomic store).
    public var isRingEnabled: Bool {
        get { ringEnabled.load(ordering: .relaxed) }
        set { ringEnabled.store(newValue, ordering: .relaxed) }
    }

    public var isRecording: Bool {
        ringEnabled.load(ordering: .relaxed) || (feedsLTTng && clttng_any_enabled() != 0)
    }

    public var capturesPayloads: Bool { payloadCapture != nil }

    public var capturesStates: Bool { payloadCapture?.state != nil }

    public func record(_ event: RuntimeEvent) {
        if ringEnabled.load(ordering: .relaxed) { keep(event, label2: labels.reference(event.label2)) }
        if feedsLTTng && clttng_any_enabled() != 0 { LTTngSink.emit(event) }
    }

    /// With state capture on (``PayloadCapture/state``): a `cycleLeave`, with the text of the
    /// state the cycle committed kept beside it as its payload.
    public func record(_ event: RuntimeEvent, state: Any) { record(event) { $0.state?(state) } }

    /// With payload capture on: the event, with its payload's redacted text kept beside it.
    public func record(_ event: RuntimeEvent, payload: any Sendable) { record(event) { $0.redact(payload) } }

    /// The event, with the text `capture` makes of what it carries kept beside it (in the ring
    /// only: LTTng events have no field for it).
    private func record(_ event: RuntimeEvent, text capture: (PayloadCapture) -> String?) {
        if ringEnabled.load(ordering: .relaxed) {
            var label2 = labels.reference(event.label2)
            if let payloadCapture, let payloads, let text = capture(payloadCapture) {
                label2 = payloads.store(text)
            }
            keep(event, label2: label2)
        }
        if feedsLTTng && clttng_any_enabled() != 0 { LTTngSink.emit(event) }
    }

    /// Keeps `event` in the ring, with `label2` as its second label's word (a payload's text
    /// takes its place).
    @inline(__always)
    private func keep(_ event: RuntimeEvent, label2: UInt64) {
        // The label and the thread before the slot is claimed: publishing a new label is a call,
        // and the event's fields read before a call would be kept across it on the stack.
        let label = labels.reference(event.label)
        let thread = clttng_thread_id_inline()
        ring.record(runtime: event.runtime.rawValue) { Self.words(of: event, label: label, label2: label2, thread: thread) }
        // After the ring has the resume, so the dump holds it. `nanos` is the latency of a
        // resume; the kind test comes second, as most events are not over any threshold.
        if event.nanos > slowThreshold, event.kind == .requestResume {
            slowDumper?.trip(runtime: event.runtime.rawValue, dispatch: event.dispatch)
        }
    }

    /// `event`'s slot form: plain stores (labels are one-word references already).
    @inline(__always)
    static func words(of event: RuntimeEvent, label: UInt64, label2: UInt64, thread: UInt32) -> RawRecord.Words {
        (
            UInt64(event.kind.rawValue) | UInt64(event.code) << 8 | UInt64(event.code2) << 16 | UInt64(event.step) << 32,
            event.time, event.runtime.rawValue, event.dispatch, event.cycle, event.task, event.otherTask, event.nanos,
            UInt64(event.count) | UInt64(thread) << 32, label, label2
        )
    }

    /// Decodes a slot record into an event.
    package func decode(_ r: RawRecord) -> TraceEvent { reader.decode(r, process: Self.processID) }

    /// A copy of every event the ring holds, oldest first, with exact loss counts. Producers keep
    /// recording meanwhile.
    public func snapshot() -> Trace { reader.trace(from: ring.snapshot(), slowRequests: slowDumper?.counts) }

    /// Removes and returns the events recorded since the last drain.
    public func drain() -> Trace { reader.trace(from: ring.drain(), slowRequests: slowDumper?.counts) }

    /// This process's id, read per call: a forked child records under its own.
    static var processID: UInt32 { UInt32(bitPattern: getpid()) }

    /// This machine's host name (`gethostname`), "" when unknown.
    package static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
