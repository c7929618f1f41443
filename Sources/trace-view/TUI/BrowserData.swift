import Transduce
import TransduceTrace

/// What the terminal UI shows of one trace, computed once from the library's analyses (the same
/// models the batch commands print): the requests with their latency parts, the tasks, and each
/// runtime's gate. A live view builds one from each ``LiveWindow/trace`` and puts the totals of
/// the whole stream in the header's counts.
struct BrowserData {
    /// One awaited request: resumed, or still waiting at the trace's end (its latency so far).
    struct Request {
        var runtime: RuntimeKey
        var dispatch: UInt64
        var label: String
        var style: String
        var outcome: String
        var start: UInt64
        var total: UInt64
        /// The largest latency part, and its share of the total; nil until it is found (see
        /// ``BrowserData/dominantPart``).
        var dominant: String?
        /// Not resumed by the trace's end: `total` is how long it has waited so far.
        var waiting = false
    }

    /// One runtime's gate, or the runtimes past ``RuntimeLanes/maxWhole`` together.
    struct Gate {
        /// The runtime, or ``RuntimeLanes/others`` for the runtimes kept together.
        var runtime: RuntimeKey
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
        /// What the runtime's contention report warns of (long holds, a runaway or growing queue).
        var warnings: [AnalysisWarning] = []
        /// How long admissions waited for the gate, and how long cycles held it: counts per
        /// power-of-two range of nanoseconds, smallest first (empty in a preview).
        var waitRanges: [(lower: UInt64, upper: UInt64, count: UInt64)] = []
        var holdRanges: [(lower: UInt64, upper: UInt64, count: UInt64)] = []
        /// The events whose cycles held the gate longest in all, at most five: label, cycles,
        /// total and longest hold.
        var topHolders: [(label: String, cycles: Int, total: UInt64, longest: UInt64)] = []
        /// Likewise the actions (effects by kind and task) that held it longest in all.
        var topActions: [(label: String, cycles: Int, total: UInt64, longest: UInt64)] = []
        /// The longest waits for the gate, longest first, with the cycles that held it meanwhile.
        var longestWaits: [ContentionReport.Wait] = []
        /// The queue depth over time unmerged: the deepest of each bucket of `depthWidth` ns
        /// from `depthStart`.
        var depthBuckets: [UInt32] = []
        var depthStart: UInt64 = 0
        var depthWidth: UInt64 = 0
        /// How many runtimes this row keeps together (the runtimes past
        /// ``RuntimeLanes/maxWhole``); 0 for one runtime's gate.
        var together = 0

        /// The runtime's name, or how many runtimes the row keeps together ("7749 others").
        var name: String { together > 0 ? "\(together) others" : runtime.name }
    }

    /// A warning of the warnings pane, with the runtime it is about (a growing queue names none:
    /// it is its gate's).
    struct Warning {
        var warning: AnalysisWarning
        var runtime: RuntimeKey
    }

    /// Every warning: each gate's, then the tasks' (made once: the screen reads it on every draw).
    let warnings: [Warning]

    /// The gates' warnings with their runtimes, then `tasks` (the task report's) with theirs.
    static func warnings(gates: [Gate], tasks: [AnalysisWarning]) -> [Warning] {
        gates.flatMap { g in g.warnings.map { Warning(warning: $0, runtime: g.runtime) } }
            + tasks.map { w in
                switch w.finding {
                case .neverSettled(let t), .noEndRecorded(let t, _): Warning(warning: w, runtime: t.runtime)
                case .switchToLatestChurn(let runtime, _, _, _): Warning(warning: w, runtime: runtime)
                case .longHold(_, _, let cycle, _): Warning(warning: w, runtime: cycle.runtime)
                case .runawayQueue(let runtime, _, _): Warning(warning: w, runtime: runtime)
                case .growingQueue: Warning(warning: w, runtime: RuntimeKey(rawValue: 0))
                }
            }
    }

