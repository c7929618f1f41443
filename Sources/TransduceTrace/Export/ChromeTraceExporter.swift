/// Writes Chrome Trace Event JSON (the object form; opens in Perfetto UI and chrome://tracing),
/// streaming.
///
/// - each runtime is a process; its `compute gate` track holds cycles as complete (`X`) events,
///   with actions nested inside them;
/// - task instances run on a few reused `task lane` tracks (a lane is free again when its task
///   ends), so a trace of a million tasks makes as many lanes as tasks ran at once;
/// - awaited requests are async (`b`/`e`, the same name on both) events from dispatch to resume,
///   on a few reused request slots likewise;
/// - each awaited request is one flow (`s`/`t`/`f`): its dispatch → every cycle that carried its
///   waiter (its own, and the re-entries of the tasks that held it) → those tasks (spawn, join,
///   replacement) → its resume, on the caller's track (a task's lane for a request made from
///   inside a task).
///
/// Timestamps are microseconds from the first event; every event's args keep its absolute
/// CLOCK_MONOTONIC time (`time_ns`) and recording thread (`thread`), and `otherData` the origin.
/// Memory: what is in flight (cycles, tasks, requests), never the whole trace.
public struct ChromeTraceExporter: TraceConsumer {
    private let sink: ([UInt8]) -> Void
    private var out: [UInt8] = []
    private var origin: UInt64?
    private var first = true
    private var chromePids: [UInt64: UInt64] = [:]
    private var namedTracks = Set<String>()
    private var dispatchLabels: [TraceIndex.Key: (label: String, style: String)] = [:]
    private var cycleLabels: [TraceIndex.Key: String] = [:]
    private var taskStarts: [TraceIndex.Key: (time: UInt64, title: String, lane: Int)] = [:]
    /// Reused track numbers: task lanes and request slots, per Chrome pid.
    private var taskLanes: [UInt64: SlotPool] = [:]
    private var requestSlots: [UInt64: SlotPool] = [:]
    /// The lane a live task runs on (kept until its re-entry, which is drawn from it).
    private var laneOfTask: [TraceIndex.Key: Int] = [:]
    /// Flows (one per awaited request) carried by an admission, a cycle or a task.
    private var dispatchFlows: [TraceIndex.Key: [UInt64]] = [:]
    private var cycleFlows: [TraceIndex.Key: [UInt64]] = [:]
    private var taskFlows: [TraceIndex.Key: [UInt64]] = [:]
    /// Awaited requests in flight: their flow, async slot, name and caller's track.
    private var requests: [TraceIndex.Key: (flow: UInt64, slot: Int, name: String, track: Int)] = [:]
    /// The dispatch each flow in flight is the request of.
    private var flowRequest: [UInt64: UInt64] = [:]
    private var nextFlow: UInt64 = 1
    static let callers = 1
    static let gate = 2
    static let firstLane = 1000

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

    /// An exporter that hands its JSON to `sink` in chunks as events come (`sink` is called on the
    /// consuming thread; the exporter keeps only open slices, free lanes and flows in memory).
    public init(sink: @escaping ([UInt8]) -> Void) {
        self.sink = sink
        out.append(contentsOf: "{\"traceEvents\":[\n".utf8)
    }

    /// Closes open slices and the JSON document; call once, after the last event.
    public mutating func finish() {
        out.append(contentsOf: "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"clock\":\"CLOCK_MONOTONIC\"".utf8)
        if let origin { out.append(contentsOf: ",\"origin_ns\":\"\(origin)\"".utf8) }
        out.append(contentsOf: "}}\n".utf8)
        sink(out)
        out.removeAll()
    }

    /// Microseconds from the first event; negative for an event stamped before it (the runtime
    /// writes a few out of order, and a wrapped ring can start with a cycle's leave).
    private func micros(_ t: UInt64) -> String {
        let origin = origin ?? t
        return t >= origin
            ? format(Double(t - origin) / 1000, decimals: 3) : "-" + format(Double(origin - t) / 1000, decimals: 3)
    }

    private mutating func emit(_ fields: String) {
        if !first { out.append(contentsOf: ",\n".utf8) }
        first = false
        out.append(contentsOf: "{".utf8)
        out.append(contentsOf: fields.utf8)
        out.append(contentsOf: "}".utf8)
        if out.count >= 1 << 20 {
            sink(out)
            out.removeAll(keepingCapacity: true)
        }
    }

