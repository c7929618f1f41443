/// Where every event of a trace goes in a timeline export, apart from how any format writes it:
/// the tracks (a process per OS process, a runtime's callers, gate, task lanes and request
/// tracks), the slices and moments on them, the queue-depth counter, and the flows (one per
/// awaited request, forward in time: its dispatch → every cycle that carried its waiter → those
/// tasks → its resume). ``ChromeTraceExporter`` and ``PerfettoTraceExporter`` draw what it
/// hands their canvas, so the two formats show the same layout.
///
/// A value that takes events in trace order and hands each mark to the canvas as soon as it is
/// known: a slice when it ends (its start is in the past), a moment, a flow step and a counter
/// value at their event. Memory: what is in flight (cycles, tasks, requests, flows) and the free
/// lanes, never the whole trace.
///
/// The first ``RuntimeLanes/maxWhole`` runtimes the trace names have their tracks under their
/// process; unless made with `allRuntimes`, the runtimes after them are counted together, in a
/// process of its own, `other runtimes`: four counters (``Tally``, and their queues' depths
/// added up) in place of their slices, moments and flows. A trace of a hundred thousand runtimes
/// (a runtime per connection) made more tracks than a timeline UI lays out, and drawing them on
/// shared lanes still made as many as ran at once; so the tracks are bounded by the runtimes
/// kept whole, and one of the others is drawn whole by selecting it (`--runtime`, `--pid`).
struct ExportLayout {
    /// The tracks of one runtime.
    enum Lane: Hashable {
        case callers, gate
        /// A counter of the runtimes kept together.
        case tally(Tally)
        case task(Int)
        /// A request track: the request's style and label, and its number among that name's.
        case request(String, Int)

        /// Where the track sorts within its runtime's group: callers, gate, tasks, requests.
        var order: Int {
            switch self {
            case .callers: return 0
            case .gate: return 1
            case .tally(let tally): return 2 + tally.rawValue
            case .task(let n): return 100 + min(n, 99_899)
            case .request(_, let n): return 100_000 + min(n, 899_999)
            }
        }

        /// The track's name within its runtime.
        var name: String {
            switch self {
            case .callers: return "callers"
            case .gate: return "compute gate"
            case .tally(let tally): return tally.name
            case .task(let n): return "task lane \(n + 1)"
            case .request(let label, let n): return n == 0 ? label : "\(label) \(n + 1)"
            }
        }
    }

    /// What the runtimes kept together are counted by: how many of them are in it at a time.
    enum Tally: Int, CaseIterable {
        case cycles, requests, tasks

        /// The counter's name within `other runtimes`.
        var name: String {
            switch self {
            case .cycles: "cycles in progress"
            case .requests: "requests in flight"
            case .tasks: "tasks running"
            }
        }
    }

    /// The process key of the runtimes kept together (no OS process has it: a pid is at most
    /// 2^22 on Linux).
    static let othersProcess = UInt32.max

    /// The name of OS process `pid` in an export: `pid 4242 on web-1` (`process` when the trace
    /// does not say which).
    static func processName(_ pid: UInt32, hosts: [UInt32: String]) -> String {
        var name = pid == 0 ? "process" : "pid \(pid)"
        if let host = hosts[pid], !host.isEmpty { name += " on \(host)" }
        return name
    }

    struct TrackKey: Hashable {
        var runtime: RuntimeKey
        var lane: Lane
    }

    /// A track as a canvas needs it: which it is, and the place of its runtime in the export
    /// (a runtime's tracks sort together, runtimes in the order the trace first shows them).
    struct Track {
        var key: TrackKey
        /// The number of its OS process in the export, from 1, in the order the trace shows them.
        var process: Int
        var runtimeOrder: Int
        /// The track's full name: `runtime 2 · compute gate`.
        var name: String { runtimeName + " · " + key.lane.name }
        /// Its runtime's name: `runtime 2`, or `other runtimes` for those kept together.
        var runtimeName: String {
            key.runtime == RuntimeLanes.others ? "other runtimes" : "runtime \(key.runtime.runtime)"
        }
        /// Where it sorts among every track of its process.
        var order: Int { runtimeOrder * 1_000_000 + key.lane.order }
    }

