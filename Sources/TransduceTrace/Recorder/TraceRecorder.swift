import CLTTng
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
    package let ring: TraceRingBuffer
    package let labels: LabelTable
    /// Whether events also go to LTTng-UST when a session enables them.
    public let feedsLTTng: Bool
    private let ringEnabled: Atomic<Bool>
    private let payloadCapture: PayloadCapture?
    private let payloads: PayloadStore?
    /// Resumes slower than this trip ``slowDumper`` (`.max`: no trigger).
    private let slowThreshold: UInt64
    private let slowDumper: SlowRequestDumper?

    /// - Parameters:
    ///   - capacity: ring-buffer events (rounded up to a power of two); 104 bytes each.
    ///   - mode: overwrite the oldest events (flight recorder) or discard new ones when full.
    ///   - lttng: also feed LTTng-UST whenever a session enables `transduce:*` (loads the
    ///     provider, see ``LTTngProvider``).
    ///   - payloads: opt-in capture of dispatched event values, redacted.
    ///   - ringEnabled: keep events in the ring buffer (`false`: LTTng only).
    ///   - slowRequests: dump the ring to a file when an awaited request takes longer than a
    ///     threshold (see ``SlowRequestTrigger``; needs the ring).
    public convenience init(
        capacity: Int = 1 << 16, mode: TraceBufferMode = .overwriteOldest, lttng: Bool = true,
        payloads: PayloadCapture? = nil, ringEnabled: Bool = true, slowRequests: SlowRequestTrigger? = nil
    ) {
        self.init(
            capacity: capacity, mode: mode, lttng: lttng, payloads: payloads, ringEnabled: ringEnabled,
            slowRequests: slowRequests, dumpWriter: { try TraceFileWriter.write($0, to: $1) })
    }

    /// `dumpWriter` writes slow-request dumps (tests give one that stalls).
    package init(
        capacity: Int, mode: TraceRingBuffer.Mode, lttng: Bool, payloads: PayloadCapture?, ringEnabled: Bool,
        slowRequests: SlowRequestTrigger?, dumpWriter: @escaping @Sendable (Trace, String) throws -> Void
    ) {
        ring = TraceRingBuffer(capacity: capacity, mode: mode)
        labels = LabelTable()
        feedsLTTng = lttng && LTTngProvider.isLoaded
        self.ringEnabled = Atomic(ringEnabled)
        payloadCapture = payloads
        self.payloads = payloads.map { PayloadStore(capacity: $0.capacity) }
        slowThreshold = slowRequests?.threshold ?? .max
        // The dumper reaches the recorder weakly: the recorder owns it.
        let box = WeakRecorder()
        slowDumper = slowRequests.map {
            SlowRequestDumper(
                trigger: $0, snapshot: { box.recorder?.snapshot(occasion: .slowRequest) }, write: dumpWriter)
        }
        box.recorder = self
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

    public func record(_ event: RuntimeEvent) {
        if ringEnabled.load(ordering: .relaxed) {
            let raw = encode(event)
            ring.record(raw)
            // After the ring has the resume, so the dump holds it. `nanos` is the latency of a
            // resume; the kind test comes second, as most events are not over any threshold.
            if raw.nanos > slowThreshold, raw.kindCode == TraceEvent.Kind.requestResume.rawValue {
                slowDumper?.trip(runtime: raw.runtime, dispatch: raw.dispatch)
            }
        }
        if feedsLTTng && clttng_any_enabled() != 0 {
            LTTngSink.emit(event)
        }
    }

    /// Encodes `event` into its slot form. Allocation-free unless a label is dynamic or a payload
    /// is captured.
    @inline(__always)
    func encode(_ event: RuntimeEvent) -> RawRecord {
        var r = RawRecord()
        r.time = event.time
        r.runtime = event.runtime.rawValue
        r.thread = clttng_thread_id_inline()
        func kind(_ k: TraceEvent.Kind) { r.kindCode = k.rawValue }
        switch event.detail {
        case .runtimeStart(let transducer, let host, let capacity):
            kind(.runtimeStart)
            r.label = labels.reference(transducer)
            r.label2 = labels.reference(host)
            r.count = UInt32(clamping: capacity)
        case .runtimeStop(let reason, let error):
            kind(.runtimeStop)
            r.code = reason.rawValue
            r.label = error.map(labels.reference) ?? 0
        case .dispatch(let dispatch, let style, let label, let origin, let depth):
            kind(.dispatch)
            r.dispatch = dispatch
            r.code = style.rawValue
            r.label = labels.reference(label)
            r.otherTask = origin
            r.count = UInt32(clamping: depth)
        case .dispatchRejected(let dispatch, let style, let label, let reason):
            kind(.dispatchRejected)
            r.dispatch = dispatch
            r.code = style.rawValue
            r.label = labels.reference(label)
            r.code2 = reason.rawValue
        case .cycleEnter(let cycle, let dispatch, let waited, let depth):
            kind(.cycleEnter)
            r.cycle = cycle
            r.dispatch = dispatch
            r.nanos = waited
            r.count = UInt32(clamping: depth)
        case .transduce(let cycle, let step, let label):
            kind(.transduce)
            r.cycle = cycle
            r.step = UInt32(clamping: step)
            r.label = labels.reference(label)
        case .effect(let cycle, let step, let effectKind, let task, let duration):
            kind(.effect)
            r.cycle = cycle
            r.step = UInt32(clamping: step)
            r.code = effectKind.rawValue
            r.label = task.map { labels.intern($0.description) } ?? 0
            r.nanos = duration
        case .cycleLeave(let cycle, let outcome, let steps, let held):
            kind(.cycleLeave)
            r.cycle = cycle
            r.code = outcome.rawValue
            r.step = UInt32(clamping: steps)
            r.nanos = held
        case .taskSpawn(let task, let name, let policy, let cycle, let waiters, let replaces):
            kind(.taskSpawn)
            r.task = task
            r.label = name.map { labels.intern($0.description) } ?? 0
            r.code = policy.rawValue
            r.cycle = cycle
            r.count = UInt32(clamping: waiters)
            r.otherTask = replaces
        case .taskJoin(let task, let dispatch):
            kind(.taskJoin)
            r.task = task
            r.dispatch = dispatch
        case .taskCancel(let task, let reason):
            kind(.taskCancel)
            r.task = task
            r.code = reason.rawValue
        case .taskSettle(let task, let outcome, let label, let ran):
            kind(.taskSettle)
            r.task = task
            r.code = outcome.rawValue
            r.label = label.map(labels.reference) ?? 0
            r.nanos = ran
        case .requestResume(let dispatch, let outcome, let error, let byCycle, let byTask, let latency):
            kind(.requestResume)
            r.dispatch = dispatch
            r.code = outcome.rawValue
            r.label = error.map(labels.reference) ?? 0
            r.cycle = byCycle
            r.task = byTask
            r.nanos = latency
        case .eventDropped(let cycle, let label, let reason):
            kind(.eventDropped)
            r.cycle = cycle
            r.label = labels.reference(label)
            r.code = reason.rawValue
        }
        if let payloadCapture, let payloads, let payload = event.payload, let text = payloadCapture.redact(payload) {
            r.label2 = payloads.store(text)
        }
        return r
    }

    /// Decodes a slot record into an event.
    package func decode(_ r: RawRecord) -> TraceEvent { decode(r, process: Self.processID) }

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

    /// A copy of every event the ring holds, oldest first, with exact loss counts. Producers keep
    /// recording meanwhile.
    public func snapshot() -> Trace { trace(from: ring.snapshot()) }

    /// Removes and returns the events recorded since the last drain.
    public func drain() -> Trace { trace(from: ring.drain()) }

    private func trace(from batch: TraceRingBuffer.Batch) -> Trace {
        var counts = TraceCounts()
        counts.events = UInt64(batch.records.count)
        counts.overwritten = batch.counts.overwritten
        counts.discarded = batch.counts.discarded
        counts.lost = batch.unreadable
        counts.monotonicOrigin = clttng_monotonic_ns()
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        counts.realtimeOrigin = UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
        if let slow = slowDumper?.counts {
            counts.slowRequests = UInt64(slow.slowRequests)
            counts.slowDumps = UInt64(slow.written)
        }
        let process = Self.processID
        var trace = Trace(events: batch.records.map { decode($0, process: process) }, counts: counts)
        trace.hosts = [process: Self.hostName]
        return trace
    }

    /// This process's id, read per call: a forked child records under its own.
    static var processID: UInt32 { UInt32(bitPattern: getpid()) }

    /// This machine's host name (`gethostname`), "" when unknown.
    package static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The recorder, held weakly by its slow-request dumper.
private final class WeakRecorder: @unchecked Sendable {  // written once, in the recorder's init
    weak var recorder: TraceRecorder?
}
