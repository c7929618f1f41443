/// Gate contention runtime by runtime: every runtime has its own gate and queue, so waits, holds
/// and queue depths pooled over several describe no gate that exists.
///
/// The first ``maxRuntimes`` runtimes of the trace each get a ``ContentionReport`` of their own;
/// the runtimes after them are followed together in ``others`` (and counted, so a view says how
/// many it pooled). With `pooled`, one report takes every event instead: the total over all of
/// them, for a caller that asks for it (``runtimes`` and ``others`` then stay empty).
///
/// Streaming, in memory bounded by ``maxRuntimes`` reports, whatever the trace's length or its
/// number of runtimes (the distinct runtimes past the bound are counted up to
/// ``maxCountedOthers``).
public struct ContentionByRuntime: TraceConsumer, Sendable {
    /// The runtimes followed one by one.
    public static let maxRuntimes = 64
    /// Distinct runtimes past ``maxRuntimes`` counted exactly; beyond, ``otherRuntimes`` is a
    /// lower bound.
    public static let maxCountedOthers = 1_000_000

    /// Each runtime followed on its own, in the order the trace first named them.
    public private(set) var runtimes: [(key: RuntimeKey, report: ContentionReport)] = []
    /// The runtimes past ``maxRuntimes``, together (`nil` while there are none).
    public private(set) var others: ContentionReport?
    /// How many distinct runtimes ``others`` holds (at least, past ``maxCountedOthers``).
    public var otherRuntimes: Int { pooled == nil ? lanes.otherCount : 0 }
    /// Every event of every runtime together, when made with `pooled` (then the only report).
    public private(set) var pooled: ContentionReport?

    /// Which runtimes are followed one by one (the views' ``RuntimeLanes``: the same first
    /// runtimes, the rest counted).
    private var lanes = RuntimeLanes()
    /// How many distinct runtimes ``pooled`` holds (at least, past ``maxCountedOthers``).
    public var pooledRuntimes: Int { pooled == nil ? 0 : lanes.count }
    private let threshold: UInt64

    /// An empty report: long holds at `longHoldThreshold` or more; with `pooled`, also the total
    /// over every runtime (``pooled``).
    public init(longHoldThreshold: UInt64 = ContentionReport.defaultLongHoldThreshold, pooled: Bool = false) {
        threshold = longHoldThreshold
        if pooled { self.pooled = report() }
    }

    private func report() -> ContentionReport {
        var report = ContentionReport()
        report.longHoldThreshold = threshold
        return report
    }

    /// Takes the next event of the trace, in order.
    public mutating func consume(_ e: TraceEvent) {
        let lane = lanes.lane(e.runtimeKey)
        if pooled != nil { return pooled!.consume(e) }
        if lane < Self.maxRuntimes {
            if lane == runtimes.count { runtimes.append((e.runtimeKey, report())) }
            runtimes[lane].report.consume(e)
        } else {
            if others == nil { others = report() }
            others!.consume(e)
        }
    }

    /// The runtimes followed one by one, the gate held longest in all first (ties by key).
    public var busiestFirst: [(key: RuntimeKey, report: ContentionReport)] {
        runtimes.sorted { ($0.report.holds.total, $1.key) > ($1.report.holds.total, $0.key) }
    }
}
