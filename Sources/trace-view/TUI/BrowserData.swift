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
        /// Queue depth over time, in equal time buckets (the deepest of each): the report's depth
        /// timeline, its neighbouring buckets merged to at most ``sparkWidth``.
        var depths: [UInt32]
        /// The p99 of the gate waits that ended in each of the same buckets (0 for none).
        var waitP99s: [UInt64]
    }

    let index: TraceIndex
    let start: UInt64
    /// The header's counts: the trace's, or a live stream's totals.
    var events: UInt64
    var runtimes: Int
    var lost: UInt64
    /// Those still waiting first, then the resumed ones; each group slowest first (ties by
    /// runtime and dispatch). Sorted once here: the screen filters them on every draw.
    let requests: [Request]
    let tasks: [TaskReport.Row]
    let gates: [Gate]
    /// The runtime column's width: its names (`3 (pid 4242)` when the trace has pids), at least 9.
    let runtimeWidth: Int

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
        var requests =
            waiting
            + index.latencyBreakdowns().map { b in
                let top = b.parts.max { $0.nanos < $1.nanos }
                let share = b.total == 0 ? 0 : Double(top?.nanos ?? 0) / Double(b.total)
                return Request(
                    runtime: b.runtime, dispatch: b.dispatch, label: b.label, style: b.style, outcome: b.outcome, start: b.start,
                    total: b.total, dominant: top.map { "\($0.kind.rawValue) \(Int((share * 100).rounded()))%" } ?? "")
            }
        requests.sort {
            if $0.waiting != $1.waiting { return $0.waiting }
            return $0.total != $1.total ? $0.total > $1.total : ($0.runtime, $0.dispatch) < ($1.runtime, $1.dispatch)
        }
        self.requests = requests
        tasks = TaskReport(index: index).rows
        // Each runtime's gate is the contention report of its events alone, made one runtime at
        // a time: a report holds two 16 KiB histograms and more, and a trace (or a live window)
        // of thousands of runtimes would hold them all at once.
        var byRuntime: [UInt64: [Int]] = [:]
        for (i, e) in trace.events.enumerated() { byRuntime[e.runtimeKey, default: []].append(i) }
        runtimes = byRuntime.count
        gates = byRuntime.keys.sorted().map { key in
            var report = ContentionReport()
            // Its latest cycle, which holds the gate still if it has not left, and its waits for
            // the gate by the time they ended.
            var latest: UInt64?
            var waits: [(time: UInt64, nanos: UInt64)] = []
            // Dispatches not yet entered: a wait is enter − dispatch on the trace's clock.
            var dispatched: [UInt64: UInt64] = [:]
            for i in byRuntime[key]! {
                let e = trace.events[i]
                report.consume(e)
                if e.kind == .dispatch { dispatched[e.dispatch] = e.time }
                if e.kind == .cycleEnter {
                    latest = e.cycle
                    waits.append((e.time, dispatched.removeValue(forKey: e.dispatch).map { e.time.minus($0) } ?? e.nanos))
                }
            }
            let holding = latest.flatMap { cycle -> String? in
                index.cycles[TraceIndex.Key(runtime: key, id: cycle)]?.leave == nil
                    ? index.cycleLabel(runtime: key, cycle: cycle) : nil
            }
            let longest = report.holdByLabel.max { $0.value.max < $1.value.max }
            let (depths, p99s) = Self.timelines(report.depth, waits: waits)
            return Gate(
                runtime: key, host: trace.hosts[RuntimeKey.process(key)] ?? "", cycles: Int(report.holds.count),
                maxDepth: report.maxDepth[key] ?? 0,
                waitP99: report.waits.percentile(0.99), longestHold: report.holds.count == 0 ? 0 : report.holds.max,
                holder: longest?.key ?? "", holdingNow: holding ?? "", depths: depths, waitP99s: p99s)
        }
        runtimeWidth = min(24, max(9, gates.lazy.map { RuntimeKey.name($0.runtime).count + 2 }.max() ?? 0))
    }

    /// The most buckets a gate's timelines have (a sparkline's characters).
    static let sparkWidth = 16

    /// The depth timeline with its neighbouring buckets merged to at most ``sparkWidth``, and the
    /// p99 of the waits that ended in each merged bucket.
    static func timelines(_ timeline: DepthTimeline, waits: [(time: UInt64, nanos: UInt64)]) -> ([UInt32], [UInt64]) {
        guard let start = timeline.start, timeline.used > 0 else { return ([], []) }
        let used = Array(timeline.buckets.prefix(timeline.used))
        let group = (used.count + sparkWidth - 1) / sparkWidth
        let depths = stride(from: 0, to: used.count, by: group).map { used[$0..<min($0 + group, used.count)].max() ?? 0 }
        let width = timeline.width.multipliedReportingOverflow(by: UInt64(group)).partialValue
        var samples = [[UInt64]](repeating: [], count: depths.count)
        for wait in waits {
            let bucket = wait.time <= start ? 0 : (wait.time - start) / max(1, width)
            samples[Int(min(UInt64(depths.count - 1), bucket))].append(wait.nanos)
        }
        let p99s = samples.map { s -> UInt64 in
            guard !s.isEmpty else { return 0 }
            return s.sorted()[min(s.count - 1, Int(Double(s.count) * 0.99))]
        }
        return (depths, p99s)
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