    /// The trace indexed, when it is held; nil when it was streamed (``init(reading:maxRows:)``),
    /// whose diagrams are read back from the input on demand through `reread`.
    let index: TraceIndex?
    var reread: (((TraceEvent) -> Void) throws -> Void)?
    /// A request's chart's events read straight from where they are (a trace file's index), in
    /// place of two passes of `reread`.
    var lifecycle: ((Request) throws -> [TraceEvent])?
    /// Finds the largest latency part of a request whose ``Request/dominant`` is nil, when a
    /// screen first shows it ("" when it cannot).
    var dominantPart: ((Request) -> String)?
    let start: UInt64
    /// The header's counts: the trace's, or a live stream's totals.
    var events: UInt64
    var runtimes: Int
    var lost: UInt64
    /// Those still waiting first, then the resumed ones; each group slowest first (ties by
    /// runtime and dispatch). Sorted once here: the screen filters them on every draw.
    var requests: [Request]
    let tasks: [TaskReport.Row]
    let gates: [Gate]
    /// The runtime column's width: its names (`3 (pid 4242)` when the trace has pids), at least 9.
    let runtimeWidth: Int

    init(trace: Trace) {
        let index = TraceIndex(trace.events)
        self.index = index
        reread = nil
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
                Request(
                    runtime: b.runtime, dispatch: b.dispatch, label: b.label, style: b.styleName, outcome: b.outcomeName,
                    start: b.start,
                    total: b.total, dominant: Self.dominant(of: b))
            }
        requests.sort {
            if $0.waiting != $1.waiting { return $0.waiting }
            return $0.total != $1.total ? $0.total > $1.total : ($0.runtime, $0.dispatch) < ($1.runtime, $1.dispatch)
        }
        self.requests = requests
        let taskReport = TaskReport(index: index)
        tasks = taskReport.rows
        // Each runtime's gate is the contention report of its events alone, for the runtimes
        // kept whole; the rest share one (a report holds histograms, timelines and more, and a
        // trace or a live window of thousands of runtimes would hold them all at once).
        var table = GateTable()
        for e in trace.events { table.consume(e) }
        runtimes = table.runtimes
        gates = table.gates(hosts: trace.hosts)
        runtimeWidth = Self.runtimeWidth(gates)
        warnings = Self.warnings(gates: gates, tasks: taskReport.warnings)
    }

    /// The runtime column's width for `gates`' names, 9 to 24.
    /// With runtimes kept together, the requests and tasks of those name runtimes no row shows:
    /// a few more columns than the whole ones' names.
    static func runtimeWidth(_ gates: [Gate]) -> Int {
        let widest = gates.lazy.map { $0.name.count + 2 }.max() ?? 0
        return min(24, max(9, widest + (gates.contains { $0.together > 0 } ? 3 : 0)))
    }

    /// The most buckets a gate's timelines have (a sparkline's characters).
    static let sparkWidth = 16

    /// The depth timeline with its neighbouring buckets merged to at most ``sparkWidth``, and the
    /// p99 of the waits that ended in each merged bucket.
    static func timelines(_ timeline: DepthTimeline, waits: WaitTimeline?) -> ([UInt32], [UInt64]) {
        guard timeline.start != nil, timeline.used > 0 else { return ([], []) }
        let used = Array(timeline.buckets.prefix(timeline.used))
        let group = (used.count + sparkWidth - 1) / sparkWidth
        let depths = stride(from: 0, to: used.count, by: group).map { used[$0..<min($0 + group, used.count)].max() ?? 0 }
        return (depths, waits?.p99s(group: group, count: depths.count) ?? [])
    }

    /// The events around one request's lifecycle, indexed, with the positions of its chart's:
    /// from the held index, the trace file's index, or its runtime's stretch read back (as
    /// `sequence --request`); nil when the trace cannot be read again.
    func lifecycle(of request: Request) -> (index: TraceIndex, indices: [Int])? {
        var index = self.index
        if index == nil, let lifecycle, let events = try? lifecycle(request) {
            index = TraceIndex(events)
        } else if index == nil, let reread {
            let found = try? LifecycleWindow.find(dispatch: request.dispatch, read: reread)
            if let found, found.stretches[request.runtime] != nil {
                index = try? TraceIndex(LifecycleWindow.events(of: found, runtime: request.runtime, read: reread))
            }
        }
        guard let index else { return nil }
        return (index, index.requestLifecycle(runtime: request.runtime, dispatch: request.dispatch))
    }

    /// ``lifecycle(of:)`` of several requests: from a streamed input, two passes for them all
    /// (``LifecycleWindow/find(_:maxPasses:read:)``), not two each; and so through a trace file's
    /// index when it has more runtimes than are kept whole (``RuntimeLanes``; a request of one of 78,126
    /// interleaved runtimes read most of the file's chunks: a report's hundred diagrams took
    /// 340 s of a 10M-event trace). With fewer, a request's events lie together and the index
    /// reads just them.
    func lifecycles(of requests: [Request]) -> [(index: TraceIndex, indices: [Int])?] {
        guard index == nil, let reread, requests.count > 1, lifecycle == nil || runtimes > RuntimeLanes.maxWhole
        else { return requests.map { lifecycle(of: $0) } }
        let keys = requests.map { TraceIndex.Key(runtime: $0.runtime, id: $0.dispatch) }
        guard let found = try? LifecycleWindow.find(keys, read: reread),
            let events = try? LifecycleWindow.events(of: zip(found, keys).map { ($0, $1.runtime) }, read: reread)
        else { return requests.map { _ in nil } }
        return zip(requests, events).map { request, events in
            let index = TraceIndex(events)
            return (index, index.requestLifecycle(runtime: request.runtime, dispatch: request.dispatch))
        }
    }

    /// One moment of a task instance's life: what happened, and for a re-entry how long it then
    /// waited for the gate.
    struct TaskMoment: Equatable {
        var time: UInt64
        var what: String
        var waited: UInt64?
    }

    /// A task instance's life in time order: its spawn, the joins, its re-entries (each with its
    /// wait for the gate: what the task waited on once it had work for the runtime), its cancel
    /// or settle. Read from the lifecycle of the dispatch whose cycle spawned it (which holds the
    /// task to its end); nil when that is not in the trace or the trace cannot be read again.
    func life(of task: TaskReport.Row) -> [TaskMoment]? {
        guard task.spawnDispatch != 0 else { return nil }
        let spawner = Request(
            runtime: task.runtime, dispatch: task.spawnDispatch, label: "", style: "", outcome: "", start: task.start, total: 0)
        guard let (index, _) = lifecycle(of: spawner),
            let record = index.tasks[TraceIndex.Key(runtime: task.runtime, id: task.task)]
        else { return nil }
        let key = { (id: UInt64) in TraceIndex.Key(runtime: task.runtime, id: id) }
        // By each moment's event, in the trace's order (a settle and the re-entry it makes share
        // a time).
        var moments = [(record.spawn, TaskMoment(time: 0, what: "spawned in cycle #\(record.cycle) (\(task.spawnedBy))"))]
        moments += record.joins.map { ($0, TaskMoment(time: 0, what: "joined by dispatch #\(index.events[$0].dispatch)")) }
        for id in record.reentries {
            guard let dispatch = index.dispatches[key(id)] else { continue }
            let e = index.events[dispatch.event]
            let entered = dispatch.cycles.first.flatMap { index.cycles[key($0)] }.map { index.events[$0.enter].time }
            moments.append(
                (
                    dispatch.event,
                    TaskMoment(time: 0, what: "dispatch #\(id) \(e.codeName)(\(e.label))", waited: entered?.minus(e.time))
                ))
        }
        moments += record.cancels.map { ($0, TaskMoment(time: 0, what: "cancelled (\(index.events[$0].codeName))")) }
        moments += record.settles.map { i in
            let e = index.events[i]
            return (i, TaskMoment(time: 0, what: "settled: " + (e.label.isEmpty ? e.codeName : "\(e.codeName)(\(e.label))")))
        }
        return moments.sorted { $0.0 < $1.0 }.map { i, moment in
            var moment = moment
            moment.time = index.events[i].time
            return moment
        }
    }

    /// The sequence diagram of one request's lifecycle, at `width` columns.
    func diagram(of request: Request, options: RenderOptions) -> [String] {
        guard let (index, indices) = lifecycle(of: request) else { return ["(the trace could not be read again)"] }
        var lines: [String] = []
        SequenceDiagram(index: index, options: options, origin: start).render(indices, progress: { _ in }) { lines.append($0) }
        if let breakdown = index.latencyBreakdown(runtime: request.runtime, dispatch: request.dispatch) {
            lines.append("")
            lines += breakdown.render(options: options)
        }
        return lines
    }

    /// What a stream shows (``BrowserReading``), with the largest latency part of the slowest
    /// 10,000 resumed requests from a second pass: `read` hands over every event, in the same
    /// order, each time it is called; diagrams read the input again. `hosts` is asked once the
    /// first pass is done.
    init(
        reading read: @escaping ((TraceEvent) -> Void) throws -> Void, hosts: () -> [UInt32: String], maxRows: Int = 100_000
    ) throws {
        var reading = BrowserReading(maxRows: maxRows)
        try read { reading.consume($0) }
        let slowest: [RequestWindows.Request]
        (self, slowest) = reading.finish(hosts: hosts(), slowest: 10_000)
        reread = read
        try findDominants(of: slowest, read: read)
    }

    /// The data as ``BrowserReading`` found it: no index held, diagrams and largest parts read
    /// on demand.
    init(
        start: UInt64, events: UInt64, runtimes: Int, requests: [Request], tasks: [TaskReport.Row], gates: [Gate],
        taskWarnings: [AnalysisWarning] = []
    ) {
        index = nil
        reread = nil
        self.start = start
        self.events = events
        self.runtimes = runtimes
        lost = 0
        self.requests = requests
        self.tasks = tasks
        self.gates = gates
        warnings = Self.warnings(gates: gates, tasks: taskWarnings)
        runtimeWidth = Self.runtimeWidth(gates)
    }

    /// Fills in the largest part of `resumed` (of ``requests``) from one pass over the stream
    /// (``WindowedBreakdowns``), for a view that shows them all at once.
    mutating func findDominants(of resumed: [RequestWindows.Request], read: ((TraceEvent) -> Void) throws -> Void) throws {
        guard !resumed.isEmpty else { return }
        var breakdowns = WindowedBreakdowns(resumed)
        var found: [TraceIndex.Key: String] = [:]
        try read { e in
            breakdowns.consume(e)
            guard !breakdowns.breakdowns.isEmpty else { return }
            for (key, b) in breakdowns.take() where found[key] == nil { found[key] = Self.dominant(of: b) }
        }
        for i in requests.indices where !requests[i].waiting {
            if let part = found[TraceIndex.Key(runtime: requests[i].runtime, id: requests[i].dispatch)] {
                requests[i].dominant = part
            }
        }
    }

    /// A breakdown's largest part and its share of the total: "gate wait 62%" ("" for none).
    static func dominant(of b: LatencyBreakdown?) -> String {
        guard let b, let top = b.parts.max(by: { $0.nanos < $1.nanos }) else { return "" }
        let share = b.total == 0 ? 0 : Double(top.nanos) / Double(b.total)
        return "\(top.kind.name) \(Int((share * 100).rounded()))%"
    }

    /// Reads a request's chart (and so its largest part) from `index`, the index of the trace
    /// file at `path`, when it is asked for: the diagrams, and the largest part of each request
    /// a screen shows, remembered once found.
    mutating func readDetails(through index: TraceFileIndex, path: String) {
        let lifecycle = { (request: Request) throws -> [TraceEvent] in
            try IndexedRequest.events(
                of: request.dispatch, in: index, path: path, selection: Selection(key: request.runtime)
            ).events
        }
        self.lifecycle = lifecycle
        let found = Lock<[TraceIndex.Key: String]>([:])
        dominantPart = { request in
            let key = TraceIndex.Key(runtime: request.runtime, id: request.dispatch)
            if let part = found.withLock({ $0[key] }) { return part }
            let events = (try? lifecycle(request)) ?? []
            let part = Self.dominant(
                of: TraceIndex(events).latencyBreakdown(runtime: request.runtime, dispatch: request.dispatch))
            found.withLock { $0[key] = part }
            return part
        }
    }
}

