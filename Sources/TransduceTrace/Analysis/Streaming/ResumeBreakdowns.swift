/// Every resumed awaited request's ``LatencyBreakdown`` in one pass, each at its resume, in
/// resume order: each runtime's events are kept from the earliest position a window still open
/// (or opened later) can start at (``RequestWindows/earliestOpen(runtime:)``), and a request's
/// breakdown reads its window from them, exactly as ``WindowedBreakdowns`` does in a second pass.
/// Past a thousand events of a runtime, only those its waiting requests' breakdowns read, those
/// a later request's window could start at and its live tasks' spawns are kept
/// (``BreakdownKeeper``): a request waiting across a long run does not keep the run.
///
/// Memory: the events of what is open, at most `maxKept` in all (500,000 by default, packed at
/// about 30 bytes each: ``KeptEvents``): past it the oldest kept of the runtime keeping most are
/// let go, and a request whose window reaches back before what its runtime kept is named in
/// ``missed`` instead (its runtime and dispatch: for a pass of its batch,
/// ``init(missed:maxKept:keepsWindows:)``), at most `maxMissed` of them (a million by default:
/// 16 MB). Past that, the pass stops at the request it could not name (``resumesCovered``) and
/// breaks down no more: another pass over the same events from the start,
/// ``init(maxKept:keepsWindows:maxMissed:resumesFrom:group:)``, goes on from that request (a
/// round each: none is left out, at a pass more for each million missed).
package struct ResumeBreakdowns {
    private var windows = RequestWindows(keeps: false)
    /// Per runtime, its events from a position on.
    private var kept = PerRuntime<Kept>()
    private var keptCount = 0
    /// The most events kept at once.
    package private(set) var peakKept = 0
    /// How many runtimes' states it holds (a runtime's goes once it stopped with nothing open).
    package var runtimesHeld: Int { kept.count }
    private var position = 0
    /// The breakdowns found and not yet taken, in resume order.
    package private(set) var found: [LatencyBreakdown] = []
    /// With `keepsWindows`, the index of each found breakdown's window, in the same order (what
    /// else a request's window says: its error, its tasks' cancellations).
    package private(set) var windowsFound: [TraceIndex] = []
    private let keepsWindows: Bool
    /// Requests whose windows reach back before what was kept, in resume order.
    /// (Their keys only, 16 bytes each: at 10M events in 78,126 runtimes, half of them open at
    /// once, 630,000 are missed, and the requests whole took 63 MB. In chunks: an array doubled
    /// to room for a million of them at the pass's peak.)
    package private(set) var missed = ChunkedArray<TraceIndex.Key>()
    /// Where `maxMissed` requests were missed: the number of requests that resumed before the
    /// first this pass could not name (every request resumed in the trace is counted, in
    /// resume order, those before `resumesFrom` too). Every request before it was found or is in
    /// ``missed``; none after it is either: a pass of ``init(maxKept:keepsWindows:maxMissed:resumesFrom:group:)``
    /// from it breaks them down. Nil while the pass covers every request it meets.
    package private(set) var resumesCovered: Int?
    /// Requests resumed so far, in the pass's count (see ``resumesCovered``).
    private var resumes = 0
    /// The requests a first pass breaks down from, in resume order (those before are another
    /// round's).
    private let resumesFrom: Int

    private let maxKept: Int
    private let maxMissed: Int
    /// The requests a pass names in ``missed`` at most, unless told otherwise (16 bytes each).
    package static let defaultMaxMissed = 1_000_000
    /// In a pass of missed requests: their keys and runtimes (the events of other runtimes are
    /// not consumed, and no other request is broken down).
    private let only: Set<TraceIndex.Key>?
    private let onlyRuntimes: Set<RuntimeKey>
    /// The runtimes a first pass follows.
    private let group: RuntimeGroup
    /// What runtimes whose states went saw (their `seen`), of those with a request in
    /// ``missed``: the batches are made from it.
    private var seenOfReleased: [RuntimeKey: Int] = [:]
    /// In a pass of missed requests: those not yet resumed.
    private var waiting: Set<TraceIndex.Key> = []

    /// Whether a pass of missed requests (``init(missed:maxKept:keepsWindows:)``) has met every one's
    /// resume: the rest of the stream can break none of them down, so its reader can stop. (The
    /// first pass found each of them at its resume, so this pass meets them there too.) Of a
    /// first pass: whether it is full (``resumesCovered``): the rest is the next round's.
    /// Stored, not computed: a caller in another module asks after every event, and a computed
    /// property's getter there copies the whole value (the OTLP export took 1.5 times as long).
    package private(set) var isDone = false

    /// A runtime's kept events (``BreakdownKeeper``: past a thousand, only what its waiting
    /// requests read, what a re-entry's window could start at and its live tasks' spawns).
    /// (In this order, 64 bytes: 78,126 runtimes open at once hold one each.)
    private struct Kept {
        var keeper = BreakdownKeeper(tracking: false)
        /// Events appended since the runtime's last trim (at most 4,096).
        var sinceTrim: Int32 = 0
        /// Whether a request of it is in ``missed``.
        var missedAny = false
        /// Every event of the runtime seen: the most a pass that breaks down its requests keeps.
        var seen = 0
        var count: Int { keeper.count }
    }

    /// The events a pass keeps at most, unless told otherwise.
    package static let defaultMaxKept = 500_000

    /// A first pass: breaks down the requests of the runtimes of `group` resumed from the
    /// `resumesFrom`th on (of a round after the first, ``resumesCovered``; counted among the
    /// group's), keeping at most `maxKept` events and naming at most `maxMissed` requests in
    /// ``missed``. The events of other groups' runtimes are not consumed (``follows(_:)``).
    package init(
        maxKept: Int = defaultMaxKept, keepsWindows: Bool = false, maxMissed: Int = defaultMaxMissed, resumesFrom: Int = 0,
        group: RuntimeGroup = .all
    ) {
        self.maxKept = max(1, maxKept)
        self.maxMissed = max(1, maxMissed)
        self.resumesFrom = max(0, resumesFrom)
        self.keepsWindows = keepsWindows
        self.group = group
        only = nil
        onlyRuntimes = []
    }

    /// A pass that breaks down only `batch` (one of ``missedBatches``, or all ``missed``) from
    /// the same events: it consumes only their runtimes' and keeps whatever their windows read
    /// (a batch's runtimes' events add up to the first pass's bound, or are one runtime's), so
    /// none is missed again.
    ///
    /// With `maxKept`, a batch of several runtimes (of ``takeMissedBatches(spread:)``, which
    /// may add up to more) keeps at most that many events at once, as the first pass does: what
    /// it misses is in its own ``missed``, for passes that keep whatever their windows read
    /// (its ``takeMissedBatches(spread:)``). A runtime alone keeps whatever its windows read.
    package init(missed batch: some Collection<TraceIndex.Key>, maxKept: Int = .max, keepsWindows: Bool = false) {
        self.keepsWindows = keepsWindows
        only = Set(batch)
        waiting = Set(batch)
        onlyRuntimes = Set(batch.map(\.runtime))
        self.maxKept = onlyRuntimes.count > 1 ? max(1, maxKept) : .max
        // A batch's requests are named at most once each when missed again: a batch has at most
        // as many as a first pass names.
        maxMissed = .max
        resumesFrom = 0
        group = .all
    }

    /// Whether it consumes the events of `runtime`: its group's runtimes', and in a pass of
    /// missed requests (``init(missed:maxKept:keepsWindows:)``) only their runtimes'.
    @inline(__always)
    package func follows(_ runtime: RuntimeKey) -> Bool {
        only == nil ? group.contains(runtime) : onlyRuntimes.contains(runtime)
    }

    /// Takes the next event of the stream, in order.
    package mutating func consume(_ e: TraceEvent) {
        guard follows(e.runtimeKey) else { return }
        consumeFollowed(e)
    }

    /// ``consume(_:)`` of an event of a runtime it ``follows(_:)``, for a caller that asked.
    package mutating func consumeFollowed(_ e: TraceEvent) {
        // Past its last request, nothing it keeps would be read.
        guard resumesCovered == nil else { return }
        let runtime = e.runtimeKey
        defer { position += 1 }
        windows.consume(e)
        // An event of a runtime with no state and nothing open after it (its first, or one after
        // its stop, such as a dispatch it rejected) is read by no window: it would only be kept
        // until the next trim, which never comes for a runtime that stopped.
        guard
            let slot = kept.slot(runtime) ?? (windows.earliestOpen(runtime: runtime) == nil ? nil : kept.slot(runtime) { Kept() })
        else {
            if windows.hasResumed { for r in windows.takeResumed() { breakDown(r) } }
            return
        }
        switch e.kind {
        case .dispatch where e.isAwaitedDispatch:
            // Its reads are followed from where its window starts (kept: no earlier than what a
            // window could start at, see below).
            if let first = windows.first(runtime: runtime, dispatch: e.dispatch) {
                kept[slot: slot].keeper.open(e.dispatch, first: first)
            }
        case .taskJoin:
            // A join of a live task moves the joining request's window back to its spawn.
            if let first = windows.first(runtime: runtime, dispatch: e.dispatch) {
                kept[slot: slot].keeper.reachBack(e.dispatch, to: first)
            }
        default:
            break
        }
        // A re-entry's window starts where the gate's state says (the same after the gate took
        // the dispatch in: it queues behind what was there).
        let start =
            e.isTaskReentry && kept[slot: slot].keeper.isTracking
            ? windows.windowStart(runtime: runtime, dispatchedAt: e.time, position: position) : nil
        kept[slot: slot].keeper.consume(e, at: position, windowStart: start)
        keptCount += 1
        peakKept = max(peakKept, keptCount)
        // What resumed is broken down before any compaction: a request that resumed at this
        // event is no longer waiting, so a compaction now would not count its window among
        // those to keep (a request resumed at the event that made its runtime's keeper compact
        // lost its breakdown, and its row and span).
        var resumedHere = false
        if windows.hasResumed {
            for r in windows.takeResumed() {
                breakDown(r)
                resumedHere = resumedHere || r.runtime == runtime
            }
        }
        if kept[slot: slot].keeper.isDueForCompaction {
            // What the runtime's waiting requests read is followed from the first time it keeps
            // a thousand events (a long window, or many requests at once).
            kept[slot: slot].keeper.startTracking(windows.waiting(runtime: runtime))
            let (lookback, spawns) = windows.reachedBack(runtime: runtime)
            keptCount -= kept[slot: slot].keeper.compact(lookback: lookback, spawns: spawns)
        }
        kept[slot: slot].seen += 1
        kept[slot: slot].sinceTrim += 1
        // In a pass of missed requests, at a resume of the runtime (a window closed: what can
        // still be read may start later): a runtime of a few hundred events never reached the
        // trim below before its stop, and so kept every event from its first window on (twice
        // what a batch's pass keeps this way, in a trace of a runtime per connection). Not in
        // the first pass: there its arrays' churn cost more than the events it let go (the OTLP
        // export of 7,813 runtimes peaked at 137 MB against 121, missing none either way).
        if only != nil, resumedHere, kept[slot: slot].sinceTrim < 4_096, e.kind != .runtimeStop {
            keptCount -= kept[slot: slot].keeper.drop(before: windows.earliestOpen(runtime: runtime) ?? position + 1)
        }
        // Every 4,096 events of the runtime, and at its stop (a runtime that stops early lets go
        // of what no open window needs).
        if kept[slot: slot].sinceTrim >= 4_096 || e.kind == .runtimeStop {
            kept[slot: slot].sinceTrim = 0
            let earliestOpen = windows.earliestOpen(runtime: runtime)
            keptCount -= kept[slot: slot].keeper.drop(before: earliestOpen ?? position + 1)
            if e.kind == .runtimeStop && earliestOpen == nil && kept[slot: slot].keeper.isIdle { release(slot, of: runtime) }
        }
        if keptCount > maxKept { letGoOfTheOldest() }
    }

    /// ``missed`` in batches, each for a pass of its own: a batch's runtimes' events add up to at
    /// most `maxKept` (a runtime that has more is a batch alone), so a pass that keeps only the
    /// events of its batch's runtimes (``init(missed:maxKept:keepsWindows:)``) keeps at most that many.
    /// (One pass for them all kept every missed request's window at once: 1.7 GB at 10M events in
    /// 78,126 runtimes, half of them running at once.) One batch when they fit. The runtimes go
    /// in the order of their last missed request's resume, so that each batch's pass can end
    /// where its runtimes' last one resumed (``isDone``): in key order, nearly every batch's pass
    /// read to the end. The pass finds a batch's requests in resume order.
    package var missedBatches: [[TraceIndex.Key]] {
        var keys = Array(missed)
        return batches(of: &keys, spread: 1)
    }

    /// ``missedBatches`` of `keys` (``missed``), which it sorts in place, each batch's runtimes'
    /// events adding up to `spread` times the bound.
    private func batches(of keys: inout [TraceIndex.Key], spread: Int) -> [[TraceIndex.Key]] {
        // Each runtime's last place in resume order; then the keys grouped by runtime, sorted
        // where they are: at 10M events in 78,126 runtimes there are 630,000 of them (10 MB),
        // and each copy made at the end of the pass stood on top of its peak (an array a runtime
        // made 39,000 arrays).
        var last: [RuntimeKey: Int] = [:]
        for (i, key) in keys.enumerated() { last[key.runtime] = i }
        keys.sort { ($0.runtime, $0.id) < ($1.runtime, $1.id) }
        var runtimes: [(last: Int, keys: Range<Int>)] = []
        var at = 0
        while at < keys.count {
            let runtime = keys[at].runtime
            var end = at
            while end < keys.count && keys[end].runtime == runtime { end += 1 }
            runtimes.append((last[runtime]!, at..<end))
            at = end
        }
        runtimes.sort { $0.last < $1.last }
        var batches: [[TraceIndex.Key]] = []
        var batch: [TraceIndex.Key] = []
        var events = 0
        // (A pass that kept whatever it read has no bound to spread.)
        let most = maxKept > Int.max / spread ? Int.max : maxKept * spread
        for r in runtimes {
            let runtime = keys[r.keys.lowerBound].runtime
            let seen = (kept.state(runtime)?.seen ?? 0) + (seenOfReleased[runtime] ?? 0)
            if !batch.isEmpty && events + seen > most {
                batches.append(batch)
                batch = []
                events = 0
            }
            batch += keys[r.keys]
            events += seen
        }
        if !batch.isEmpty { batches.append(batch) }
        return batches
    }

    /// ``missedBatches``, letting go of what the pass kept (its events and windows: a pass of a
    /// batch keeps as many again) and of ``missed``; call after the last event.
    ///
    /// With a `spread` over 1, a batch's runtimes' events add up to that many times the bound:
    /// a runtime keeps only what its open windows can read, about half of what it saw in a
    /// trace of a runtime per connection, so a pass of such a batch (given the bound,
    /// ``init(missed:maxKept:keepsWindows:)``) usually keeps within it, in fewer passes; what it
    /// misses, it names in its own ``missed``.
    package mutating func takeMissedBatches(spread: Int = 1) -> [[TraceIndex.Key]] {
        // The windows first: the batches are made from the keys and what each runtime saw.
        windows = RequestWindows(keeps: false)
        for slot in kept.allSlots { kept[slot: slot].keeper = BreakdownKeeper(tracking: false) }
        keptCount = 0
        var keys = Array(missed)
        missed = ChunkedArray()
        let batches = batches(of: &keys, spread: max(1, spread))
        kept = PerRuntime()
        seenOfReleased = [:]
        return batches
    }

    /// Hands over the breakdowns found so far.
    package mutating func take() -> [LatencyBreakdown] {
        defer {
            found.removeAll(keepingCapacity: true)
            windowsFound.removeAll()
        }
        return found
    }

    /// Hands over the breakdowns found so far with their windows' indexes (`keepsWindows`).
    package mutating func takeWithWindows() -> [(breakdown: LatencyBreakdown, window: TraceIndex)] {
        defer {
            found.removeAll(keepingCapacity: true)
            windowsFound.removeAll()
        }
        return Array(zip(found, windowsFound))
    }

    private mutating func breakDown(_ r: RequestWindows.Request) {
        // Counted before anything else, so that every pass over the same events counts the same.
        let ordinal = resumes
        resumes += 1
        guard resumesCovered == nil, let slot = kept.slot(r.runtime) else { return }
        let reads = kept[slot: slot].keeper.close(r.dispatch)
        let key = TraceIndex.Key(runtime: r.runtime, id: r.dispatch)
        if let only {
            guard only.contains(key) else { return }
            waiting.remove(key)
            isDone = waiting.isEmpty
        } else if ordinal < resumesFrom {
            // An earlier round's. (Its reads were let go as that round's were: the events kept
            // are the same, so the count of requests resumed is too.)
            return
        }
        let keeper = kept[slot: slot].keeper
        guard keeper.count > 0, keeper.events.position(at: keeper.events.startIndex) <= r.first else {
            guard missed.count < maxMissed else {
                // Full: this request and every later one are the next round's.
                resumesCovered = ordinal
                isDone = true
                return
            }
            missed.append(key)
            kept[slot: slot].missedAny = true
            return
        }
        let index = TraceIndex(keeper.events(from: r.first, reading: reads).map(\.event))
        if let b = index.latencyBreakdown(runtime: r.runtime, dispatch: r.dispatch) {
            found.append(b)
            if keepsWindows { windowsFound.append(index) }
        }
    }

    /// Lets go of the state of a runtime that stopped with nothing open or kept (a trace of a
    /// runtime per connection names tens of thousands one after another: at 10M events in 78,126
    /// runtimes, their states took 15 MB), noting what it saw if a request of it was missed.
    private mutating func release(_ slot: Int, of runtime: RuntimeKey) {
        if kept[slot: slot].missedAny { seenOfReleased[runtime, default: 0] += kept[slot: slot].seen }
        kept.release(slot, leaving: Kept())
    }

    /// Lets go of the oldest events of the runtimes keeping most until at most 7/8 of `maxKept`
    /// are kept: a quarter of the largest at a time, the largest found again after each. All at
    /// once, so it runs once every `maxKept / 8` events or more: finding the largest on every
    /// event past the bound, over every runtime, was most of an export's CPU with thousands of
    /// runtimes (7,813: 24 s of 1M events' 25).
    private mutating func letGoOfTheOldest() {
        // A max-heap of (count, slot), the largest first; of equals, the earlier runtime.
        var heap = kept.allSlots.map { (count: kept[slot: $0].count, slot: $0) }
        let before = { (a: (count: Int, slot: Int), b: (count: Int, slot: Int)) in
            a.count != b.count ? a.count > b.count : a.slot < b.slot
        }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var best = i
                if l < heap.count && before(heap[l], heap[best]) { best = l }
                if r < heap.count && before(heap[r], heap[best]) { best = r }
                if best == i { return }
                heap.swapAt(i, best)
                i = best
            }
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        let target = maxKept - maxKept / 8
        while keptCount > target, let top = heap.first, top.count > 0 {
            let k = kept[slot: top.slot].keeper
            // A quarter, at least one: a runtime keeping a single event lets it go (cut at its
            // own position, it let go of none, and with more runtimes than the bound, each
            // keeping one, this never ended).
            let next = k.events.startIndex + max(1, k.count / 4)
            let cut = next < k.events.endIndex ? k.events.position(at: next) : k.events.position(at: k.events.endIndex - 1) + 1
            keptCount -= kept[slot: top.slot].keeper.drop(before: cut)
            kept[slot: top.slot].keeper.shrink()
            heap[0].count = kept[slot: top.slot].count
            siftDown(0)
        }
    }
}