    /// The category of a slice or moment: Chrome's `cat`, Perfetto's interned category.
    enum Category: Int, CaseIterable {
        case cycle, action, task, request, lifecycle, dispatch, join, resume

        /// Its name in both formats.
        var name: StaticString {
            switch self {
            case .cycle: "cycle"
            case .action: "action"
            case .task: "task"
            case .request: "request"
            case .lifecycle: "lifecycle"
            case .dispatch: "dispatch"
            case .join: "join"
            case .resume: "resume"
            }
        }
    }

    /// What a slice is.
    enum SliceKind {
        /// A cycle: its number, the style and label of the dispatch it ran (nil when the trace
        /// lost its enter, or its dispatch), and how it left.
        case cycle(UInt64, style: String?, label: String?, enterSeen: Bool, outcome: String)
        case action(async: Bool)
        /// A task instance: its number, label and kind (`switchToLatest`…), and how it ended
        /// (nil: running when the trace ends; `cancelled` when cancelled, the reason in `outcome`).
        case task(UInt64, label: String, kind: String, cancelled: Bool, outcome: String?)
        /// An awaited request, from dispatch to resume: its dispatch, `style(label)`, how it was
        /// resumed (nil: not resumed when the trace ends), and the trace id of the caller's
        /// context when its dispatch recorded one.
        case request(UInt64, name: String, outcome: String?, traceID: String?)

        var category: Category {
            switch self {
            case .cycle: .cycle
            case .action: .action
            case .task: .task
            case .request: .request
            }
        }
    }

    /// A slice, handed over when it ends: `start`…`end` in trace times (an end stamped before
    /// its start, as a few are, is to be drawn with no length); `event` is the event that ended
    /// it (the dispatch, for a request), whose time, thread and runtime the args show.
    struct Slice {
        var track: Track
        var kind: SliceKind
        var start: UInt64
        var end: UInt64
        var event: TraceEvent
    }

    /// What a moment is.
    enum MomentKind {
        case stop(String)
        case dispatch(UInt64, name: String)
        /// A join: the dispatch whose waiter joined a running task.
        case join(UInt64)
        case resume(UInt64, outcome: String)

        var category: Category {
            switch self {
            case .stop: .lifecycle
            case .dispatch: .dispatch
            case .join: .join
            case .resume: .resume
            }
        }
    }

    /// A moment on a track at its event's time (a dispatch, a join, a resume): it cannot overlap
    /// anything, and the flows passing there bind to it.
    struct Moment {
        var track: Track
        var kind: MomentKind
        var event: TraceEvent
    }

    enum FlowPhase { case start, step, end }

    /// One step of a request's flow, on `track` at `event`'s time: the first is its dispatch,
    /// the last its resume. `dispatch` is the request's.
    struct FlowStep {
        var phase: FlowPhase
        var id: UInt64
        var dispatch: UInt64
        var track: Track
        var event: TraceEvent
    }

    /// What a layout draws on: a format's writer.
    protocol Canvas {
        mutating func slice(_ slice: Slice)
        mutating func moment(_ moment: Moment)
        mutating func flow(_ step: FlowStep)
        /// The queue depth of `event`'s runtime's gate from `event` on; `track` is the gate's.
        mutating func counter(_ event: TraceEvent, depth: UInt32, gate track: Track)
        /// How many of the runtimes kept together are in `track`'s ``Tally`` from `event` on.
        mutating func tally(_ event: TraceEvent, count: Int, track: Track)
    }

    /// Every runtime with tracks of its own, when true; else the first ``RuntimeLanes/maxWhole``.
    let allRuntimes: Bool
    private var lanes = RuntimeLanes()
    /// The last event's runtime and the runtime its tracks are under (itself, or
    /// ``RuntimeLanes/others``).
    private var lastRuntime: RuntimeKey?
    private var lastShown = RuntimeKey(rawValue: 0)
    /// The queues' depths of the runtimes kept together (each runtime's while not empty, and
    /// the sum: their counter), and what their tallies count (each in progress while it is).
    private var otherDepths: [RuntimeKey: UInt32] = [:]
    private var otherDepth: UInt64 = 0
    private var otherOpen: [Set<TraceIndex.Key>] = Tally.allCases.map { _ in [] }

