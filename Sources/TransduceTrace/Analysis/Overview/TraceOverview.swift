/// What the terminal UI and the HTML report show of one trace, computed once from the library's
/// analyses (the same models the batch commands print): the requests with their latency parts,
/// the tasks, and each runtime's gate. The one view model of both (the report's page is its
/// encoding, cut to what a browser draws). Made from a held trace (``init(trace:)``) or from a
/// stream (``init(reading:hosts:maxRows:)``, or ``OverviewReading`` frame by frame); a live view
/// builds one from each ``LiveWindow/trace`` and puts the totals of the whole stream in the
/// header's counts.
package struct TraceOverview {
    /// One awaited request: resumed, or still waiting at the trace's end (its latency so far).
    package struct Request {
        package var runtime: RuntimeKey
        package var dispatch: UInt64
        package var label: String
        package var style: String
        package var outcome: String
        package var start: UInt64
        package var total: UInt64
        /// The largest latency part, and its share of the total; nil until it is found (see
        /// ``TraceOverview/dominantPart``).
        package var dominant: String?
        /// Not resumed by the trace's end: `total` is how long it has waited so far.
        package var waiting = false
    }

    /// One runtime's gate, or the runtimes past ``RuntimeLanes/maxWhole`` together.
    package struct Gate {
        /// The runtime, or ``RuntimeLanes/others`` for the runtimes kept together.
        package var runtime: RuntimeKey
        /// Where the runtime's process ran, when the trace says ("" otherwise).
        package var host: String
        package var cycles: Int
        package var maxDepth: UInt32
        package var waitP99: UInt64
        package var longestHold: UInt64
        package var holder: String
        /// The cycle holding the gate at the trace's end (its event's label), "" when idle.
        package var holdingNow: String
        /// Queue depth over time, in equal time buckets (the deepest of each): the report's depth
        /// timeline, its neighbouring buckets merged to at most ``sparkWidth``.
        package var depths: [UInt32]
        /// The p99 of the gate waits that ended in each of the same buckets (0 for none).
        package var waitP99s: [UInt64]
        /// What the runtime's contention report warns of (long holds, a runaway or growing queue).
        package var warnings: [AnalysisWarning] = []
        /// How long admissions waited for the gate, and how long cycles held it: counts per
        /// power-of-two range of nanoseconds, smallest first (empty in a preview).
        package var waitRanges: [Range] = []
        package var holdRanges: [Range] = []
        /// The events whose cycles held the gate longest in all, at most five: label, cycles,
        /// total and longest hold.
        package var topHolders: [Holder] = []
        /// Likewise the actions (effects by kind and task) that held it longest in all.
        package var topActions: [Holder] = []
        /// The longest waits for the gate, longest first, with the cycles that held it meanwhile.
        package var longestWaits: [ContentionReport.Wait] = []
        /// The queue depth over time unmerged: the deepest of each bucket of `depthWidth` ns
        /// from `depthStart`.
        package var depthBuckets: [UInt32] = []
        package var depthStart: UInt64 = 0
        package var depthWidth: UInt64 = 0
        /// How many runtimes this row keeps together (the runtimes past
        /// ``RuntimeLanes/maxWhole``); 0 for one runtime's gate.
        package var together = 0

        /// The runtime's name, or how many runtimes the row keeps together ("7749 others").
        package var name: String { together > 0 ? "\(together) others" : runtime.name }
    }

    /// A count of waits for a gate or holds of it whose nanoseconds lie in `lower..<upper`.
    package struct Range: Codable, Equatable, Sendable {
        package var lower: UInt64
        package var upper: UInt64
        package var count: UInt64

        package init(lower: UInt64, upper: UInt64, count: UInt64) {
            (self.lower, self.upper, self.count) = (lower, upper, count)
        }
    }

    /// What held a gate (an event's label, or an action by kind and task): in how many cycles,
    /// for how long in all, and its longest hold.
    package struct Holder: Codable, Equatable, Sendable {
        package var label: String
        package var cycles: Int
        package var total: UInt64
        package var longest: UInt64

        package init(label: String, cycles: Int, total: UInt64, longest: UInt64) {
            (self.label, self.cycles, self.total, self.longest) = (label, cycles, total, longest)
        }
    }

    /// A warning of the warnings pane, with the runtime it is about (a growing queue names none:
    /// it is its gate's).
    package struct Warning {
        package var warning: AnalysisWarning
        package var runtime: RuntimeKey
    }

    /// Every warning: each gate's, then the tasks' (made once: the screen reads it on every draw).
    package let warnings: [Warning]

    /// The gates' warnings with their runtimes, then `tasks` (the task report's) with theirs.
    package static func warnings(gates: [Gate], tasks: [AnalysisWarning]) -> [Warning] {
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
    package let index: TraceIndex?
    package var reread: (((TraceEvent) -> Void) throws -> Void)?
    /// A request's chart's events read straight from where they are (a trace file's index), in
    /// place of two passes of `reread`.
    package var lifecycle: ((Request) throws -> [TraceEvent])?
    /// Finds the largest latency part of a request whose ``Request/dominant`` is nil, when a
    /// screen first shows it ("" when it cannot).
    package var dominantPart: ((Request) -> String)?
    package let start: UInt64
    /// The header's counts: the trace's, or a live stream's totals.
    package var events: UInt64
    package var runtimes: Int
    package var lost: UInt64
    /// Those still waiting first, then the resumed ones; each group slowest first (ties by
    /// runtime and dispatch). Sorted once here: the screen filters them on every draw.
    package var requests: [Request]
    package let tasks: [TaskReport.Row]
    package let gates: [Gate]

    package init(trace: Trace) {
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
        warnings = Self.warnings(gates: gates, tasks: taskReport.warnings)
    }

    /// The most buckets a gate's timelines have (a sparkline's characters).
    package static let sparkWidth = 16

    /// The depth timeline with its neighbouring buckets merged to at most ``sparkWidth``, and the
    /// p99 of the waits that ended in each merged bucket.
    package static func timelines(_ timeline: DepthTimeline, waits: WaitTimeline?) -> ([UInt32], [UInt64]) {
        guard timeline.start != nil, timeline.used > 0 else { return ([], []) }
        let used = Array(timeline.buckets.prefix(timeline.used))
        let group = (used.count + sparkWidth - 1) / sparkWidth
        let depths = stride(from: 0, to: used.count, by: group).map { used[$0..<min($0 + group, used.count)].max() ?? 0 }
        return (depths, waits?.p99s(group: group, count: depths.count) ?? [])
    }

    /// The events around one request's lifecycle, indexed, with the positions of its chart's:
    /// from the held index, the trace file's index, or its runtime's stretch read back (as
    /// `sequence --request`); nil when the trace cannot be read again.
    package func lifecycle(of request: Request) -> (index: TraceIndex, indices: [Int])? {
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
    package func lifecycles(of requests: [Request]) -> [(index: TraceIndex, indices: [Int])?] {
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
    package struct TaskMoment: Equatable {
        package var time: UInt64
        package var what: String
        package var waited: UInt64?
    }

    /// A task instance's life in time order: its spawn, the joins, its re-entries (each with its
    /// wait for the gate: what the task waited on once it had work for the runtime), its cancel
    /// or settle. Read from the lifecycle of the dispatch whose cycle spawned it (which holds the
    /// task to its end); nil when that is not in the trace or the trace cannot be read again.
    package func life(of task: TaskReport.Row) -> [TaskMoment]? {
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

    /// What a stream shows (``OverviewReading``), with the largest latency part of the slowest
    /// 10,000 resumed requests from a second pass: `read` hands over every event, in the same
    /// order, each time it is called; diagrams read the input again. `hosts` is asked once the
    /// first pass is done.
    package init(
        reading read: @escaping ((TraceEvent) -> Void) throws -> Void, hosts: () -> [UInt32: String], maxRows: Int = 100_000
    ) throws {
        var reading = OverviewReading(maxRows: maxRows)
        try read { reading.consume($0) }
        let slowest: [RequestWindows.Request]
        (self, slowest) = reading.finish(hosts: hosts(), slowest: 10_000)
        reread = read
        try findDominants(of: slowest, read: read)
    }

    /// The data as ``OverviewReading`` found it: no index held, diagrams and largest parts read
    /// on demand.
    package init(
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
    }

    /// Fills in the largest part of `resumed` (of ``requests``) from one pass over the stream
    /// (``WindowedBreakdowns``), for a view that shows them all at once.
    package mutating func findDominants(of resumed: [RequestWindows.Request], read: ((TraceEvent) -> Void) throws -> Void) throws
    {
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
    package static func dominant(of b: LatencyBreakdown?) -> String {
        guard let b, let top = b.parts.max(by: { $0.nanos < $1.nanos }) else { return "" }
        let share = b.total == 0 ? 0 : Double(top.nanos) / Double(b.total)
        return "\(top.kind.name) \(Int((share * 100).rounded()))%"
    }
}