/// One runtime's gate for the browser, from that runtime's events in order: its contention
/// report, its waits for the gate by when they ended, and the cycle it entered last.
struct GateBuilder {
    var report = ContentionReport()
    /// The waits for the gate by when they ended.
    var waits = WaitTimeline()
    /// Its latest cycle, which holds the gate still if it has not left.
    var latest: (cycle: UInt64, label: String, left: Bool)?

    mutating func consume(_ e: TraceEvent) {
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
    func gate(runtime key: RuntimeKey, host: String, together: Int = 0, preview: Bool = false) -> BrowserData.Gate {
        // Of labels whose longest holds are equal, the first by name: a table's order changes
        // from run to run.
        let longest = report.holdByLabel.max { ($0.value.max, $1.key) < ($1.value.max, $0.key) }
        let (depths, p99s) = BrowserData.timelines(report.depth, waits: preview ? nil : waits)
        return BrowserData.Gate(
            runtime: key, host: host, cycles: Int(report.holds.count),
            maxDepth: together > 0 ? report.maxDepth.values.max() ?? 0 : report.maxDepth[key] ?? 0,
            waitP99: report.waits.percentile(0.99), longestHold: report.holds.count == 0 ? 0 : report.holds.max,
            holder: longest?.key ?? "", holdingNow: together > 0 ? "" : latest.map { $0.left ? "" : $0.label } ?? "",
            depths: depths,
            waitP99s: p99s, warnings: preview ? [] : report.warnings,
            waitRanges: preview ? [] : report.waits.powerOfTwoRanges, holdRanges: preview ? [] : report.holds.powerOfTwoRanges,
            topHolders: preview ? [] : Self.top(report.holdByLabel),
            topActions: preview ? [] : Self.top(report.holdByEffect),
            longestWaits: preview ? [] : report.longestWaits,
            depthBuckets: preview ? [] : Array(report.depth.buckets.prefix(report.depth.used)),
            depthStart: report.depth.start ?? 0, depthWidth: report.depth.width, together: together)
    }

    /// The five that held the gate longest in all, longest first (ties by name).
    static func top(_ aggregates: [String: ContentionReport.Aggregate]) -> [(
        label: String, cycles: Int, total: UInt64, longest: UInt64
    )] {
        aggregates.sorted { ($0.value.total, $1.key) > ($1.value.total, $0.key) }.prefix(5).map {
            ($0.key, $0.value.count, $0.value.total, $0.value.max)
        }
    }
}

/// The waits for a gate by when they ended, in the buckets of its contention report's depth
/// timeline: per bucket, how many waits fell in each of ``LatencyHistogram``'s buckets (about
/// 3 % wide), merged pairwise when the timeline's are. Memory is bounded by the timeline's 48
/// buckets whatever the number of cycles (a list of every wait was 16 bytes a cycle: 230 MB at
/// 100M events); a p99 is exact to its histogram bucket.
struct WaitTimeline {
    private var width: UInt64 = 0
    private var buckets = [[Int: UInt64]](repeating: [:], count: DepthTimeline.bucketCount)