    /// A layout; with `allRuntimes`, every runtime has tracks of its own however many there are.
    init(allRuntimes: Bool = false) { self.allRuntimes = allRuntimes }

    /// The first and last time seen.
    private(set) var origin: UInt64?
    private(set) var last: UInt64 = 0
    /// Each OS process in order of first appearance (its number from 1), and its runtimes'
    /// descriptions.
    private(set) var processNumbers: [UInt32: Int] = [:]
    private(set) var runtimeLabels: [UInt32: [String]] = [:]
    /// Each runtime's place in the export (its tracks sort together).
    private var runtimeOrder: [RuntimeKey: Int] = [:]
    private var dispatchLabels: [TraceIndex.Key: (label: String, style: String)] = [:]
    private var cycles: [TraceIndex.Key: (style: String?, label: String?, start: UInt64)] = [:]
    private var taskStarts: [TraceIndex.Key: (time: UInt64, label: String, kind: String, lane: Int, event: TraceEvent)] = [:]
    /// Reused track numbers: task lanes per runtime, request tracks per runtime and name.
    private var taskLanes: [RuntimeKey: SlotPool] = [:]
    private var requestSlots: [TrackKey: SlotPool] = [:]
    /// The lane a live task runs on (kept until its re-entry, which is drawn from it).
    private var laneOfTask: [TraceIndex.Key: Int] = [:]
    /// Flows (one per awaited request) carried by an admission, a cycle or a task.
    private var dispatchFlows: [TraceIndex.Key: [UInt64]] = [:]
    private var cycleFlows: [TraceIndex.Key: [UInt64]] = [:]
    private var taskFlows: [TraceIndex.Key: [UInt64]] = [:]
    /// Awaited requests in flight: their flow, request track, name, caller's track, dispatch and
    /// the trace id of the caller's context.
    private var requests:
        [TraceIndex.Key: (flow: UInt64, lane: Lane, name: String, track: Lane, event: TraceEvent, traceID: String?)] = [:]
    /// The trace ids of contexts recorded for dispatches not seen yet (a context comes first).
    private var contexts: [TraceIndex.Key: String] = [:]
    /// The dispatch each flow in flight is the request of.
    private var flowRequest: [UInt64: UInt64] = [:]
    private var nextFlow: UInt64 = 1

    /// Track numbers, reused: the lowest one free since at or before the time asked for. (The
    /// time matters: the runtime stamps a few events out of order, and Perfetto, which sorts by
    /// time, would see a slice begin on a track before the previous one there ended.)
    struct SlotPool {
        private var freedAt: [Int: UInt64] = [:]
        private var next = 0
        mutating func take(at time: UInt64) -> Int {
            if let slot = freedAt.lazy.filter({ $0.value <= time }).map(\.key).min() {
                freedAt[slot] = nil
                return slot
            }
            defer { next += 1 }
            return next
        }
        mutating func give(_ slot: Int, at time: UInt64) { freedAt[slot] = time }
    }

    /// The runtime `key`'s tracks are under: itself, or ``RuntimeLanes/others``.
    private func shown(_ key: RuntimeKey) -> RuntimeKey {
        if key == lastRuntime { return lastShown }
        return allRuntimes ? key : lanes.keptKey(key)
    }

    private func track(_ e: TraceEvent, _ lane: Lane) -> Track {
        let runtime = shown(e.runtimeKey)
        let process = runtime == RuntimeLanes.others ? Self.othersProcess : e.process
        return Track(
            key: TrackKey(runtime: runtime, lane: lane), process: processNumbers[process] ?? 0,
            runtimeOrder: runtimeOrder[runtime] ?? 0)
    }

