import TransduceTrace

/// What `trace-view report` shows, as the page embeds it (JSON in a `<script>` element its code
/// reads): the summary, each runtime's gate, the requests, the tasks, the cycles and the warnings,
/// cut to what a browser draws at once (``Limits``; ``aggregated`` says what was left out). Times
/// are nanoseconds from the trace's first event; runtimes are positions in ``runtimes``.
///
/// The page's encoding of the view model it shares with the terminal UI (the library's
/// ``TraceOverview``: the same analyses as the batch commands), with the cycles and totals of one
/// pass (``ReportCycles``, ``ReportTotals``), so the page shows what `tui`, `slow`, `tasks` and
/// `contention` print. What it adds is the page's: texts cut, times from the trace's start,
/// runtimes by position.
struct ReportModel: Codable, Equatable {
    /// How much a page draws: past these, the slowest requests, the longest-running tasks and the
    /// longest cycles are kept, and the rest of the cycles are drawn as their share of each stretch
    /// of time.
    struct Limits {
        var requests = 10_000
        var tasks = 10_000
        var cycles = 20_000
        /// Requests whose sequence diagrams are embedded (the first of ``ReportModel/requests``).
        var diagrams = 100
    }

    struct Summary: Codable, Equatable {
        /// The trace's file name ("standard input", "the ring buffer" for the others).
        var source: String
        var events: UInt64
        /// Events the recorder or tracer lost.
        var lost: UInt64
        /// The first event's CLOCK_MONOTONIC time, and the span to the last.
        var start: UInt64
        var span: UInt64
        var processes: [Process]
        /// In the whole trace, before any cut: awaited requests, task instances, cycles.
        var requests: Int
        var tasks: Int
        var cycles: Int
        /// How many runtimes the trace has, when more than have a gate card of their own (the
        /// last card then keeps the others together); nil when every runtime has its card.
        var runtimes: Int?
    }

    struct Process: Codable, Equatable {
        /// 0 for a trace without processes (one in-process recorder).
        var pid: UInt32
        var host: String
    }

    /// One runtime and its gate.
    struct Runtime: Codable, Equatable {
        var name: String
        var pid: UInt32
        var id: UInt64
        var host: String
        var cycles: Int
        var maxDepth: UInt32
        var waitP99: UInt64
        var longestHold: UInt64
        /// The event whose cycle held the gate longest, and the one holding it at the end.
        var holder: String
        var holdingNow: String
        /// Waits for the gate and holds of it: counts per power-of-two range of ns.
        var waits: [Range]
        var holds: [Range]
        /// Hold time by event label and by action kind, the largest five of each.
        var byEvent: [Holder]
        var byAction: [Holder]
        var longestWaits: [Wait]
        /// Queue depth over time: the deepest of each `depthWidth` ns from `depthStart`.
        var depthStart: UInt64
        var depthWidth: UInt64
        var depth: [UInt32]
        var warnings: [String]
    }

    /// A gate's waits or holds in a power-of-two range of ns, and what held it: the overview's.
    typealias Range = TraceOverview.Range
    typealias Holder = TraceOverview.Holder

    struct Wait: Codable, Equatable {
        var dispatch: UInt64
        var label: String
        var waited: UInt64
        /// The cycles that held the gate meanwhile, by event label, longest first.
        var heldBy: [String]
    }

    /// One awaited request, from dispatch to resume (or to the trace's end while waiting).
    struct Request: Codable, Equatable {
        var runtime: Int
        var dispatch: UInt64
        var label: String
        var style: String
        var outcome: String
        var start: UInt64
        var total: UInt64
        var waiting: Bool
        /// Its runtime's name when that has no gate card of its own (`runtime` is then the card
        /// of the others).
        var runtimeName: String?
        /// Its largest latency part and share ("gate wait 62%"), "" when not found.
        var dominant: String
        /// With an embedded diagram: its latency parts, and the points its arrows join on the
        /// timeline (dispatch → cycles → tasks → resume).
        var parts: [Part]?
        var path: [Point]?
    }

    struct Part: Codable, Equatable {
        /// The part's kind as every view names it (``LatencyBreakdown/Part/Kind/name``).
        var kind: String
        var start: UInt64
        var nanos: UInt64
    }

    /// Where a request's path touches the timeline: its own track (`task` 0 and not `gate`), its
    /// runtime's gate, or a task's track.
    struct Point: Codable, Equatable {
        var time: UInt64
        var gate: Bool
        var task: UInt64
    }

    struct Task: Codable, Equatable {
        var runtime: Int
        var task: UInt64
        var name: String
        var policy: String
        var spawnedBy: String
        var start: UInt64
        /// nil while running at the trace's end.
        var ran: UInt64?
        var outcome: String
        var replacedBy: UInt64
        var joinedBy: [UInt64]
        /// Its runtime's name when that has no gate card of its own (as ``Request/runtimeName``).
        var runtimeName: String?
    }

