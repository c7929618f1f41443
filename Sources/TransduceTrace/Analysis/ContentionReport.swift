/// Gate contention: how long admissions waited for the gate and how long cycles held it, what held
/// it while the longest waits went on, queue depth over time, and warnings.
///
/// Streaming: memory is bounded by the number of distinct labels, the in-flight admissions and a
/// fixed history per runtime, whatever the trace's length.
public struct ContentionReport: TraceConsumer, Sendable {
    /// A cycle's hold at or above this is reported as a long hold.
    public var longHoldThreshold: UInt64 = Self.defaultLongHoldThreshold
    /// The long-hold threshold unless one is given: 10 ms.
    public static let defaultLongHoldThreshold: UInt64 = 10_000_000
    /// Admission waits (dispatch to cycle entry) of every cycle.
    public private(set) var waits = LatencyHistogram()
    /// Gate holds (cycle entry to leave) of every cycle.
    public private(set) var holds = LatencyHistogram()
    /// Hold time by the label of the event that started the cycle.
    public private(set) var holdByLabel: [String: Aggregate] = [:]
    /// Hold time inside actions, by effect kind (`action`, `asyncAction`).
    public private(set) var holdByEffect: [String: Aggregate] = [:]
    /// The longest admission waits (at most five), longest first, with what held the gate.
    public private(set) var longestWaits: [Wait] = []
    /// The longest holds at or over ``longHoldThreshold`` (at most five), longest first.
    public private(set) var longHolds: [Hold] = []
    /// How many cycles held the gate for ``longHoldThreshold`` or more.
    public private(set) var longHoldCount = 0
    /// Queue depth over the trace's time, in fixed memory.
    public private(set) var depth = DepthTimeline()
    /// Each runtime's queue capacity (from its `runtimeStart`).
    public private(set) var capacities: [RuntimeKey: UInt32] = [:]
    /// Each runtime's deepest queue.
    public private(set) var maxDepth: [RuntimeKey: UInt32] = [:]
    static let keep = 5
    static let history = 64
    /// The holds kept while no admission of the runtime is pending: what a later dispatch, whose
    /// time may come a cycle or two before records already read, can reach back to.
    static let quietHistory = 8
    static let maxPending = 100_000

    /// A count, total and maximum of durations.
    public struct Aggregate: Sendable {
        /// How many durations.
        public var count = 0
        /// Their sum (saturating).
        public var total: UInt64 = 0
        /// The longest.
        public var max: UInt64 = 0
        mutating func add(_ v: UInt64) {
            count += 1
            total = total.plus(v)
            max = Swift.max(max, v)
        }
    }

    /// One cycle's hold of the gate.
    public struct Hold: Sendable {
        /// The runtime (its ``RuntimeKey``).
        public var runtime: RuntimeKey
        /// The cycle's id.
        public var cycle: UInt64
        /// The label of the event that started the cycle.
        public var label: String
        /// How long it held the gate.
        public var held: UInt64
        /// When it entered.
        public var enter: UInt64
        /// Of the hold, time in sync and in async actions.
        public var actionNanos: UInt64 = 0
        /// Of the hold, time in async actions.
        public var asyncActionNanos: UInt64 = 0
    }

    /// Per event label, the awaited requests' latencies and what their admission waited behind:
    /// the count and the slowest ``RequestTail/kept`` (enough for an exact p99 up to 6,400
    /// requests a label; beyond, the p99 is the slowest kept one's, and said so).
    public struct RequestTail: Sendable {
        /// One resumed awaited request of the label.
        public struct Request: Sendable {
            /// Dispatch to resume.
            public var latency: UInt64
            /// The cycle that held the gate longest during its admission wait, and how long.
            public var holder: String?
            /// How long ``holder`` held the gate during the wait.
            public var holderNanos: UInt64
        }
        /// How many of the slowest requests are kept per label.
        public static let kept = 64
        /// Resumed awaited requests of the label.
        public private(set) var count = 0
        /// The slowest ``kept`` of them, slowest first.
        public private(set) var slowest: [Request] = []

        mutating func add(_ r: Request) {
            count += 1
            guard slowest.count < Self.kept || r.latency > slowest.last!.latency else { return }
            let at = slowest.firstIndex { $0.latency < r.latency } ?? slowest.count
            slowest.insert(r, at: at)
            if slowest.count > Self.kept { slowest.removeLast() }
        }

        /// The p99 latency, and whether it is exact (the tail fits in what is kept).
        public var p99: (value: UInt64, exact: Bool) {
            let rank = Int((0.99 * Double(count)).rounded(.up))
            let fromTop = count - rank
            if fromTop < slowest.count { return (slowest[fromTop].latency, true) }
            return (slowest.last?.latency ?? 0, false)
        }

