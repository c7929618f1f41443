import Transduce

/// ``OTLPTraceExport`` for a trace too large to hold: the same spans, made as the trace is read,
/// in memory that follows what is open (about 100 MB at 10M events, flat after), in a census pass
/// and then the passes of ``BreakdownPasses`` (one where no request waited past what it keeps):
///
/// 1. ``Census`` learns which requests never resumed (a link points only at one that did), each runtime's
///    names, how many requests there are and how many runtimes had requests waiting at once;
/// 2. each pass ``beginPass()`` begins breaks requests down at their resumes from their windows
///    (``consume(_:)``, every event in order until ``passIsDone``), builds their spans, and hands
///    a batch of ``OTLPTraceExport/requestsPerLine`` requests at a time to its sink, encoded.
///
/// The order is ``BreakdownPasses``': the same trace and selection always give the same order,
/// so `from` resumes an export that stopped part-way.
package struct OTLPStream {
    /// The first pass: what the second needs to know in advance.
    package struct Census: TraceConsumer {
        /// Per runtime, its awaited requests waiting: a request is the export's once it
        /// resumes, as ``RequestWindows`` finds it in the later passes. At the end, those that
        /// never did. (Not the resumed ones: a runtime's awaited dispatches are interleaved with
        /// its posts, so their ids were many ranges a runtime, most of the 343 MiB the export
        /// held before its first span at 100M events in 781,250 runtimes.)
        fileprivate var waiting = RuntimesWaiting()
        fileprivate var runtimes = RuntimeNames()
        /// How many requests the export holds.
        package private(set) var requests = 0
        /// The most runtimes with requests waiting at once: how many groups the later passes
        /// split the runtimes into.
        package var peakRuntimes: Int { waiting.peak }

        package init() {}

        package mutating func consume(_ e: TraceEvent) {
            if e.kind == .runtimeStart { runtimes[e.runtimeKey] = (e.label, e.label2) }
            if waiting.consume(e) { requests += 1 }
        }
    }

    /// Which awaited request's cycle started each task, and the trace context each dispatch was
    /// made under: what a link names. Bounded: a task started more than ``capacity`` tasks
    /// before the request it carried, or by a request whose cycle came more than ``capacity``
    /// awaited dispatches after it, is linked no more.
    private struct Origins {
        static let capacity = 1 << 18
        /// Awaited dispatches not yet in a cycle: only such a cycle's tasks are a request's.
        private var awaited = RecentlyDone<TraceIndex.Key, Void>(capacity: capacity)
        private var cycles = RecentlyDone<TraceIndex.Key, UInt64>(capacity: 1 << 16)
        private var tasks = RecentlyDone<TraceIndex.Key, UInt64>(capacity: capacity)
        private var contexts = RecentlyDone<TraceIndex.Key, TraceContext>(capacity: capacity)

        mutating func consume(_ e: TraceEvent) {
            let runtime = e.runtimeKey
            switch e.kind {
            case .dispatch where e.isAwaitedDispatch: _ = awaited.insert(TraceIndex.Key(runtime: runtime, id: e.dispatch), ())
            case .cycleEnter:
                guard awaited.remove(TraceIndex.Key(runtime: runtime, id: e.dispatch)) != nil else { return }
                _ = cycles.insert(TraceIndex.Key(runtime: runtime, id: e.cycle), e.dispatch)
            case .taskSpawn:
                if let dispatch = cycles[TraceIndex.Key(runtime: runtime, id: e.cycle)] {
                    _ = tasks.insert(TraceIndex.Key(runtime: runtime, id: e.task), dispatch)
                }
            case .traceContext:
                if let context = e.traceContext { _ = contexts.insert(TraceIndex.Key(runtime: runtime, id: e.dispatch), context) }
            default: break
            }
        }

        func origin(of task: UInt64, in runtime: RuntimeKey) -> UInt64? { tasks[TraceIndex.Key(runtime: runtime, id: task)] }
        func context(of dispatch: UInt64, in runtime: RuntimeKey) -> TraceContext? {
            contexts[TraceIndex.Key(runtime: runtime, id: dispatch)]
        }
    }

    /// The census's requests that never resumed (the census itself, its windows and tables,
    /// goes after ``init``: at 10M events in 78,126 runtimes it held 36 MB through the later
    /// passes). A link points at an awaited request not among them: one with spans.
    private let neverResumed: IDRangeTable
    private var builder = OTLPSpanBuilder()
    private var plan: BreakdownPasses
    /// The pass under way (``beginPass()``), when `passBegun`. (Not an optional: a read through
    /// `pass?.` on every event may copy the whole value, as a computed property's getter did.)
    private var pass = ResumeBreakdowns(missed: [TraceIndex.Key]())
    private var passBegun = false
    private var origins = Origins()
    private var batch: [(breakdown: LatencyBreakdown, spans: [OTLP.Span])] = []
    /// Requests met so far, in the export's order (those before `first` are skipped).
    private var position = 0
    /// The position of the batch's first request.
    private var batchStart = 0
    private let first: Int
    private let encoding: OTLPEncoding
    private let emit: (_ body: [UInt8], _ requests: Range<Int>) -> Bool
    /// Whether the sink asked to stop (the rest is read but not exported).
    package private(set) var stopped = false

    /// The export of the requests `census` found, from position `first` on, each batch handed to
    /// `emit` in `encoding` (return `false` to stop); `hosts` names each pid's host, and
    /// `wallClockOffset` is `CLOCK_REALTIME` minus `CLOCK_MONOTONIC` when the trace was recorded.
    /// `maxKept` bounds the events a pass keeps, `maxMissed` the requests a first pass names for
    /// later ones and `maxRuntimes` the runtimes open at once a pass follows (on average:
    /// ``BreakdownPasses``). Pass the census with `consume`: what it holds besides the requests
    /// that never resumed and the runtimes' names can go.
    package init(
        census: consuming Census, hosts: [UInt32: String], wallClockOffset: Int64, encoding: OTLPEncoding, from first: Int = 0,
        maxKept: Int = ResumeBreakdowns.defaultMaxKept, maxMissed: Int = ResumeBreakdowns.defaultMaxMissed,
        maxRuntimes: Int = BreakdownPasses.defaultMaxRuntimes, emit: @escaping (_ body: [UInt8], _ requests: Range<Int>) -> Bool
    ) {
        plan = BreakdownPasses(
            peakRuntimes: census.peakRuntimes, maxRuntimes: maxRuntimes, maxKept: maxKept, maxMissed: maxMissed,
            keepsWindows: true)
        neverResumed = IDRangeTable(census.waiting.stillWaiting)
        builder.runtimes = census.runtimes
        builder.hosts = hosts
        builder.offset = wallClockOffset
        self.first = max(0, first)
        self.encoding = encoding
        self.emit = emit
    }

    /// How many groups of runtimes the passes go through (``RuntimeGroup``).
    package var groups: Int { plan.groups }

    /// The runtimes the pass under way follows: the events of others can be left out of it.
    package var group: RuntimeGroup { plan.group }

    /// Passes begun, and how many of them were rounds' first (``BreakdownPasses``).
    package var passes: (all: Int, rounds: Int) { (plan.passes, plan.rounds) }

    /// Begins the next pass over the trace (after the census; the last one ends), whose events
    /// ``consume(_:)`` then takes; false when every request has been exported.
    package mutating func beginPass() -> Bool {
        if passBegun { plan.finished(&pass) }
        passBegun = false
        pass = ResumeBreakdowns(missed: [TraceIndex.Key]())
        guard let next = plan.next() else { return false }
        pass = next
        passBegun = true
        passIsDone = false
        // A link names a task of a request of the same pass's runtimes.
        origins = Origins()
        return true
    }

    /// Takes the next event of the trace, in order, in the pass ``beginPass()`` began.
    package mutating func consume(_ e: TraceEvent) {
        // A link names a task and a trace context of the request's own runtime: the events of
        // runtimes the pass does not follow are of no use (followed anyway, they were a quarter
        // of the CPU of an export of thousands of runtimes, most of its requests missed).
        guard passBegun, pass.follows(e.runtimeKey) else { return }
        origins.consume(e)
        pass.consumeFollowed(e)
        passIsDone = pass.isDone
        guard !pass.found.isEmpty else { return }
        for (b, window) in pass.takeWithWindows() { add(b, window) }
    }

    /// Whether the pass under way has broken down all it can (``ResumeBreakdowns/isDone``): the
    /// rest of its events can be left unread. (Stored: see ``ResumeBreakdowns/isDone``.)
    package private(set) var passIsDone = false

    /// How many requests the pass under way could not break down, for later passes.
    package var missed: Int { pass.missed.count }

    /// Hands over the last batch; call once, after the last pass.
    package mutating func finish() { flush() }

    private mutating func add(_ b: LatencyBreakdown, _ window: TraceIndex) {
        defer { position += 1 }
        guard !stopped, position >= first else { return }
        var b = b
        // The context event comes before the dispatch, outside the window.
        if b.traceContext == nil { b.traceContext = origins.context(of: b.dispatch, in: b.runtime) }
        let (neverResumed, origins) = (neverResumed, origins)
        if batch.isEmpty { batchStart = position }
        let spans = builder.spans(of: b, in: window) { part in
            guard let dispatch = origins.origin(of: part.task, in: b.runtime), !neverResumed.contains(dispatch, in: b.runtime)
            else {
                return nil
            }
            return (dispatch, origins.context(of: dispatch, in: b.runtime))
        }
        batch.append((b, spans))
        if batch.count == OTLPTraceExport.requestsPerLine { flush() }
    }

    private mutating func flush() {
        guard !batch.isEmpty, !stopped else { return }
        if !emit(encoding.encode(builder.batch(batch)), batchStart..<(batchStart + batch.count)) { stopped = true }
        batch.removeAll(keepingCapacity: true)
    }
}
