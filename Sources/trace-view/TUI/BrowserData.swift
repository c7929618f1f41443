import TransduceTrace

/// What the terminal UI shows of one trace, computed once from the library's analyses (the same
/// models the batch commands print): the requests with their latency parts, the tasks, and each
/// runtime's gate. A live view builds one from each ``LiveWindow/trace`` and puts the totals of
/// the whole stream in the header's counts.
struct BrowserData {
    /// One awaited request: resumed, or still waiting at the trace's end (its latency so far).
    struct Request {
        var runtime: UInt64
        var dispatch: UInt64
        var label: String
        var style: String
        var outcome: String
        var start: UInt64
        var total: UInt64
        /// The largest latency part, and its share of the total.
        var dominant: String
        /// Not resumed by the trace's end: `total` is how long it has waited so far.
        var waiting = false
    }

    /// One runtime's gate.
    struct Gate {
        var runtime: UInt64
        /// Where the runtime's process ran, when the trace says ("" otherwise).
        var host: String
        var cycles: Int
        var maxDepth: UInt32
        var waitP99: UInt64
        var longestHold: UInt64
        var holder: String
        /// The cycle holding the gate at the trace's end (its event's label), "" when idle.
        var holdingNow: String
        /// Queue depth over time, in the report's equal time buckets (the deepest of each).
        var depths: [UInt32]
    }

    let index: TraceIndex
    let start: UInt64
    /// The header's counts: the trace's, or a live stream's totals.
    var events: UInt64
    var runtimes: Int
    var lost: UInt64
    let requests: [Request]
    let tasks: [TaskReport.Row]
    let gates: [Gate]

    init(trace: Trace) {
        let index = TraceIndex(trace.events)
        self.index = index
        start = trace.start ?? 0
        events = UInt64(trace.events.count)
        lost = trace.counts.overwritten + trace.counts.discarded
        let end = trace.events.lazy.map(\.time).max() ?? 0
        // Awaited dispatches with no resume yet, with how long they have waited.
        let waiting = trace.events.enumerated().compactMap { i, e -> Request? in
            guard e.kind == .dispatch, e.isAwaitedDispatch,
                let record = index.dispatches[TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)], record.event == i,
                record.resumes.isEmpty
            else { return nil }
            return Request(
                runtime: e.runtimeKey, dispatch: e.dispatch, label: e.label, style: e.codeName, outcome: "waiting",
                start: e.time, total: end &- e.time, dominant: "", waiting: true)
        }
        requests =
            waiting
            + index.latencyBreakdowns().map { b in
                let top = b.parts.max { $0.nanos < $1.nanos }
                let share = b.total == 0 ? 0 : Double(top?.nanos ?? 0) / Double(b.total)
                return Request(
                    runtime: b.runtime, dispatch: b.dispatch, label: b.label, style: b.style, outcome: b.outcome, start: b.start,
                    total: b.total, dominant: top.map { "\($0.kind.rawValue) \(Int((share * 100).rounded()))%" } ?? "")
            }
        tasks = TaskReport(index: index).rows
        // Each runtime's gate is the contention report of its events alone.
        var reports: [UInt64: ContentionReport] = [:]
        for e in trace.events { reports[e.runtimeKey, default: ContentionReport()].consume(e) }
        runtimes = reports.count
        // Each runtime's latest cycle, which holds the gate still if it has not left.
        var latest: [UInt64: UInt64] = [:]
        for e in trace.events where e.kind == .cycleEnter { latest[e.runtimeKey] = e.cycle }
        var holding: [UInt64: String] = [:]
        for (runtime, cycle) in latest where index.cycles[TraceIndex.Key(runtime: runtime, id: cycle)]?.leave == nil {
            holding[runtime] = index.cycleLabel(runtime: runtime, cycle: cycle)
        }
        gates = reports.keys.sorted().map { key in
            let report = reports[key]!
            let longest = report.holdByLabel.max { $0.value.max < $1.value.max }
            return Gate(
                runtime: key, host: trace.hosts[RuntimeKey.process(key)] ?? "", cycles: Int(report.holds.count),
                maxDepth: report.maxDepth[key] ?? 0,
                waitP99: report.waits.percentile(0.99), longestHold: report.holds.count == 0 ? 0 : report.holds.max,
                holder: longest?.key ?? "", holdingNow: holding[key] ?? "",
                depths: Array(report.depth.buckets.prefix(report.depth.used)))
        }
    }

    /// The sequence diagram of one request's lifecycle, at `width` columns.
    func diagram(of request: Request, options: RenderOptions) -> [String] {
        let indices = index.requestLifecycle(runtime: request.runtime, dispatch: request.dispatch)
        var lines: [String] = []
        SequenceDiagram(index: index, options: options, origin: start).render(indices, progress: { _ in }) { lines.append($0) }
        if let breakdown = index.latencyBreakdown(runtime: request.runtime, dispatch: request.dispatch) {
            lines.append("")
            lines += breakdown.render(options: options)
        }
        return lines
    }
}