    /// One cycle on its runtime's gate track; `async` when it ran async actions or spawned tasks.
    struct Cycle: Codable, Equatable {
        var runtime: Int
        var cycle: UInt64
        var label: String
        var enter: UInt64
        var held: UInt64
        var async: Bool
    }

    /// The cycles not drawn one by one: per runtime, how many began in each `width` ns from
    /// `start`, and for how long in all they held the gate.
    struct Density: Codable, Equatable {
        var runtime: Int
        var start: UInt64
        var width: UInt64
        var counts: [UInt32]
        var busy: [UInt64]
    }

    struct Warning: Codable, Equatable {
        var check: String
        var runtime: Int
        var message: String
    }

    var summary: Summary
    var runtimes: [Runtime]
    var requests: [Request]
    var tasks: [Task]
    var cycles: [Cycle]
    var density: [Density]
    var warnings: [Warning]
    /// What was cut to fit, one sentence each; empty when everything is drawn.
    var aggregated: [String]
    /// The comparison with a baseline run (`--baseline`); nil without one.
    var baseline: ReportBaseline?
}

extension ReportModel {
    /// The most characters of a label, a name or a host the page holds (as the diagrams:
    /// ``SequenceExport/maxTextCharacters``, and at most four times as many bytes); longer ones
    /// end with `…`. With the row ``Limits``, this bounds the page: each request, task and cycle
    /// row holds a few such texts and numbers, so the model is at most about 4 KiB a row, and
    /// each of the ``Limits/diagrams`` diagrams holds texts cut the same way.
    static let maxText = SequenceExport.maxTextCharacters
    /// The most characters of a warning's message (a sentence that may quote a label).
    static let maxMessage = 2 * SequenceExport.maxTextCharacters

    private static func cut(_ text: String, to limit: Int = maxText) -> String { SequenceExport.cut(text, to: limit) }
    /// A holder with its label cut to ``maxText``.
    private static func cut(_ holder: Holder) -> Holder {
        var holder = holder
        holder.label = cut(holder.label)
        return holder
    }