    /// Each process of the export in order (its number from 1): its name, what its description
    /// lists (its runtimes), and the OS pid it stands for (nil for the runtimes kept together).
    func processes(hosts: [UInt32: String]) -> [(number: Int, pid: UInt32?, name: String, labels: [String])] {
        processNumbers.sorted { $0.value < $1.value }.map { process, number in
            guard process == Self.othersProcess else {
                return (number, process, Self.processName(process, hosts: hosts), runtimeLabels[process] ?? [])
            }
            let n = lanes.otherCount
            return (
                number, nil, "other runtimes (\(n))",
                [
                    "\(n) runtimes past the first \(RuntimeLanes.maxWhole), counted together (each drawn: "
                        + "export --all-runtimes; one: --runtime ID --pid PID)"
                ]
            )
        }
    }

    /// Takes the next event of the trace, in order, handing what it completes to `canvas`.
    mutating func consume<C: Canvas>(_ e: TraceEvent, on canvas: inout C) {
        if origin == nil { origin = e.time }
        last = max(last, e.time)
        let runtime = e.runtimeKey
        let key = { (id: UInt64) in TraceIndex.Key(runtime: runtime, id: id) }
        if runtime != lastRuntime {
            lastRuntime = runtime
            lastShown = allRuntimes || lanes.lane(runtime) < RuntimeLanes.maxWhole ? runtime : RuntimeLanes.others
        }
        // The runtimes kept together are counted, in a process of their own.
        let shown = lastShown
        let together = shown == RuntimeLanes.others
        let process = together ? Self.othersProcess : e.process
        if processNumbers[process] == nil { processNumbers[process] = processNumbers.count + 1 }
        if runtimeOrder[shown] == nil { runtimeOrder[shown] = runtimeOrder.count }
        if together { return count(e, on: &canvas) }
        // The track a dispatch comes from: the callers', or its origin task's lane.
        let originTrack = e.otherTask != 0 ? laneOfTask[key(e.otherTask)].map { Lane.task($0) } : nil
        func flow(_ phase: FlowPhase, _ id: UInt64, _ lane: Lane) {
            // A request already resumed (by an error, or by a cycle while a task still carried
            // its waiter) has ended its flow: a task that carries it on draws nothing more of it.
            guard phase == .start || flowRequest[id] != nil else { return }
            canvas.flow(FlowStep(phase: phase, id: id, dispatch: flowRequest[id] ?? 0, track: track(e, lane), event: e))
        }
        switch e.kind {
        case .runtimeStart:
            runtimeLabels[e.process, default: []].append("runtime \(e.runtime): \(e.label) on \(e.label2)")
        case .runtimeStop:
            canvas.moment(Moment(track: track(e, .gate), kind: .stop(e.codeName), event: e))
        case .dispatch:
            let traceID = contexts.removeValue(forKey: key(e.dispatch))
            dispatchLabels[key(e.dispatch)] = (e.label, e.codeName)
            let from = originTrack ?? .callers
            let name = "\(e.codeName)(\(e.label))"
            canvas.moment(Moment(track: track(e, from), kind: .dispatch(e.dispatch, name: name), event: e))
            canvas.counter(e, depth: e.count, gate: track(e, .gate))
            var carried: [UInt64] = []
            if e.isAwaitedDispatch {
                let id = nextFlow
                nextFlow += 1
                let slot = requestSlots[TrackKey(runtime: runtime, lane: .request(name, 0)), default: SlotPool()]
                    .take(at: e.time)
                requests[key(e.dispatch)] = (id, .request(name, slot), name, from, e, traceID)
                flowRequest[id] = e.dispatch
                flow(.start, id, from)
                carried = [id]
            } else if e.otherTask != 0, e.isTaskReentry {
                // A task's re-entry carries its waiters into the new cycle.
                carried = taskFlows.removeValue(forKey: key(e.otherTask)) ?? []
                for id in carried { flow(.step, id, from) }
            }
            if e.otherTask != 0, let lane = laneOfTask[key(e.otherTask)], taskStarts[key(e.otherTask)] == nil {
                // The task had ended; its lane was kept only for this re-entry.
                laneOfTask[key(e.otherTask)] = nil
                taskLanes[runtime, default: SlotPool()].give(lane, at: e.time)
            }
            if !carried.isEmpty { dispatchFlows[key(e.dispatch)] = carried }
        case .cycleEnter:
            let label = dispatchLabels.removeValue(forKey: key(e.dispatch))
            cycles[key(e.cycle)] = (label?.style, label?.label, e.time)
            canvas.counter(e, depth: e.count, gate: track(e, .gate))
            if let carried = dispatchFlows.removeValue(forKey: key(e.dispatch)) {
                cycleFlows[key(e.cycle)] = carried
                // The cycle's slice is drawn at its leave; a timeline binds a flow by time, so
                // the flow finds it.
                for id in carried { flow(.step, id, .gate) }
            }
        case .effect:
            if e.isActionEffect {
                // The action's own measured length, kept inside its cycle's slice.
                let start = max(e.time.minus(e.nanos), cycles[key(e.cycle)]?.start ?? 0)
                canvas.slice(
                    Slice(
                        track: track(e, .gate), kind: .action(async: e.effectKind != .action), start: start, end: e.time,
                        event: e))
            }
        case .cycleLeave:
            let cycle = cycles.removeValue(forKey: key(e.cycle))
            // A cycle whose enter the trace lost is drawn from the runtime's measured hold.
            let start = cycle?.start ?? e.time.minus(e.nanos)
            let kind = SliceKind.cycle(
                e.cycle, style: cycle?.style, label: cycle?.label, enterSeen: cycle != nil, outcome: e.codeName)
            canvas.slice(Slice(track: track(e, .gate), kind: kind, start: start, end: e.time, event: e))
            cycleFlows[key(e.cycle)] = nil
        case .taskSpawn:
            let lane = taskLanes[runtime, default: SlotPool()].take(at: e.time)
            laneOfTask[key(e.task)] = lane
            taskStarts[key(e.task)] = (e.time, e.label, e.codeName, lane, e)
            // Waiters it was spawned with: the cycle's (a request's), and a replaced task's.
            var carried: [UInt64] = []
            if e.count > 0 {
                carried = cycleFlows[key(e.cycle)] ?? []
                if e.otherTask != 0 { carried += taskFlows.removeValue(forKey: key(e.otherTask)) ?? [] }
            }
            if !carried.isEmpty {
                taskFlows[key(e.task)] = carried
                for id in carried { flow(.step, id, .task(lane)) }
            }
        case .taskJoin:
            if let request = requests[key(e.dispatch)], let lane = laneOfTask[key(e.task)] {
                taskFlows[key(e.task), default: []].append(request.flow)
                // The join's own moment on the task, so the arrow runs forward from the joining
                // cycle to it (bound to the task's slice, it would point back to the task's start).
                canvas.moment(Moment(track: track(e, .task(lane)), kind: .join(e.dispatch), event: e))
                flow(.step, request.flow, .task(lane))
            }
        case .taskCancel, .taskSettle:
            if let start = taskStarts.removeValue(forKey: key(e.task)) {
                let kind = SliceKind.task(
                    e.task, label: start.label, kind: start.kind, cancelled: e.kind == .taskCancel, outcome: e.codeName)
                canvas.slice(Slice(track: track(e, .task(start.lane)), kind: kind, start: start.time, end: e.time, event: e))
                // A task that re-enters keeps its lane for that dispatch (it follows at once,
                // under the same lock); any other gives it up now.
                let reenters = e.kind == .taskSettle && e.isReentrySettle
                if !reenters {
                    laneOfTask[key(e.task)] = nil
                    taskLanes[runtime, default: SlotPool()].give(start.lane, at: e.time)
                }
            }
            // A cancelled task's waiters are resumed with an error; a replaced one's moved on.
            if e.kind == .taskCancel && e.cancelReason != .replaced { taskFlows[key(e.task)] = nil }
            if e.kind == .taskSettle && !e.isReentrySettle {
                taskFlows[key(e.task)] = nil
            }
        case .requestResume:
            if let request = requests.removeValue(forKey: key(e.dispatch)) {
                canvas.moment(
                    Moment(track: track(e, request.track), kind: .resume(e.dispatch, outcome: e.codeName), event: e))
                flow(.end, request.flow, request.track)
                flowRequest[request.flow] = nil
                canvas.slice(
                    Slice(
                        track: track(request.event, request.lane),
                        kind: .request(e.dispatch, name: request.name, outcome: e.codeName, traceID: request.traceID),
                        start: request.event.time,
                        end: e.time, event: request.event))
                if case .request(let name, let slot) = request.lane {
                    requestSlots[TrackKey(runtime: runtime, lane: .request(name, 0)), default: SlotPool()]
                        .give(slot, at: e.time)
                }
            }
        case .traceContext:
            if let context = e.traceContext { contexts[key(e.dispatch)] = context.traceID }
        case .dispatchRejected:
            contexts[key(e.dispatch)] = nil
        case .transduce, .eventDropped:
            break
        }
    }

