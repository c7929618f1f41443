/// Latency per event label over many requests: percentiles, and what made the slowest ones slow
/// (the cause with the largest share of the requests at or above the p99).
public struct LatencyByEvent: Sendable {
    /// One event label's requests.
    public struct Row: Sendable {
        /// The event label.
        public var label: String
        /// How many requests of it were resumed.
        public var count: Int
        /// Median latency.
        public var p50: UInt64
        /// 90th percentile latency.
        public var p90: UInt64
        /// 99th percentile latency.
        public var p99: UInt64
        /// The cause with the largest share of the latency of the requests at or above the p99,
        /// and that share (0…1).
        public var dominant: (cause: String, share: Double)?
    }

    /// One row per label, slowest p99 first.
    public private(set) var rows: [Row] = []

    /// - Parameter breakdowns: one per request (``TraceIndex/latencyBreakdowns()``).
    public init(_ breakdowns: [LatencyBreakdown]) {
        var totals: [String: [UInt64]] = [:]
        for b in breakdowns { totals[b.label, default: []].append(b.total) }
        let p99 = totals.mapValues { Self.percentile(0.99, of: $0.sorted()) }
        var tails: [String: Tail] = [:]
        for b in breakdowns where b.total >= p99[b.label]! { tails[b.label, default: Tail()].add(b) }
        self.init(totals: totals, tails: tails)
    }

    /// The `p` percentile (0…1) of ascending `totals` (nearest rank; not empty).
    public static func percentile(_ p: Double, of totals: [UInt64]) -> UInt64 {
        totals[min(totals.count - 1, max(0, Int((p * Double(totals.count)).rounded(.up)) - 1))]
    }

    /// What the requests at or above one label's p99 spent their time on (by cause,
    /// summed), and their total latency: all ``LatencyByEvent`` keeps of the tail, so a
    /// streaming reader adds breakdowns one at a time and lets each go.
    public struct Tail: Sendable {
        /// Nanoseconds by cause, summed over the tail.
        public var causes: [String: UInt64] = [:]
        /// The tail's latencies, summed.
        public var total: UInt64 = 0
        /// An empty tail.
        public init() {}
        /// Adds one request of the tail.
        public mutating func add(_ b: LatencyBreakdown) {
            for (cause, nanos) in LatencyByEvent.causes(of: b) { causes[cause, default: 0] += nanos }
            total = total.plus(b.total)
        }
    }

    /// From every request's latency by label (`totals`) and, by label, the ``Tail`` of the
    /// requests at or above its p99.
    public init(totals byLabel: [String: [UInt64]], tails: [String: Tail]) {
        for (label, unsorted) in byLabel where !unsorted.isEmpty {
            let totals = unsorted.sorted()
            func percentile(_ p: Double) -> UInt64 { Self.percentile(p, of: totals) }
            let tail = tails[label] ?? Tail()
            let dominant = tail.causes.max { ($0.value, $1.key) < ($1.value, $0.key) }.map {
                (cause: $0.key, share: tail.total == 0 ? 0 : Double($0.value) / Double(tail.total))
            }
            rows.append(
                Row(
                    label: label, count: totals.count, p50: percentile(0.5), p90: percentile(0.9), p99: percentile(0.99),
                    dominant: dominant))
        }
        rows.sort { ($0.p99, $1.label) > ($1.p99, $0.label) }
    }

    /// A request's latency by cause, comparable across requests: waits by what held the gate,
    /// tasks by name (not instance), its own cycles by kind of work.
    static func causes(of b: LatencyBreakdown) -> [(String, UInt64)] {
        var out: [(String, UInt64)] = []
        for p in b.parts {
            switch p.kind {
            case .admissionWait, .reentryWait:
                var held: UInt64 = 0
                for h in p.heldBy {
                    let work = LatencyBreakdown.holdingWork(action: h.actionNanos, asyncAction: h.asyncActionNanos)
                    let how = work.isEmpty ? "" : " (\(work))"
                    out.append((h.cycle == 0 ? "waiting behind other cycles" : "waiting behind \(h.label)\(how)", h.nanos))
                    held = held.plus(h.nanos)
                }
                if p.nanos > held { out.append(("waiting for the gate (not held)", p.nanos - held)) }
            case .transduce: out.append(("its own cycles", p.nanos))
            case .action: out.append(("its own actions", p.nanos))
            case .asyncAction: out.append(("its own async actions", p.nanos))
            case .task, .sharedTask, .replacedTask, .cancelledTask:
                // `load#3` → `load`: every instance of a task is one cause.
                let name = p.label.split(separator: "#").first.map(String.init) ?? p.label
                let what =
                    switch p.kind {
                    case .sharedTask: "shared task \(name)"
                    case .replacedTask: "task \(name) until replaced"
                    case .cancelledTask: "task \(name) until cancelled"
                    default: "task \(name)"
                    }
                out.append((what, p.nanos))
            case .resume: out.append(("resuming the caller", p.nanos))
            }
        }
        return out
    }

    /// One line per label: percentiles and what dominates at p99.
    package func render(options: RenderOptions) -> [String] {
        let d = { (n: UInt64) in formatDuration(n, ascii: options.ascii) }
        var table = TextTable([
            .init("event", minimum: 6), .init("requests", minimum: 4, alignRight: true), .init("p50", alignRight: true),
            .init("p90", alignRight: true), .init("p99", alignRight: true), .init("at p99", minimum: 10),
        ])
        for r in rows {
            let dominant = r.dominant.map { format($0.share * 100, decimals: 0) + "% " + $0.cause } ?? ""
            table.append([r.label, String(r.count), d(r.p50), d(r.p90), d(r.p99), dominant])
        }
        return rows.isEmpty ? [] : table.render(options: options)
    }
}