        /// The cause with the largest share of the latency of the requests at or above the p99.
        public var dominant: (cause: String, share: Double)? {
            let p99 = self.p99.value
            let tail = slowest.filter { $0.latency >= p99 }
            let total = tail.reduce(0.0) { $0 + Double($1.latency) }
            guard total > 0 else { return nil }
            var causes: [String: Double] = [:]
            for r in tail {
                if let holder = r.holder { causes[holder, default: 0] += Double(r.holderNanos) }
                causes["after admission (see trace-view slow)", default: 0] +=
                    Double(r.latency.minus(r.holderNanos))
            }
            return causes.max { ($0.value, $1.key) < ($1.value, $0.key) }.map { ($0.key, $0.value / total) }
        }
    }
    /// Per label of the awaited requests (at most 1,000 labels; the rest are not followed).
    public private(set) var requestTails: [String: RequestTail] = [:]
    static let maxLabels = 1_000

    /// One admission's wait for the gate.
    public struct Wait: Sendable {
        /// The runtime (its ``RuntimeKey``).
        public var runtime: RuntimeKey
        /// The admission's dispatch id.
        public var dispatch: UInt64
        /// The admitted event's label.
        public var label: String
        /// Dispatch to cycle entry.
        public var waited: UInt64
        /// Cycles that held the gate while this admission waited.
        public var heldBy: [Hold]
    }

    private struct RuntimeState: Sendable {
        var pending: [UInt64: (label: String, time: UInt64, awaited: Bool)] = [:]
        var open: Hold?
        /// The last ``ContentionReport/history`` holds, a ring: `recent[next]` is the oldest once
        /// it is full (shifting an array of holds on every cycle cost a fifth of a report). While
        /// no admission is pending, the last ``ContentionReport/quietHistory`` only: no wait
        /// under way can overlap the older ones, and a later one starts after them. (A ring of 64
        /// for each of the 10,000 runtimes followed one by one took 20 MB of a report at 10M
        /// events in 78,126 runtimes, most of them with nothing pending.)
        var recent: [Hold] = []
        var next = 0

        mutating func remember(_ hold: Hold) {
            let quiet = ContentionReport.quietHistory
            if pending.isEmpty && recent.count > quiet {
                // A backlog cleared: the newest go to storage of the quiet ring's size.
                var kept: [Hold] = []
                kept.reserveCapacity(quiet)
                kept += recentInOrder.suffix(quiet - 1)
                kept.append(hold)
                (recent, next) = (kept, 0)
            } else if recent.count < (pending.isEmpty ? quiet : ContentionReport.history) {
                // The newest goes just before the oldest (at `next`): at the end while the ring
                // has not wrapped, else in the middle (a quiet ring that wrapped, now growing).
                if next == 0 {
                    recent.append(hold)
                } else {
                    recent.insert(hold, at: next)
                    next += 1
                }
            } else {
                recent[next] = hold
                next = (next + 1) % recent.count
            }
        }

        /// The remembered holds, oldest first.
        var recentInOrder: [Hold] { Array(recent[next...] + recent[..<next]) }
        /// Awaited admissions that entered, until their resume: label, dispatch time and top holder.
        var entered: [UInt64: (label: String, dispatched: UInt64?, holder: String?, holderNanos: UInt64)] = [:]
    }
    private var state = PerRuntime<RuntimeState>()
    /// The label and wait of the cycle entered last: what a caller that follows the cycles
    /// itself (the terminal UI's gate) needs of each, without keeping the admissions again.
    package private(set) var lastEntry: (label: String, waited: UInt64)?

    /// An empty report, to be fed events in order (``consume(_:)``).
    public init() {}

    /// Runtimes followed one by one; a trace naming more (hostile: each runtime costs memory)
    /// has the rest followed together, under one key.
    static let maxRuntimes = 10_000

