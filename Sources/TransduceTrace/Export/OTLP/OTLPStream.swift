import Transduce

/// ``OTLPTraceExport`` for a trace too large to hold: the same spans, made as the trace is read,
/// in memory that follows what is open (about 100 MB at 10M events, flat after), in two passes
/// over the same events (more where requests waited past what the second could keep):
///
/// 1. ``Census`` learns which requests resumed (the ones a link may point at), each runtime's
///    names, and how many requests there are;
/// 2. ``consume(_:)`` breaks each request down at its resume from its window
///    (``ResumeBreakdowns``), builds its spans, and hands a batch of ``OTLPTraceExport/requestsPerLine``
///    requests at a time to its sink, encoded;
/// 3. ``missed`` requests (their windows reached back past what pass 2 kept) go through
///    ``consumeMissed(_:)`` over the events once more for each of their batches
///    (``takeMissedBatches(spread:)``, run as ``MissedPasses`` says, each begun with
///    ``beginMissedPass(_:maxKept:)``), each batch's events bounded as pass 2's are;
/// 4. where pass 2 missed more requests than it names (``ResumeBreakdowns/resumesCovered``, a
///    million by default), ``beginRound()`` starts it again from the first it could not, and
///    passes 2 and 3 run once more: a round each, until every request is exported;
/// 5. where more runtimes were open at once than a pass follows (`maxRuntimes`, from the
///    census's ``Census/peakRuntimes``), passes 2–4 follow one ``RuntimeGroup`` of them at a
///    time (``beginRound()`` goes on to the next group): a pass's state is that of a group's
///    runtimes.
///
/// The order is the resumes' (then the missed ones', batch by batch, each in resume order; then
/// the next round's, then the next group's): the same trace and selection always give the same
/// order, so `from` resumes an export that stopped part-way.
package struct OTLPStream {
    /// The first pass: what the second needs to know in advance.
    package struct Census: TraceConsumer {
        /// Per runtime, its awaited requests waiting (by dispatch id): a request is the export's
        /// once it resumes, as ``RequestWindows`` finds it in the later passes. (Not the windows
        /// themselves: the census follows every runtime at once, and at 25.6M events in 200,000
        /// runtimes open at once their gates took 200 MB before the first span.)
        private var waiting = PerRuntime<SmallTable<UInt64, Void>>()
        /// The resumed requests' dispatch ids, per runtime.
        fileprivate var resumed: [RuntimeKey: IDRanges] = [:]
        fileprivate var runtimes = RuntimeNames()
        /// How many requests the export holds.
        package private(set) var requests = 0
        /// The most runtimes with requests waiting at once: how many groups the later passes
        /// split the runtimes into.
        package private(set) var peakRuntimes = 0

        package init() {}

        package mutating func consume(_ e: TraceEvent) {
            switch e.kind {
            case .runtimeStart: runtimes[e.runtimeKey] = (e.label, e.label2)
            case .dispatch where e.isAwaitedDispatch:
                let slot = waiting.slot(e.runtimeKey) { SmallTable() }
                waiting[slot: slot][e.dispatch] = ()
                peakRuntimes = max(peakRuntimes, waiting.count)
            case .requestResume:
                guard let slot = waiting.slot(e.runtimeKey), waiting[slot: slot].removeValue(forKey: e.dispatch) != nil else {
                    return
                }
                if waiting[slot: slot].isEmpty { waiting.release(slot, leaving: SmallTable()) }
                requests += 1
                resumed[e.runtimeKey, default: IDRanges()].insert(e.dispatch)
            default: break
            }
        }
    }

    /// Which request's cycle started each task, and the trace context each dispatch was made
    /// under: what a link names. Bounded: a task started more than ``capacity`` tasks before the
    /// request it carried is linked no more.
    private struct Origins {
        static let capacity = 1 << 18
        private var cycles = RecentlyDone<TraceIndex.Key, UInt64>(capacity: 1 << 16)
        private var tasks = RecentlyDone<TraceIndex.Key, UInt64>(capacity: capacity)
        private var contexts = RecentlyDone<TraceIndex.Key, TraceContext>(capacity: capacity)

        mutating func consume(_ e: TraceEvent) {
            let runtime = e.runtimeKey
            switch e.kind {
            case .cycleEnter: _ = cycles.insert(TraceIndex.Key(runtime: runtime, id: e.cycle), e.dispatch)
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

    /// The census's resumed requests (the census itself, its windows and tables, goes after
    /// ``init``: at 10M events in 78,126 runtimes it held 36 MB through the later passes).
    private let resumed: IDRangeTable
    private var builder = OTLPSpanBuilder()
    private var breakdowns: ResumeBreakdowns
    private var missedBreakdowns: ResumeBreakdowns?
    private var origins = Origins()
    private var batch: [(breakdown: LatencyBreakdown, spans: [OTLP.Span])] = []
    /// Requests met so far, in the export's order (those before `first` are skipped).
    private var position = 0
    /// The position of the batch's first request.
    private var batchStart = 0
    private let first: Int
    private let maxKept: Int
    private let maxMissed: Int
    /// The runtimes passes 2–4 follow now.
    private var group: RuntimeGroup
    private let encoding: OTLPEncoding
    private let emit: (_ body: [UInt8], _ requests: Range<Int>) -> Bool
    /// Whether the sink asked to stop (the rest is read but not exported).
    package private(set) var stopped = false

    /// The export of the requests `census` found, from position `first` on, each batch handed to
    /// `emit` in `encoding` (return `false` to stop); `hosts` names each pid's host, and
    /// `wallClockOffset` is `CLOCK_REALTIME` minus `CLOCK_MONOTONIC` when the trace was recorded.
    /// `maxKept` bounds the events pass 2 keeps, `maxMissed` the requests it names for pass 3
    /// (``ResumeBreakdowns``) and `maxRuntimes` the runtimes open at once it follows (on
    /// average: ``RuntimeGroup``). Pass the census with `consume`: what it holds besides the
    /// resumed requests and the runtimes' names can go.
    package init(
        census: consuming Census, hosts: [UInt32: String], wallClockOffset: Int64, encoding: OTLPEncoding, from first: Int = 0,
        maxKept: Int = ResumeBreakdowns.defaultMaxKept, maxMissed: Int = ResumeBreakdowns.defaultMaxMissed,
        maxRuntimes: Int = OTLPStream.defaultMaxRuntimes, emit: @escaping (_ body: [UInt8], _ requests: Range<Int>) -> Bool
    ) {
        group = RuntimeGroup(0, of: RuntimeGroup.count(for: census.peakRuntimes, most: maxRuntimes))
        breakdowns = ResumeBreakdowns(maxKept: maxKept, keepsWindows: true, maxMissed: maxMissed, group: group)
        self.maxKept = maxKept
        self.maxMissed = maxMissed
        resumed = IDRangeTable(census.resumed)
        builder.runtimes = census.runtimes
        builder.hosts = hosts
        builder.offset = wallClockOffset
        self.first = max(0, first)
        self.encoding = encoding
        self.emit = emit
    }

    /// The runtimes open at once a pass follows, unless told otherwise: past them, the passes go
    /// group by group (at 25.6M events in 200,000 runtimes open at once, their states were most
    /// of the export's 299 MiB).
    package static let defaultMaxRuntimes = 50_000

    /// How many groups of runtimes the passes go through (``RuntimeGroup``).
    package var groups: Int { group.count }

    /// The second pass: takes the next event of the trace, in order.
    package mutating func consume(_ e: TraceEvent) {
        // A link names a task and a trace context of the request's own runtime.
        guard breakdowns.follows(e.runtimeKey) else { return }
        origins.consume(e)
        breakdowns.consumeFollowed(e)
        roundIsFull = breakdowns.isDone
        guard !breakdowns.found.isEmpty else { return }
        for (b, window) in breakdowns.takeWithWindows() { add(b, window) }
    }

    /// Whether the second pass has named as many missed requests as it can: the rest of its
    /// events can be left unread, and the requests from there on are the next round's
    /// (``beginRound()``). (Stored: see ``ResumeBreakdowns/isDone``.)
    package private(set) var roundIsFull = false

    /// How many requests the second pass could not break down (read them with
    /// ``consumeMissed(_:)`` over the events once more).
    package var missed: Int { breakdowns.missed.count }

    /// Starts the second pass again, for a round of passes 2 and 3 of its own: from the first
    /// request the last one could not name (``roundIsFull``), else of the next group of runtimes
    /// (``groups``); false when the last round covered every request of the last group. Call
    /// after the round's third passes.
    package mutating func beginRound() -> Bool {
        if let from = breakdowns.resumesCovered {
            breakdowns = ResumeBreakdowns(
                maxKept: maxKept, keepsWindows: true, maxMissed: maxMissed, resumesFrom: from, group: group)
        } else if group.index + 1 < group.count {
            group = RuntimeGroup(group.index + 1, of: group.count)
            breakdowns = ResumeBreakdowns(maxKept: maxKept, keepsWindows: true, maxMissed: maxMissed, group: group)
        } else {
            return false
        }
        missedBreakdowns = nil
        roundIsFull = false
        origins = Origins()
        return true
    }

    /// ``missed``'s requests in batches of bounded memory, a pass over the events each
    /// (``ResumeBreakdowns/takeMissedBatches(spread:)``).
    /// Call after the second pass: what it kept is let go.
    package mutating func takeMissedBatches(spread: Int = 1) -> [[TraceIndex.Key]] {
        breakdowns.takeMissedBatches(spread: spread)
    }

    /// Starts a pass of the third: the breakdowns of `batch` (one of ``takeMissedBatches(spread:)``),
    /// whose events ``consumeMissed(_:)`` then takes, keeping at most `maxKept` at once
    /// (``ResumeBreakdowns/init(missed:maxKept:keepsWindows:)``: what it misses, ``takeMissedAgain()``
    /// hands over).
    package mutating func beginMissedPass(_ batch: [TraceIndex.Key], maxKept: Int = .max) {
        missedBreakdowns = ResumeBreakdowns(missed: batch, maxKept: maxKept, keepsWindows: true)
        missedPassIsDone = false
        origins = Origins()
    }

    /// The third pass, where ``missed`` has requests: takes the next event, in order (of a pass
    /// ``beginMissedPass(_:maxKept:)`` began; without one, of a single pass for every missed request).
    package mutating func consumeMissed(_ e: TraceEvent) {
        if missedBreakdowns == nil { beginMissedPass(Array(breakdowns.missed)) }
        // A link names a task and a trace context of the request's own runtime: the events of
        // runtimes outside the batch are of no use (followed anyway, they were a quarter of the
        // CPU of an export of thousands of runtimes, most of its requests missed).
        guard missedBreakdowns?.follows(e.runtimeKey) == true else { return }
        origins.consume(e)
        missedBreakdowns?.consumeFollowed(e)
        missedPassIsDone = missedBreakdowns?.isDone == true
        guard missedBreakdowns?.found.isEmpty == false, let found = missedBreakdowns?.takeWithWindows() else { return }
        for (b, window) in found { add(b, window) }
    }

    /// Whether the pass ``beginMissedPass(_:maxKept:)`` began has broken down every request of its batch
    /// (``ResumeBreakdowns/isDone``): the rest of the events can be left unread. (Stored: see
    /// ``ResumeBreakdowns/isDone``.)
    package private(set) var missedPassIsDone = false

    /// What the pass ``beginMissedPass(_:maxKept:)`` began missed again, in batches that fit its
    /// bound whole (for passes that keep whatever they read); call after it.
    package mutating func takeMissedAgain() -> [[TraceIndex.Key]] { missedBreakdowns?.takeMissedBatches() ?? [] }

    /// Hands over the last batch; call once, after the last pass.
    package mutating func finish() { flush() }

    private mutating func add(_ b: LatencyBreakdown, _ window: TraceIndex) {
        defer { position += 1 }
        guard !stopped, position >= first else { return }
        var b = b
        // The context event comes before the dispatch, outside the window.
        if b.traceContext == nil { b.traceContext = origins.context(of: b.dispatch, in: b.runtime) }
        let (resumed, origins) = (resumed, origins)
        if batch.isEmpty { batchStart = position }
        let spans = builder.spans(of: b, in: window) { part in
            guard let dispatch = origins.origin(of: part.task, in: b.runtime), resumed.contains(dispatch, in: b.runtime) else {
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