    /// Records a wait that ended at `time`, on `timeline` as it stands once that time is in it.
    mutating func record(time: UInt64, wait: UInt64, on timeline: DepthTimeline) {
        guard let start = timeline.start else { return }
        if width == 0 { width = timeline.width }
        while width < timeline.width {
            var merged = [[Int: UInt64]](repeating: [:], count: buckets.count)
            for i in buckets.indices { merged[i / 2].merge(buckets[i], uniquingKeysWith: +) }
            buckets = merged
            width *= 2
        }
        let i = time <= start ? 0 : Int(min(UInt64(buckets.count - 1), (time - start) / width))
        buckets[i][LatencyHistogram.index(wait), default: 0] += 1
    }

    /// The p99 of each of the first `count` groups of `group` buckets (0 for none): the lower
    /// bound of the histogram bucket that holds it.
    func p99s(group: Int, count: Int) -> [UInt64] {
        (0..<count).map { g in
            var counts: [Int: UInt64] = [:]
            for i in (g * group)..<min((g + 1) * group, buckets.count) { counts.merge(buckets[i], uniquingKeysWith: +) }
            let n = counts.values.reduce(0, +)
            guard n > 0 else { return 0 }
            // The sample at index ⌊0.99 n⌋ (0-based) of the sorted waits, as it was computed
            // from the waits themselves.
            let rank = min(n - 1, UInt64(Double(n) * 0.99)) + 1
            var seen: UInt64 = 0
            for (index, c) in counts.sorted(by: { $0.key < $1.key }) {
                seen += c
                if seen >= rank { return LatencyHistogram.lowerBound(index) }
            }
            return 0
        }
    }
}
