import TransduceTrace

/// The report's comparison with a baseline run (`report --baseline BASE`): what `diff BASE TRACE`
/// says, with both latency distributions of each request key binned on one axis so the page can
/// draw them over each other.
struct ReportBaseline: Codable, Equatable {
    /// A distribution's figures, as `diff` gives them.
    struct Figures: Codable, Equatable {
        var count: UInt64
        var p50: UInt64
        var p90: UInt64
        var p99: UInt64
        var max: UInt64
        var mean: UInt64

        init(_ f: TraceDiff.Figures) {
            (count, p50, p90, p99, max, mean) = (f.count, f.p50, f.p90, f.p99, f.max, f.mean)
        }
    }

    /// A latency part whose median moved.
    struct Part: Codable, Equatable {
        var kind: String
        var base: UInt64
        var new: UInt64
    }

    /// One request key: its verdicts, figures, both distributions and the parts that moved.
    struct Request: Codable, Equatable {
        var runtime: String
        var label: String
        var verdict: String
        var tail: String
        var p: Double?
        var superiority: Double?
        var base: Figures
        var new: Figures
        /// The bins' lower bounds and, last, the last bin's upper bound (ns).
        var edges: [UInt64]
        var baseCounts: [UInt64]
        var newCounts: [UInt64]
        /// The parts whose median moved, the farthest first (at most four).
        var parts: [Part]
        /// Pairs by trace context: how many, how many got slower and faster, the median change
        /// (ns), the verdict; nil when the key has none.
        var pairs: Int?
        var slower: Int?
        var faster: Int?
        var medianChange: Int64?
        var pairedVerdict: String?
    }

    /// One runtime name's gate.
    struct Gate: Codable, Equatable {
        var runtime: String
        var waits: String
        var holds: String
        var waitP99: [UInt64]
        var holdP99: [UInt64]
    }

    /// The base trace's name and events.
    var source: String
    var events: UInt64
    var requests: [Request]
    var gates: [Gate]
    /// Warnings by what they are about that appeared, and that went away.
    var appeared: [String]
    var gone: [String]
    /// Requests of one run only by trace context, when the runs were paired.
    var onlyBase: Int?
    var onlyNew: Int?

    /// The comparison of `new` (the report's trace) against `base`.
    init(base: TraceProfile, new: TraceProfile, source: String) {
        let diff = TraceDiff(base: base, new: new)
        let paired = Dictionary(
            (diff.pairing?.keys ?? []).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        self.source = Self.cut(source)
        events = base.events
        requests = diff.requestsInOrder.map { r in
            let bins = LatencyHistogram.sharedBins(
                base.requests[r.key]?.latency ?? LatencyHistogram(), new.requests[r.key]?.latency ?? LatencyHistogram())
            // The parts whose median moved (the text lists those whose mean alone moved too).
            let moved = r.movedParts.filter { $0.base.p50 != $0.new.p50 }
            let pair = paired[r.key]
            return Request(
                runtime: Self.cut(r.key.runtime), label: Self.cut(r.key.label), verdict: r.latency.verdict.rawValue,
                tail: r.latency.tail.rawValue, p: r.latency.shift?.p, superiority: r.latency.shift?.superiority,
                base: Figures(r.latency.base), new: Figures(r.latency.new), edges: bins.edges, baseCounts: bins.a,
                newCounts: bins.b,
                parts: moved.prefix(4).map { Part(kind: $0.kind.rawValue, base: $0.base.p50, new: $0.new.p50) },
                pairs: pair?.pairs, slower: pair?.slower, faster: pair?.faster, medianChange: pair?.medianChange,
                pairedVerdict: pair?.verdict.rawValue)
        }
        gates = diff.gates.map {
            Gate(
                runtime: Self.cut($0.runtime), waits: $0.waits.verdict.rawValue, holds: $0.holds.verdict.rawValue,
                waitP99: [$0.waits.base.p99, $0.waits.new.p99], holdP99: [$0.holds.base.p99, $0.holds.new.p99])
        }
        appeared = diff.warnings.filter { $0.base == 0 && $0.new > 0 }.map { Self.cut($0.warning, to: ReportModel.maxMessage) }
        gone = diff.warnings.filter { $0.base > 0 && $0.new == 0 }.map { Self.cut($0.warning, to: ReportModel.maxMessage) }
        onlyBase = diff.pairing?.onlyCounts.base
        onlyNew = diff.pairing?.onlyCounts.new
    }

    /// A name or label cut as the page's others are (``ReportModel/maxText``).
    private static func cut(_ text: String, to limit: Int = ReportModel.maxText) -> String {
        SequenceExport.cut(text, to: limit)
    }
}
