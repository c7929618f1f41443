/// Two runs compared (`trace-view diff BASE NEW`): each request key's latencies with a verdict,
/// the change of each latency part, each gate's waits and holds, how tasks ended, and the
/// warnings that appeared or went away. Made from two ``TraceProfile``s; rendered by the tool.
package struct TraceDiff: Sendable {
    /// A latency distribution's figures.
    package struct Figures: Sendable, Equatable {
        package var count: UInt64
        package var p50: UInt64
        package var p90: UInt64
        package var p99: UInt64
        package var max: UInt64
        package var mean: UInt64

        /// The figures of the samples of `h` and `zeros` samples of 0 more: percentiles read
        /// within their buckets (``LatencyHistogram/interpolatedPercentile(_:zeros:)``).
        package init(_ h: LatencyHistogram, zeros: UInt64 = 0) {
            count = h.count + zeros
            p50 = h.interpolatedPercentile(0.5, zeros: zeros)
            p90 = h.interpolatedPercentile(0.9, zeros: zeros)
            p99 = h.interpolatedPercentile(0.99, zeros: zeros)
            max = h.count == 0 ? 0 : h.max
            mean = count == 0 ? 0 : h.total / count
        }
    }

    /// What the tests say of one distribution against its base.
    package enum Verdict: String, Sendable {
        case slower, faster, same
        /// Fewer than ``RankTests/minimumSamples`` on a side: no test.
        case tooFew = "too few"
        /// Only one run has it.
        case onlyBase = "only in base"
        case onlyNew = "only in new"
    }

    /// Two distributions compared: the whole (Mann-Whitney U) and the tail (the p99's interval).
    package struct Comparison: Sendable {
        package var base: Figures
        package var new: Figures
        /// The rank test; nil with too few samples.
        package var shift: RankTests.Shift?
        /// The whole distribution moved: significant (p under the significance level over the
        /// number of comparisons) and at least a medium effect (superiority 0.64 or more, or
        /// 0.36 or less).
        package var verdict: Verdict
        /// The p99 moved: the two p99s' 99.9 % intervals apart, and by at least 5 % (too few when
        /// a side has too few requests for its interval to exclude its maximum, about 1,450).
        package var tail: Verdict
    }

    /// One request key's comparison, with the change of each part's mean per request.
    package struct RequestChange: Sendable {
        package var key: TraceProfile.RequestKey
        package var latency: Comparison
        /// Every part either run has, in ``LatencyBreakdown/Part/Kind`` order: its figures a
        /// request (0 for a request without it; the means add up to the latency's).
        package var parts: [(kind: LatencyBreakdown.Part.Kind, base: Figures, new: Figures)]
        /// The parts whose p50 or mean moved, the farthest-moved median first (of equal moves,
        /// by kind).
        package var movedParts: [(kind: LatencyBreakdown.Part.Kind, base: Figures, new: Figures)] {
            parts.filter { $0.base.p50 != $0.new.p50 || $0.base.mean != $0.new.mean }.sorted { a, b in
                let da = a.new.p50.distance(to: a.base.p50).magnitude
                let db = b.new.p50.distance(to: b.base.p50).magnitude
                return (da, b.kind.rawValue) > (db, a.kind.rawValue)
            }
        }
        /// The admission waits' largest holder on each side ("" for none).
        package var baseHolder: String
        package var newHolder: String
    }

    /// One runtime name's gate: its waits and holds compared, and the label that held it
    /// longest in all on each side.
    package struct GateChange: Sendable {
        package var runtime: String
        package var waits: Comparison
        package var holds: Comparison
        package var baseHolder: String
        package var newHolder: String
    }

    /// How the instances of one task ended on each side, by fate.
    package struct TaskChange: Sendable {
        package var key: TraceProfile.TaskKey
        package var base: [String: Int]
        package var new: [String: Int]
    }

    /// A warning's count on each side.
    package struct WarningChange: Sendable {
        package var warning: String
        package var base: Int
        package var new: Int
    }

    /// Requests paired one to one: by their trace context (``TraceProfile/ContextID``), or by
    /// their order when asked (``TraceProfile/pairsByOrder``).
    package struct Pairing: Sendable {
        /// One request key's pairs: how many got slower and faster, the median change, the sign
        /// test's p and its verdict.
        package struct KeyChange: Sendable {
            package var key: TraceProfile.RequestKey
            package var pairs: Int
            package var slower: Int
            package var faster: Int
            /// The median of new − base over the pairs, in nanoseconds.
            package var medianChange: Int64
            /// The sign test's two-sided p; nil with fewer than ``RankTests/minimumSamples`` pairs.
            package var p: Double?
            package var verdict: Verdict
            /// Paired by order (`--pair-by-order`), not by trace context.
            package var byOrder = false
        }

        /// One request of a side, or of both.
        package struct Request: Sendable {
            /// Its trace context; for a request paired by order, its place among its key's
            /// (``TraceProfile/ContextID/span``, from 1) with ids 0.
            package var context: TraceProfile.ContextID
            package var key: TraceProfile.RequestKey
            package var base: UInt64?
            package var new: UInt64?
            /// How the request is known in both runs: `TRACEID-SPANID`, or `#N` by order.
            package var id: String {
                context.traceHigh == 0 && context.traceLow == 0 ? "#\(context.span)" : context.text
            }
        }

        package var pairs = 0
        package var keys: [KeyChange] = []
        /// The pairs whose latency grew most (at most ``listed``), largest first.
        package var grewMost: [Request] = []
        /// The requests of one side only (at most ``listed`` each, in trace-context order), and
        /// how many there were.
        package var onlyBase: [Request] = []
        package var onlyNew: [Request] = []
        package var onlyCounts: (base: Int, new: Int) = (0, 0)
        /// Trace contexts that a side made more than one request of a key under: not paired.
        package var repeated: (base: Int, new: Int) = (0, 0)
        /// Requests past ``TraceProfile/maxContexts`` of a side: not paired.
        package var leftOut: (base: Int, new: Int) = (0, 0)

        /// The most requests listed of each kind.
        package static let listed = 1_000
    }

    package var requests: [RequestChange]
    /// The requests paired by trace context, when both runs made some under one.
    package var pairing: Pairing?
    package var gates: [GateChange]
    package var tasks: [TaskChange]
    package var warnings: [WarningChange]
    /// Events of each run.
    package var events: (base: UInt64, new: UInt64)
    /// Whether either profile put groups together past ``TraceProfile/maxGroups``.
    package var overflowed: Bool

    /// The significance level of a verdict, before it is divided by the number of comparisons
    /// (Bonferroni: diffs compare many labels at once, and each must not cry wolf).
    package static let significance = 0.01
    /// The smallest effect a verdict of the whole distribution reports: Vargha and Delaney's
    /// "medium" (superiority 0.64). With "small" (0.56), two runs of the same workload side by
    /// side on a machine with both cores busy were told apart once in twenty pairs (0.41, p
    /// 0.0017): load moves a distribution of sub-millisecond waits that much, and a CI gate
    /// must not fail on it.
    package static let mediumEffect = 0.14
    /// The smallest change of the p99 a tail verdict reports.
    package static let tailChange = 0.05

    package init(base: TraceProfile, new: TraceProfile) {
        let keys = Set(base.requests.keys).union(new.requests.keys).sorted()
        let gateNames = Set(base.gates.keys).union(new.gates.keys).sorted()
        let paired =
            Set(base.contextKeys).intersection(new.contextKeys).count
            + Set(base.ordered.keys).intersection(new.ordered.keys).count
        // Every verdict of this diff at the same level: the requests', both gate tests' and the
        // paired requests'.
        let level = Self.significance / Double(max(1, keys.count + 2 * gateNames.count + paired))
        let byContext = !base.contexts.isEmpty && !new.contexts.isEmpty
        let byOrder = !base.ordered.isEmpty && !new.ordered.isEmpty
        pairing = byContext || byOrder ? Self.pair(base, new, level: level) : nil
        requests = keys.map { key in
            let b = base.requests[key] ?? TraceProfile.Requests()
            let n = new.requests[key] ?? TraceProfile.Requests()
            let parts = LatencyBreakdown.Part.Kind.allCases.compactMap {
                kind -> (LatencyBreakdown.Part.Kind, Figures, Figures)? in
                guard b.part(kind).count > 0 || n.part(kind).count > 0 else { return nil }
                return (kind, Figures(b.part(kind), zeros: b.zeros(kind)), Figures(n.part(kind), zeros: n.zeros(kind)))
            }
            return RequestChange(
                key: key, latency: Self.compare(b.latency, n.latency, level: level), parts: parts.map { ($0.0, $0.1, $0.2) },
                baseHolder: Self.largest(b.heldBy), newHolder: Self.largest(n.heldBy))
        }
        gates = gateNames.map { name in
            let b = base.gates[name]?.report ?? ContentionReport()
            let n = new.gates[name]?.report ?? ContentionReport()
            return GateChange(
                runtime: name, waits: Self.compare(b.waits, n.waits, level: level),
                holds: Self.compare(b.holds, n.holds, level: level),
                baseHolder: Self.largest(b.holdByLabel.mapValues(\.total)),
                newHolder: Self.largest(n.holdByLabel.mapValues(\.total)))
        }
        tasks = Set(base.tasks.keys).union(new.tasks.keys).sorted().map {
            TaskChange(key: $0, base: base.tasks[$0] ?? [:], new: new.tasks[$0] ?? [:])
        }
        warnings = Set(base.warnings.keys).union(new.warnings.keys).sorted().map {
            WarningChange(warning: $0, base: base.warnings[$0] ?? 0, new: new.warnings[$0] ?? 0)
        }
        events = (base.events, new.events)
        overflowed = base.overflowed || new.overflowed
    }

    /// `new` against `base`, each verdict at significance `level`.
    package static func compare(_ base: LatencyHistogram, _ new: LatencyHistogram, level: Double) -> Comparison {
        let figures = (Figures(base), Figures(new))
        if base.count == 0 || new.count == 0 {
            let only: Verdict = base.count == 0 ? (new.count == 0 ? .same : .onlyNew) : .onlyBase
            return Comparison(base: figures.0, new: figures.1, shift: nil, verdict: only, tail: only)
        }
        guard let shift = RankTests.mannWhitney(base: base, new: new) else {
            return Comparison(base: figures.0, new: figures.1, shift: nil, verdict: .tooFew, tail: .tooFew)
        }
        var verdict = Verdict.same
        if shift.p < level, abs(shift.superiority - 0.5) >= mediumEffect {
            verdict = shift.superiority > 0.5 ? .slower : .faster
        }
        let p99 = (Double(figures.0.p99), Double(figures.1.p99))
        var tail = Verdict.tooFew
        if let b = RankTests.quantileInterval(base, 0.99), let n = RankTests.quantileInterval(new, 0.99) {
            tail = .same
            if n.lowerBound > b.upperBound, p99.1 >= p99.0 * (1 + tailChange) {
                tail = .slower
            } else if n.upperBound < b.lowerBound, p99.1 <= p99.0 * (1 - tailChange) {
                tail = .faster
            }
        }
        return Comparison(base: figures.0, new: figures.1, shift: shift, verdict: verdict, tail: tail)
    }

    /// The requests of `base` and `new` paired by trace context (and, kept with
    /// ``TraceProfile/pairsByOrder``, those of no context by order), each key's pairs tested.
    private static func pair(_ base: TraceProfile, _ new: TraceProfile, level: Double) -> Pairing {
        var pairing = Pairing()
        // The new run's slots of the base's keys: a context id of one profile in the other's.
        let newSlots = Self.slots(new.contextKeys)
        var changes: [TraceProfile.RequestKey: [Int64]] = [:]
        var grew: [Pairing.Request] = []
        var onlyBase: [Pairing.Request] = []
        for (id, latency) in base.contexts {
            let key = base.contextKeys[Int(id.key)]
            guard let latency else {
                pairing.repeated.base += 1
                continue
            }
            switch Self.id(id, of: key, in: newSlots).flatMap({ new.contexts[$0] }) {
            case .some(.some(let newLatency)):
                pairing.pairs += 1
                let change = Self.change(latency, newLatency)
                changes[key, default: []].append(change)
                if change > 0 { grew.append(Pairing.Request(context: id, key: key, base: latency, new: newLatency)) }
            case .some(.none): break  // repeated in the new run: counted there
            case .none: onlyBase.append(Pairing.Request(context: id, key: key, base: latency, new: nil))
            }
        }
        let baseSlots = Self.slots(base.contextKeys)
        var onlyNew: [Pairing.Request] = []
        for (id, latency) in new.contexts {
            let key = new.contextKeys[Int(id.key)]
            guard let latency else {
                pairing.repeated.new += 1
                continue
            }
            if Self.id(id, of: key, in: baseSlots).flatMap({ base.contexts[$0] }) == nil {
                onlyNew.append(Pairing.Request(context: id, key: key, base: nil, new: latency))
            }
        }
        // By order: the i-th request of a key (without a context) in one run with the i-th in the
        // other; the surplus of the longer run is its own.
        var byOrder = Set<TraceProfile.RequestKey>()
        for (key, baseList) in base.ordered {
            guard let newList = new.ordered[key] else { continue }
            byOrder.insert(key)
            let inOrder = { (list: [(runtime: Int32, dispatch: UInt64, nanos: UInt64)]) in
                list.sorted { ($0.runtime, $0.dispatch) < ($1.runtime, $1.dispatch) }.map(\.nanos)
            }
            let (b, n) = (inOrder(baseList), inOrder(newList))
            let place = { (i: Int) in TraceProfile.ContextID(traceHigh: 0, traceLow: 0, span: UInt64(i + 1), key: 0) }
            for i in 0..<max(b.count, n.count) {
                if i < b.count && i < n.count {
                    pairing.pairs += 1
                    let change = Self.change(b[i], n[i])
                    changes[key, default: []].append(change)
                    if change > 0 { grew.append(Pairing.Request(context: place(i), key: key, base: b[i], new: n[i])) }
                } else if i < b.count {
                    onlyBase.append(Pairing.Request(context: place(i), key: key, base: b[i], new: nil))
                } else {
                    onlyNew.append(Pairing.Request(context: place(i), key: key, base: nil, new: n[i]))
                }
            }
        }
        pairing.onlyCounts = (onlyBase.count, onlyNew.count)
        let order = { (a: Pairing.Request, b: Pairing.Request) in (a.key, a.context) < (b.key, b.context) }
        pairing.onlyBase = Array(onlyBase.sorted(by: order).prefix(Pairing.listed))
        pairing.onlyNew = Array(onlyNew.sorted(by: order).prefix(Pairing.listed))
        pairing.grewMost = Array(
            grew.sorted { ($0.new! - $0.base!, $1.key, $1.context) > ($1.new! - $1.base!, $0.key, $0.context) }
                .prefix(Pairing.listed))
        pairing.leftOut = (base.contextsLeftOut, new.contextsLeftOut)
        pairing.keys = changes.keys.sorted().map { key in
            let sorted = changes[key]!.sorted()
            let slower = sorted.count { $0 > 0 }
            let faster = sorted.count { $0 < 0 }
            let median =
                sorted.count % 2 == 1
                ? sorted[sorted.count / 2] : sorted[sorted.count / 2 - 1] / 2 + sorted[sorted.count / 2] / 2
            var change = Pairing.KeyChange(
                key: key, pairs: sorted.count, slower: slower, faster: faster, medianChange: median, p: nil,
                verdict: .tooFew, byOrder: byOrder.contains(key))
            guard UInt64(sorted.count) >= RankTests.minimumSamples else { return change }
            let p = RankTests.signTest(slower: UInt64(slower), faster: UInt64(faster))
            change.p = p
            change.verdict = .same
            // The effect: the share of the changed pairs that got slower (0.5: none), held to
            // the same medium effect as the unpaired test's.
            let share = slower + faster == 0 ? 0.5 : Double(slower) / Double(slower + faster)
            if p < level, abs(share - 0.5) >= mediumEffect { change.verdict = share > 0.5 ? .slower : .faster }
            return change
        }
        return pairing
    }

    /// `new` − `base` in nanoseconds (saturating).
    private static func change(_ base: UInt64, _ new: UInt64) -> Int64 {
        new >= base ? Int64(clamping: new - base) : -Int64(clamping: base - new)
    }

    /// `id` (of request key `key`) as the profile whose key slots are `slots` writes it; nil when
    /// that profile has no request of the key under a context.
    private static func id(
        _ id: TraceProfile.ContextID, of key: TraceProfile.RequestKey, in slots: [TraceProfile.RequestKey: Int32]
    ) -> TraceProfile.ContextID? {
        guard let slot = slots[key] else { return nil }
        var other = id
        other.key = slot
        return other
    }

    /// Each key's slot in `keys` (a profile's ``TraceProfile/contextKeys``).
    private static func slots(_ keys: [TraceProfile.RequestKey]) -> [TraceProfile.RequestKey: Int32] {
        Dictionary(keys.enumerated().map { ($0.element, Int32($0.offset)) }, uniquingKeysWith: { a, _ in a })
    }

    /// The key of the largest value ("" for none; of equals, the first by name).
    private static func largest(_ values: [String: UInt64]) -> String {
        values.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
    }
}