    /// Takes the next event of the trace, in order.
    public mutating func consume(_ e: TraceEvent) {
        let runtime =
            state.slot(e.runtimeKey) != nil || state.count < Self.maxRuntimes ? e.runtimeKey : RuntimeKey(rawValue: .max)
        // Taken out of its slot while it is updated, so its collections are not copied.
        let slot = state.slot(runtime) { RuntimeState() }
        var s = state.take(slot, leaving: RuntimeState())
        defer { state.put(slot, &s) }
        switch e.kind {
        case .runtimeStart:
            if runtime == e.runtimeKey { capacities[e.runtimeKey] = e.count }
        case .runtimeStop where runtime == e.runtimeKey:
            // No admission enters a stopped runtime: what a wait would be measured against goes
            // (a trace of a runtime per connection has tens of thousands that stopped).
            s.pending = [:]
            s.recent = []
            s.next = 0
        case .dispatch:
            if s.pending.count < Self.maxPending { s.pending[e.dispatch] = (e.label, e.time, e.isAwaitedDispatch) }
            depth.record(time: e.time, depth: e.count)
            maxDepth[runtime] = max(maxDepth[runtime] ?? 0, e.count)
        case .cycleEnter:
            let admitted = s.pending.removeValue(forKey: e.dispatch)
            let label = admitted?.label ?? "?"
            // One time base: the trace's timestamps (the runtime's measure only when the trace
            // lost the dispatch).
            let waited = admitted.map { e.time.minus($0.time) } ?? e.nanos
            waits.record(waited)
            lastEntry = (label, waited)
            s.open = Hold(runtime: e.runtimeKey, cycle: e.cycle, label: label, held: 0, enter: e.time)
            if admitted?.awaited == true, s.entered.count < Self.maxPending {
                // What held the gate longest while it waited.
                let since = e.time.minus(waited)
                // Oldest first, the first of equals wins (as `max` over the holds in order did).
                var top: (index: Int, nanos: UInt64)?
                for k in 0..<s.recent.count {
                    let h = s.recent[(s.next + k) % s.recent.count]
                    let nanos = min(h.enter.plus(h.held), e.time).minus(max(h.enter, since))
                    if top == nil || nanos > top!.nanos { top = ((s.next + k) % s.recent.count, nanos) }
                }
                let holder = top.flatMap { top -> String? in
                    guard top.nanos > 0 else { return nil }
                    let h = s.recent[top.index]
                    let work = LatencyBreakdown.holdingWork(action: h.actionNanos, asyncAction: h.asyncActionNanos)
                    let how = work.isEmpty ? "" : " (\(work))"
                    return "waiting behind \(h.label)\(how)"
                }
                s.entered[e.dispatch] = (label, admitted?.time, holder, holder == nil ? 0 : top!.nanos)
            }
            depth.record(time: e.time, depth: e.count)
            if longestWaits.count < Self.keep || waited > longestWaits.last!.waited {
                let since = e.time.minus(waited)
                let heldBy = s.recentInOrder.filter { $0.enter.plus($0.held) > since && $0.enter < e.time }
                longestWaits.append(
                    Wait(runtime: e.runtimeKey, dispatch: e.dispatch, label: label, waited: waited, heldBy: heldBy))
                longestWaits.sort { $0.waited > $1.waited }
                if longestWaits.count > Self.keep { longestWaits.removeLast() }
            }
        case .effect:
            if e.isActionEffect {
                holdByEffect[e.codeName, default: Aggregate()].add(e.nanos)
                if s.open?.cycle == e.cycle {
                    if e.effectKind == .action {
                        s.open!.actionNanos = s.open!.actionNanos.plus(e.nanos)
                    } else {
                        s.open!.asyncActionNanos = s.open!.asyncActionNanos.plus(e.nanos)
                    }
                }
            }
        case .cycleLeave:
            let entered = s.open?.cycle == e.cycle ? s.open : nil
            let held = entered.map { e.time.minus($0.enter) } ?? e.nanos
            holds.record(held)
            let label = entered?.label ?? "?"
            holdByLabel[label, default: Aggregate()].add(held)
            var hold = Hold(runtime: e.runtimeKey, cycle: e.cycle, label: label, held: held, enter: e.time.minus(held))
            if let open = s.open, open.cycle == e.cycle {
                hold.actionNanos = open.actionNanos
                hold.asyncActionNanos = open.asyncActionNanos
            }
            s.remember(hold)
            s.open = nil
            if held >= longHoldThreshold {
                longHoldCount += 1
                longHolds.append(hold)
                longHolds.sort { $0.held > $1.held }
                if longHolds.count > Self.keep { longHolds.removeLast() }
            }
        case .requestResume:
            if let entered = s.entered.removeValue(forKey: e.dispatch),
                requestTails[entered.label] != nil || requestTails.count < Self.maxLabels
            {
                let latency = entered.dispatched.map { e.time.minus($0) } ?? e.nanos
                requestTails[entered.label, default: RequestTail()].add(
                    RequestTail.Request(latency: latency, holder: entered.holder, holderNanos: min(entered.holderNanos, latency)))
            }
        default: break
        }
    }

    /// Warnings, lint-like: long holds, runaway and growing queues.
    public var warnings: [AnalysisWarning] {
        var out: [AnalysisWarning] = []
        if longHoldCount > 0, let worst = longHolds.first {
            out.append(
                AnalysisWarning(
                    .longHold(
                        count: longHoldCount, threshold: longHoldThreshold,
                        longest: .init(runtime: worst.runtime, cycle: worst.cycle, label: worst.label), held: worst.held)))
        }
        for (runtime, deepest) in maxDepth.sorted(by: { $0.key < $1.key }) {
            if let capacity = capacities[runtime], capacity > 0, UInt64(deepest) * 2 >= UInt64(capacity) {
                out.append(AnalysisWarning(.runawayQueue(runtime: runtime, deepest: Int(deepest), capacity: Int(capacity))))
            }
        }
        if depth.isGrowing {
            let (early, late) = depth.thirds
            out.append(AnalysisWarning(.growingQueue(early: early, late: late)))
        }
        return out
    }
}