    /// Counts an event of a runtime kept together: its queue's depth into the sum of theirs, its
    /// cycle, awaited request or task into the tallies while it is in progress. Memory follows
    /// what is queued or in progress at once, not the runtimes.
    private mutating func count<C: Canvas>(_ e: TraceEvent, on canvas: inout C) {
        let key = { (id: UInt64) in TraceIndex.Key(runtime: e.runtimeKey, id: id) }
        func change(_ tally: Tally, _ id: UInt64, starts: Bool) {
            let changed =
                starts ? otherOpen[tally.rawValue].insert(key(id)).inserted : otherOpen[tally.rawValue].remove(key(id)) != nil
            if changed { canvas.tally(e, count: otherOpen[tally.rawValue].count, track: track(e, .tally(tally))) }
        }
        switch e.kind {
        case .dispatch, .cycleEnter:
            let runtime = e.runtimeKey
            otherDepth = otherDepth - UInt64(otherDepths[runtime] ?? 0) + UInt64(e.count)
            otherDepths[runtime] = e.count == 0 ? nil : e.count
            canvas.counter(e, depth: UInt32(clamping: otherDepth), gate: track(e, .gate))
            if e.kind == .cycleEnter { change(.cycles, e.cycle, starts: true) }
            if e.kind == .dispatch && e.isAwaitedDispatch { change(.requests, e.dispatch, starts: true) }
        case .cycleLeave: change(.cycles, e.cycle, starts: false)
        case .requestResume: change(.requests, e.dispatch, starts: false)
        case .taskSpawn: change(.tasks, e.task, starts: true)
        case .taskCancel, .taskSettle: change(.tasks, e.task, starts: false)
        default: break
        }
    }