    private func json(_ s: String) -> String {
        var bytes: [UInt8] = []
        JSONLines.appendString(s, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The args every event carries: the absolute time and the recording thread.
    private func args(_ e: TraceEvent, _ extra: String = "") -> String {
        #""args":{"time_ns":"\#(e.time)","thread":\#(e.thread)\#(extra)}"#
    }

    private mutating func track(_ pid: UInt64, _ tid: Int, _ name: String) {
        let key = "\(pid)/\(tid)"
        guard namedTracks.insert(key).inserted else { return }
        emit(#""name":"thread_name","ph":"M","pid":\#(pid),"tid":\#(tid),"args":{"name":\#(json(name))}"#)
        emit(#""name":"thread_sort_index","ph":"M","pid":\#(pid),"tid":\#(tid),"args":{"sort_index":\#(tid)}"#)
    }

    private mutating func slice(
        _ pid: UInt64, _ tid: Int, _ name: String, start: UInt64, duration: UInt64, category: String, _ e: TraceEvent
    ) {
        emit(
            #""name":\#(json(name)),"cat":"\#(category)","ph":"X","pid":\#(pid),"tid":\#(tid),"ts":\#(micros(start)),"dur":\#(format(Double(duration) / 1000, decimals: 3)),\#(args(e))"#
        )
    }

    /// A moment on a track (a dispatch, a resume): an instant, which cannot overlap anything.
    private mutating func instant(_ pid: UInt64, _ tid: Int, _ name: String, category: String, _ e: TraceEvent) {
        emit(
            #""name":\#(json(name)),"cat":"\#(category)","ph":"i","s":"t","pid":\#(pid),"tid":\#(tid),"ts":\#(micros(e.time)),\#(args(e))"#
        )
    }

    private mutating func flow(_ phase: String, _ id: UInt64, _ pid: UInt64, _ tid: Int, _ e: TraceEvent) {
        emit(
            #""name":"request","cat":"flow","ph":"\#(phase)","id":\#(id),"pid":\#(pid),"tid":\#(tid),"ts":\#(micros(e.time)),"bp":"e",\#(args(e, ",\"dispatch\":\(flowRequest[id] ?? 0)"))"#
        )
    }

    /// Takes the next event of the trace, in order.
    public mutating func consume(_ e: TraceEvent) {
        if origin == nil { origin = e.time }
        let runtime = e.runtimeKey
        let key = { (id: UInt64) in TraceIndex.Key(runtime: runtime, id: id) }
        // Chrome's pid is a small number per runtime (a runtime key can exceed what JSON numbers
        // hold exactly); the name says which runtime of which process it is.
        let pid: UInt64
        if let known = chromePids[runtime] {
            pid = known
        } else {
            pid = UInt64(chromePids.count + 1)
            chromePids[runtime] = pid
            emit(#""name":"process_name","ph":"M","pid":\#(pid),"args":{"name":\#(json("runtime " + RuntimeKey.name(runtime)))}"#)
            track(pid, Self.callers, "callers")
            track(pid, Self.gate, "compute gate")
        }
        // The track a dispatch comes from: the callers', or its origin task's lane.
        let originTrack = e.otherTask != 0 ? laneOfTask[key(e.otherTask)].map { Self.firstLane + $0 } : nil
        switch e.kind {
        case .runtimeStart:
            emit(#""name":"process_labels","ph":"M","pid":\#(pid),"args":{"labels":\#(json("\(e.label) on \(e.label2)"))}"#)
        case .runtimeStop:
            emit(
                #""name":\#(json("stop: \(e.codeName)")),"ph":"i","s":"p","pid":\#(pid),"tid":\#(Self.gate),"ts":\#(micros(e.time)),\#(args(e))"#
            )
        case .dispatch:
            dispatchLabels[key(e.dispatch)] = (e.label, e.codeName)
            let name = "\(e.codeName)(\(e.label)) dispatch #\(e.dispatch)"
            let from = originTrack ?? Self.callers
            instant(pid, from, name, category: "dispatch", e)
            var carried: [UInt64] = []
            if e.isAwaitedDispatch {
                let id = nextFlow
                nextFlow += 1
                let slot = requestSlots[pid, default: SlotPool()].take(at: e.time)
                requests[key(e.dispatch)] = (id, slot, name, from)
                flowRequest[id] = e.dispatch
                emit(
                    #""name":\#(json(name)),"cat":"request","ph":"b","id":\#(slot),"pid":\#(pid),"tid":\#(Self.callers),"ts":\#(micros(e.time)),\#(args(e, ",\"dispatch\":\(e.dispatch)"))"#
                )
                flow("s", id, pid, from, e)
                carried = [id]
            } else if e.otherTask != 0, e.isTaskReentry {
                // A task's re-entry carries its waiters into the new cycle.
                carried = taskFlows.removeValue(forKey: key(e.otherTask)) ?? []
                for id in carried { flow("t", id, pid, from, e) }
            }
            if e.otherTask != 0, let lane = laneOfTask[key(e.otherTask)], taskStarts[key(e.otherTask)] == nil {
                // The task had ended; its lane was kept only for this re-entry.
                laneOfTask[key(e.otherTask)] = nil
                taskLanes[pid, default: SlotPool()].give(lane, at: e.time)
            }
            if !carried.isEmpty { dispatchFlows[key(e.dispatch)] = carried }
        case .cycleEnter:
            let label = dispatchLabels.removeValue(forKey: key(e.dispatch))
            cycleLabels[key(e.cycle)] = "cycle #\(e.cycle) \(label.map { "\($0.style)(\($0.label))" } ?? "?")"
            if let carried = dispatchFlows.removeValue(forKey: key(e.dispatch)) {
                cycleFlows[key(e.cycle)] = carried
                for id in carried { flow("t", id, pid, Self.gate, e) }
            }
        case .effect:
            if e.isActionEffect {
                slice(
                    pid, Self.gate, e.effectKind == .action ? "action" : "async action", start: e.time.minus(e.nanos),
                    duration: e.nanos, category: "action", e)
            }
        case .cycleLeave:
            let name = cycleLabels.removeValue(forKey: key(e.cycle)) ?? "cycle #\(e.cycle)"
            slice(
                pid, Self.gate, name + " (\(e.codeName))", start: e.time.minus(e.nanos), duration: e.nanos, category: "cycle", e)
            cycleFlows[key(e.cycle)] = nil
        case .taskSpawn:
            let title = (e.label.isEmpty ? "task" : e.label) + " task #\(e.task)"
            let lane = taskLanes[pid, default: SlotPool()].take(at: e.time)
            laneOfTask[key(e.task)] = lane
            taskStarts[key(e.task)] = (e.time, "\(title) \(e.codeName)", lane)
            track(pid, Self.firstLane + lane, "task lane \(lane + 1)")
            // Waiters it was spawned with: the cycle's (a request's), and a replaced task's.
            var carried: [UInt64] = []
            if e.count > 0 {
                carried = cycleFlows[key(e.cycle)] ?? []
                if e.otherTask != 0 { carried += taskFlows.removeValue(forKey: key(e.otherTask)) ?? [] }
            }
            if !carried.isEmpty {
                taskFlows[key(e.task)] = carried
                for id in carried { flow("t", id, pid, Self.firstLane + lane, e) }
            }
        case .taskJoin:
            if let request = requests[key(e.dispatch)], let lane = laneOfTask[key(e.task)] {
                taskFlows[key(e.task), default: []].append(request.flow)
                flow("t", request.flow, pid, Self.firstLane + lane, e)
            }
        case .taskCancel, .taskSettle:
            if let start = taskStarts.removeValue(forKey: key(e.task)) {
                let outcome = e.kind == .taskCancel ? "cancelled (\(e.codeName))" : e.codeName
                slice(
                    pid, Self.firstLane + start.lane, "\(start.title): \(outcome)", start: start.time,
                    duration: e.time.minus(start.time), category: "task", e)
                // A task that re-enters keeps its lane for that dispatch (it follows at once,
                // under the same lock); any other gives it up now.
                let reenters = e.kind == .taskSettle && e.isReentrySettle
                if !reenters {
                    laneOfTask[key(e.task)] = nil
                    taskLanes[pid, default: SlotPool()].give(start.lane, at: e.time)
                }
            }
            // A cancelled task's waiters are resumed with an error; a replaced one's moved on.
            if e.kind == .taskCancel && e.cancelReason != .replaced { taskFlows[key(e.task)] = nil }
            if e.kind == .taskSettle && !e.isReentrySettle {
                taskFlows[key(e.task)] = nil
            }
        case .requestResume:
            if let request = requests.removeValue(forKey: key(e.dispatch)) {
                instant(pid, request.track, "resume dispatch #\(e.dispatch): \(e.codeName)", category: "resume", e)
                flow("f", request.flow, pid, request.track, e)
                flowRequest[request.flow] = nil
                emit(
                    #""name":\#(json(request.name)),"cat":"request","ph":"e","id":\#(request.slot),"pid":\#(pid),"tid":\#(Self.callers),"ts":\#(micros(e.time)),\#(args(e, ",\"outcome\":\(json(e.codeName))"))"#
                )
                requestSlots[pid, default: SlotPool()].give(request.slot, at: e.time)
            }
        case .dispatchRejected, .transduce, .eventDropped:
            break
        }
    }
}
