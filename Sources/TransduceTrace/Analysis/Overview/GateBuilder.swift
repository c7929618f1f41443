/// One runtime's gate for the overview, from that runtime's events in order: its contention
/// report, its waits for the gate by when they ended, and the cycle it entered last.
package struct GateBuilder {
    package var report = ContentionReport()
    /// The waits for the gate by when they ended.
    package var waits = WaitTimeline()
    /// Its latest cycle, which holds the gate still if it has not left.
    package var latest: (cycle: UInt64, label: String, left: Bool)?

    package mutating func consume(_ e: TraceEvent) {
        report.consume(e)
        switch e.kind {
        case .cycleEnter:
            // The report knows what the cycle waited (enter − dispatch on the trace's clock).
            let entry = report.lastEntry
            latest = (e.cycle, entry?.label ?? "?", false)
            waits.record(time: e.time, wait: entry?.waited ?? e.nanos, on: report.depth)
        case .cycleLeave:
            if latest?.cycle == e.cycle { latest?.left = true }
        default: break
        }
    }

    /// The gate's row (of the `together` runtimes kept together, when not 0); a `preview` (a
    /// frame while the trace is still read) leaves out the wait p99 timeline.
    package func gate(runtime key: RuntimeKey, host: String, together: Int = 0, preview: Bool = false) -> TraceOverview.Gate {
        // Of labels whose longest holds are equal, the first by name: a table's order changes
        // from run to run.
        let longest = report.holdByLabel.max { ($0.value.max, $1.key) < ($1.value.max, $0.key) }
        let (depths, p99s) = TraceOverview.timelines(report.depth, waits: preview ? nil : waits)
        return TraceOverview.Gate(
            runtime: key, host: host, cycles: Int(report.holds.count),
            maxDepth: together > 0 ? report.maxDepth.values.max() ?? 0 : report.maxDepth[key] ?? 0,
            waitP99: report.waits.percentile(0.99), longestHold: report.holds.count == 0 ? 0 : report.holds.max,
            holder: longest?.key ?? "", holdingNow: together > 0 ? "" : latest.map { $0.left ? "" : $0.label } ?? "",
            depths: depths,
            waitP99s: p99s, warnings: preview ? [] : report.warnings,
            waitRanges: preview ? [] : Self.ranges(report.waits), holdRanges: preview ? [] : Self.ranges(report.holds),
            topHolders: preview ? [] : Self.top(report.holdByLabel),
            topActions: preview ? [] : Self.top(report.holdByEffect),
            longestWaits: preview ? [] : report.longestWaits,
            depthBuckets: preview ? [] : Array(report.depth.buckets.prefix(report.depth.used)),
            depthStart: report.depth.start ?? 0, depthWidth: report.depth.width, together: together)
    }

    /// The five that held the gate longest in all, longest first (ties by name).
    static func top(_ aggregates: [String: ContentionReport.Aggregate]) -> [TraceOverview.Holder] {
        aggregates.sorted { ($0.value.total, $1.key) > ($1.value.total, $0.key) }.prefix(5).map {
            TraceOverview.Holder(label: $0.key, cycles: $0.value.count, total: $0.value.total, longest: $0.value.max)
        }
    }

    /// A histogram's counts per power-of-two range of nanoseconds, smallest first.
    static func ranges(_ histogram: LatencyHistogram) -> [TraceOverview.Range] {
        histogram.powerOfTwoRanges.map { TraceOverview.Range(lower: $0.lower, upper: $0.upper, count: $0.count) }
    }
}