    /// Draws what is still open when the trace ends, to its last event: requests not resumed and
    /// tasks still running, each in the order it began.
    mutating func finish<C: Canvas>(on canvas: inout C) {
        for (key, request) in requests.sorted(by: { $0.value.event.time < $1.value.event.time }) {
            let kind = SliceKind.request(key.id, name: request.name, outcome: nil, traceID: request.traceID)
            canvas.slice(
                Slice(
                    track: track(request.event, request.lane), kind: kind, start: request.event.time, end: last,
                    event: request.event))
        }
        for (key, task) in taskStarts.sorted(by: { $0.value.time < $1.value.time }) {
            let kind = SliceKind.task(key.id, label: task.label, kind: task.kind, cancelled: false, outcome: nil)
            canvas.slice(
                Slice(track: track(task.event, .task(task.lane)), kind: kind, start: task.time, end: last, event: task.event))
        }
        requests.removeAll()
        taskStarts.removeAll()
    }
}

/// A timeline export that takes a trace's events in order and writes as it goes, drawing
/// ``ExportLayout``'s marks: what `trace-view export` streams a trace into.
package protocol StreamingTimelineExport {
    mutating func consume(_ e: TraceEvent)
    mutating func finish(hosts: [UInt32: String])
}

extension ChromeTraceExporter: StreamingTimelineExport {}
extension PerfettoTraceExporter: StreamingTimelineExport {}