    /// The model of `data` with the cycles of `cycles`, cut to `limits`, and the diagrams of its
    /// first ``Limits/diagrams`` requests (SVG documents, by position in ``requests``).
    static func make(
        data: TraceOverview, cycles: ReportCycles, totals: ReportTotals, source: String, hosts: [UInt32: String],
        limits: Limits = Limits()
    ) -> (model: ReportModel, diagrams: [Int: String]) {
        let start = data.start
        let cards = Dictionary(uniqueKeysWithValues: data.gates.enumerated().map { ($1.runtime, $0) })
        // A runtime with no card of its own is on the card of the others (its rows then say its
        // name).
        let position = { (key: RuntimeKey) -> Int? in cards[key] ?? cards[RuntimeLanes.others] }
        let ownName = { (key: RuntimeKey) -> String? in cards[key] == nil ? key.name : nil }
        let rel = { (t: UInt64) in t > start ? t - start : 0 }
        let runtimes = data.gates.map { g in
            Runtime(
                name: g.name, pid: g.together > 0 ? 0 : g.runtime.process, id: g.together > 0 ? 0 : g.runtime.runtime,
                host: cut(g.host), cycles: g.cycles,
                maxDepth: g.maxDepth, waitP99: g.waitP99, longestHold: g.longestHold, holder: cut(g.holder),
                holdingNow: cut(g.holdingNow), waits: g.waitRanges, holds: g.holdRanges,
                byEvent: g.topHolders.map(cut), byAction: g.topActions.map(cut),
                longestWaits: g.longestWaits.map { w in
                    Wait(dispatch: w.dispatch, label: cut(w.label), waited: w.waited, heldBy: w.heldBy.map { cut($0.label) })
                }, depthStart: rel(g.depthStart), depthWidth: g.depthWidth, depth: g.depthBuckets,
                warnings: g.warnings.map { cut($0.message, to: maxMessage) })
        }
        var aggregated: [String] = []
        let together = data.gates.last?.together ?? 0
        if together > 0 {
            aggregated.append(
                "runtimes: the first \(data.gates.count - 1) of \(data.runtimes) have a gate card and a timeline lane of "
                    + "their own; the other \(together) are drawn together on the last (one of them whole: --runtime ID "
                    + "--pid PID)")
        }
        let shownRequests = Array(data.requests.prefix(limits.requests))
        if totals.requests > shownRequests.count {
            aggregated.append(
                "requests: the \(shownRequests.count) slowest of \(totals.requests) are drawn and listed (the others are in "
                    + "trace-view slow and export --format csv --table requests)")
        }
        var diagrams: [Int: String] = [:]
        var requests: [Request] = []
        let lifecycles = data.lifecycles(of: Array(shownRequests.prefix(limits.diagrams)))
        for (i, r) in shownRequests.enumerated() {
            var request = Request(
                runtime: position(r.runtime) ?? 0, dispatch: r.dispatch, label: cut(r.label), style: r.style,
                outcome: cut(r.outcome),
                start: rel(r.start), total: r.total, waiting: r.waiting, runtimeName: ownName(r.runtime),
                dominant: cut(r.dominant ?? data.dominantPart?(r) ?? ""))
            if i < lifecycles.count, let (index, indices) = lifecycles[i] {
                diagrams[i] = SequenceExport.svg(index: index, indices: indices).dropFirst().joined(separator: "\n")
                request.parts = index.latencyBreakdown(runtime: r.runtime, dispatch: r.dispatch)?.parts.map {
                    Part(kind: $0.kind.name, start: rel($0.start), nanos: $0.nanos)
                }
                request.path = Self.path(of: r, index: index, indices: indices, relative: rel)
            }
            requests.append(request)
        }
        if shownRequests.count > limits.diagrams {
            aggregated.append(
                "diagrams: the first \(limits.diagrams) requests of the list have their sequence diagrams here (any other: "
                    + "trace-view export --format svg --request ID)")
        }
        // The longest-running tasks, in spawn order.
        var taskRows = data.tasks
        if taskRows.count > limits.tasks {
            let keep = Set(
                taskRows.indices.sorted { (taskRows[$0].ran ?? .max, $1) > (taskRows[$1].ran ?? .max, $0) }.prefix(limits.tasks))
            taskRows = taskRows.indices.filter(keep.contains).map { taskRows[$0] }
        }
        if totals.tasks > taskRows.count {
            aggregated.append(
                "tasks: the \(taskRows.count) longest-running of \(totals.tasks) instances are listed (all of them: trace-view tasks)"
            )
        }
        let tasks = taskRows.map { t in
            Task(
                runtime: position(t.runtime) ?? 0, task: t.task, name: cut(t.name), policy: t.policy, spawnedBy: cut(t.spawnedBy),
                start: rel(t.start), ran: t.ran, outcome: cut(t.outcome), replacedBy: t.replacedBy, joinedBy: t.joinedBy,
                runtimeName: ownName(t.runtime))
        }
        let (drawn, density) = cycles.timeline(limit: limits.cycles)
        if !density.isEmpty {
            aggregated.append(
                "cycles: the \(drawn.count) longest of \(cycles.count) are drawn one by one; the rest as the share of time "
                    + "they held the gate in each stretch of the timeline")
        }
        let warnings = data.warnings.map {
            Warning(
                check: $0.warning.check.rawValue, runtime: position($0.runtime) ?? 0,
                message: cut($0.warning.message, to: maxMessage))
        }
        let pids = Set(data.gates.filter { $0.together == 0 }.map(\.runtime.process)).union(hosts.keys).sorted()
        let summary = Summary(
            source: cut(source), events: data.events, lost: data.lost, start: start,
            span: cycles.end > start ? cycles.end - start : 0,
            processes: pids.map { Process(pid: $0, host: cut(hosts[$0] ?? "")) }, requests: totals.requests,
            tasks: totals.tasks, cycles: cycles.count, runtimes: together > 0 ? data.runtimes : nil)
        let model = ReportModel(
            summary: summary, runtimes: runtimes, requests: requests, tasks: tasks,
            cycles: drawn.map {
                Cycle(
                    runtime: position($0.runtime) ?? 0, cycle: $0.cycle, label: cut($0.label), enter: rel($0.enter),
                    held: $0.held,
                    async: $0.async)
            },
            density: density.map {
                Density(
                    runtime: position($0.runtime) ?? 0, start: rel($0.density.start), width: $0.density.width,
                    counts: $0.density.counts, busy: $0.density.busy)
            }, warnings: warnings, aggregated: aggregated)
        return (model, diagrams)
    }

    /// Where the request's chart touches the timeline, in time order: its dispatch, the cycles
    /// that ran it or its re-entries, the tasks they spawned or it joined, and its resume.
    static func path(
        of r: TraceOverview.Request, index: TraceIndex, indices: [Int], relative: (UInt64) -> UInt64
    ) -> [Point] {
        var points: [Point] = []
        for i in indices {
            let e = index.events[i]
            guard e.runtimeKey == r.runtime else { continue }
            switch e.kind {
            case .dispatch where e.dispatch == r.dispatch, .requestResume where e.dispatch == r.dispatch:
                points.append(Point(time: relative(e.time), gate: false, task: 0))
            case .cycleEnter: points.append(Point(time: relative(e.time), gate: true, task: 0))
            case .taskSpawn: points.append(Point(time: relative(e.time), gate: false, task: e.task))
            case .taskJoin where e.dispatch == r.dispatch: points.append(Point(time: relative(e.time), gate: false, task: e.task))
            default: break
            }
        }
        // A shared task spawned before the request joined it is on its path from the join.
        let dispatched = relative(r.start)
        return points.enumerated().filter { $0.element.time >= dispatched }
            .sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }
}
