/// Writes Chrome Trace Event JSON (the object form; opens in Perfetto UI and chrome://tracing),
/// streaming.
///
/// Layout, for a trace of any number of processes and runtimes:
/// - each OS process is one Chrome process, named with its pid and host (a ring or JSON Lines
///   trace without pids is one process); its threads are its runtimes' tracks, grouped by runtime
///   and each named with it (`runtime 2 · compute gate`);
/// - a runtime's `compute gate` track holds its cycles as complete (`X`) events from enter to
///   leave, with actions nested inside them; a `queue depth` counter per runtime beside it;
/// - task instances run on a few reused `task lane` tracks (a lane is free again when its task
///   ends), so a trace of a million tasks makes as many lanes as tasks ran at once;
/// - awaited requests are complete slices from dispatch to resume on `request` tracks named by
///   style and label (`runtime 1 · request(load)`), reused likewise;
/// - each awaited request is one flow (`s`/`t`/`f`), forward in time: its dispatch → every cycle
///   that carried its waiter → those tasks (spawn, a join's moment on the task, replacement) → its
///   resume, on the caller's track (a task's lane for a request made from inside a task).
///
/// One time base: every time and duration is the trace's own timestamps (the recorder's clock, or
/// LTTng's); the runtime's measured durations (`nanos`) are used only where the trace has no
/// other end (an action, a cycle whose enter a wrapped ring lost).
///
/// Timestamps are microseconds from the first event; every event's args keep its absolute
/// CLOCK_MONOTONIC time (`time_ns`) and recording thread (`thread`), and `otherData` the origin.
/// Memory: what is in flight (cycles, tasks, requests) and one entry per track, never the whole
/// trace.
public struct ChromeTraceExporter: TraceConsumer {
    /// The tracks of one runtime.
    enum Lane: Hashable {
        case callers, gate
        case task(Int)
        /// A request track: the request's style and label, and its number among that name's.
        case request(String, Int)

        /// Where the track sorts within its runtime's group: callers, gate, tasks, requests.
        var order: Int {
            switch self {
            case .callers: return 0
            case .gate: return 1
            case .task(let n): return 100 + min(n, 99_899)
            case .request(_, let n): return 100_000 + min(n, 899_999)
            }
        }
    }

    struct TrackKey: Hashable {
        var runtime: RuntimeKey
        var lane: Lane
    }

    private let sink: ([UInt8]) -> Void
    private var out: [UInt8] = []
    private var origin: UInt64?
    private var last: UInt64 = 0
    private var first = true
    /// Chrome's pid of each OS process (pid 0: a trace that does not say), and its runtimes.
    private var chromePids: [UInt32: UInt64] = [:]
    private var runtimeLabels: [UInt32: [String]] = [:]
    /// Each runtime's place in the export (its tracks sort together).
    private var runtimeOrder: [RuntimeKey: Int] = [:]
    /// Chrome's tid of every track (unique across the whole export: Perfetto takes tids as the
    /// system's, so a tid seen under two pids would be one thread moving between processes).
    private var tids: [TrackKey: Int] = [:]
    private var dispatchLabels: [TraceIndex.Key: (label: String, style: String)] = [:]
    private var cycles: [TraceIndex.Key: (name: String, start: UInt64)] = [:]
    private var taskStarts: [TraceIndex.Key: (time: UInt64, title: String, lane: Int, event: TraceEvent)] = [:]
    /// Reused track numbers: task lanes per runtime, request tracks per runtime and name.
    private var taskLanes: [RuntimeKey: SlotPool] = [:]
    private var requestSlots: [TrackKey: SlotPool] = [:]
    /// The lane a live task runs on (kept until its re-entry, which is drawn from it).
    private var laneOfTask: [TraceIndex.Key: Int] = [:]
    /// Flows (one per awaited request) carried by an admission, a cycle or a task.
    private var dispatchFlows: [TraceIndex.Key: [UInt64]] = [:]
    private var cycleFlows: [TraceIndex.Key: [UInt64]] = [:]
    private var taskFlows: [TraceIndex.Key: [UInt64]] = [:]
    /// Awaited requests in flight: their flow, request track, name and caller's track.
    private var requests: [TraceIndex.Key: (flow: UInt64, lane: Lane, name: String, track: Lane, event: TraceEvent)] = [:]
    /// The dispatch each flow in flight is the request of.
    private var flowRequest: [UInt64: UInt64] = [:]
    private var nextFlow: UInt64 = 1
    /// The first tid: above every Chrome pid, so that no track is taken for a process's main thread.
    static let firstTid = 1_000_000

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

    /// Closes the slices still open (a request not resumed or a task still running when the trace
    /// ends, drawn to its last event and named so), names the processes (`hosts`: each pid's host,
    /// where the input says) and closes the JSON document; call once, after the last event.
    public mutating func finish(hosts: [UInt32: String] = [:]) {
        for (key, request) in requests.sorted(by: { $0.value.event.time < $1.value.event.time }) {
            complete(
                request.event, lane: request.lane, request.name + " (not resumed)", start: request.event.time,
                end: last, category: "request", extra: ",\"dispatch\":\(key.id)")
        }
        for (_, task) in taskStarts.sorted(by: { $0.value.time < $1.value.time }) {
            complete(
                task.event, lane: .task(task.lane), task.title + ": running at the end", start: task.time, end: last,
                category: "task")
        }
        for (process, pid) in chromePids.sorted(by: { $0.value < $1.value }) {
            var name = process == 0 ? "process" : "pid \(process)"
            if let host = hosts[process], !host.isEmpty { name += " on \(host)" }
            emit(#""name":"process_name","ph":"M","pid":\#(pid),"args":{"name":\#(json(name))}"#)
            emit(#""name":"process_sort_index","ph":"M","pid":\#(pid),"args":{"sort_index":\#(pid)}"#)
            if let labels = runtimeLabels[process] {
                emit(
                    #""name":"process_labels","ph":"M","pid":\#(pid),"args":{"labels":\#(json(labels.joined(separator: ", ")))}"#
                )
            }
        }
        out.append(contentsOf: "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"clock\":\"CLOCK_MONOTONIC\"".utf8)
        if let origin { out.append(contentsOf: ",\"origin_ns\":\"\(origin)\"".utf8) }
        out.append(contentsOf: "}}\n".utf8)
        sink(out)
        out.removeAll()
    }

    // The events are written as bytes straight into `out` (a slice, an instant or a flow step
    // for nearly every event of the trace): building each as an interpolated `String` cost
    // about 4 µs an event.

    /// Starts an event object.
    private mutating func begin() {
        if !first {
            out.append(0x2C)
            out.append(0x0A)
        }
        first = false
        out.append(0x7B)
    }

    /// Ends an event object, handing `out` to the sink past a megabyte.
    private mutating func end() {
        out.append(0x7D)
        if out.count >= 1 << 20 {
            sink(out)
            out.removeAll(keepingCapacity: true)
        }
    }

    private mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    private mutating func string(_ text: String) { JSONLines.appendString(text, to: &out) }

    /// `value` in decimal.
    private mutating func number(_ value: UInt64) {
        var digits: (UInt64, Int) = (value, 1)
        while digits.0 >= 10 {
            digits.0 /= 10
            digits.1 += 1
        }
        let start = out.count
        out.append(contentsOf: repeatElement(0x30, count: digits.1))
        var rest = value
        out.withUnsafeMutableBufferPointer { b in
            var i = start + digits.1 - 1
            repeat {
                b[i] = 0x30 + UInt8(rest % 10)
                rest /= 10
                i -= 1
            } while rest > 0
        }
    }

    /// `nanos` as microseconds with three decimals.
    private mutating func fixed3(_ nanos: UInt64) {
        number(nanos / 1000)
        let fraction = nanos % 1000
        out.append(0x2E)
        out.append(0x30 + UInt8(fraction / 100))
        out.append(0x30 + UInt8(fraction / 10 % 10))
        out.append(0x30 + UInt8(fraction % 10))
    }

    /// Microseconds from the first event; negative for an event stamped before it (the runtime
    /// writes a few out of order, and a wrapped ring can start with a cycle's leave).
    private mutating func micros(_ t: UInt64) {
        let origin = origin ?? t
        if t >= origin {
            fixed3(t - origin)
        } else {
            out.append(0x2D)
            fixed3(origin - t)
        }
    }

    /// An event object of `fields` (the metadata events, a few per track).
    private mutating func emit(_ fields: String) {
        begin()
        out.append(contentsOf: fields.utf8)
        end()
    }

    private func json(_ s: String) -> String {
        var bytes: [UInt8] = []
        JSONLines.appendString(s, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The args every event carries: the absolute time, the recording thread and the runtime,
    /// then `extra` (JSON members, each after a comma).
    private mutating func args(_ e: TraceEvent, _ extra: String = "", dispatch: UInt64? = nil) {
        raw(#""args":{"time_ns":""#)
        number(e.time)
        raw(#"","thread":"#)
        number(UInt64(e.thread))
        raw(#","runtime":"#)
        number(e.runtime)
        out.append(contentsOf: extra.utf8)
        if let dispatch {
            raw(#","dispatch":"#)
            number(dispatch)
        }
        raw("}")
    }

    /// The members every drawn event starts with: its name, category, phase, pid and tid.
    private mutating func head(_ name: String, _ category: StaticString, _ phase: StaticString, _ e: TraceEvent, tid: Int) {
        begin()
        raw(#""name":"#)
        string(name)
        raw(#","cat":""#)
        raw(category)
        raw(#"","ph":""#)
        raw(phase)
        // An instant's scope: its thread.
        if phase.withUTF8Buffer({ $0.first == UInt8(ascii: "i") }) { raw(#"","s":"t"#) }
        raw(#"","pid":"#)
        number(pid(e))
        raw(#","tid":"#)
        number(UInt64(tid))
    }

    private func pid(_ e: TraceEvent) -> UInt64 { chromePids[e.process] ?? 0 }

    /// The tid of `lane` of `e`'s runtime, named (and sorted with its runtime) when first used.
    private mutating func tid(_ e: TraceEvent, _ lane: Lane) -> Int {
        let key = TrackKey(runtime: e.runtimeKey, lane: lane)
        if let known = tids[key] { return known }
        let tid = Self.firstTid + tids.count
        tids[key] = tid
        let name: String
        switch lane {
        case .callers: name = "callers"
        case .gate: name = "compute gate"
        case .task(let n): name = "task lane \(n + 1)"
        case .request(let label, let n): name = n == 0 ? label : "\(label) \(n + 1)"
        }
        let order = (runtimeOrder[e.runtimeKey] ?? 0) * 1_000_000 + lane.order
        let pid = pid(e)
        emit(
            #""name":"thread_name","ph":"M","pid":\#(pid),"tid":\#(tid),"args":{"name":\#(json("runtime \(e.runtime) · " + name))}"#
        )
        emit(#""name":"thread_sort_index","ph":"M","pid":\#(pid),"tid":\#(tid),"args":{"sort_index":\#(order)}"#)
        return tid
    }

    /// A complete slice on `lane` from `start` to `end` (trace times; an end stamped before its
    /// start, as a few are, is drawn with no length).
    private mutating func complete(
        _ e: TraceEvent, lane: Lane, _ name: String, start: UInt64, end: UInt64, category: StaticString, extra: String = ""
    ) {
        let tid = tid(e, lane)
        head(name, category, "X", e, tid: tid)
        raw(#","ts":"#)
        micros(start)
        raw(#","dur":"#)
        fixed3(end.minus(start))
        raw(",")
        args(e, extra)
        self.end()
    }

    /// A moment on a track (a dispatch, a join, a resume): an instant, which cannot overlap
    /// anything, and which the flows passing there bind to.
    private mutating func instant(_ e: TraceEvent, _ lane: Lane, _ name: String, category: StaticString) {
        let tid = tid(e, lane)
        head(name, category, "i", e, tid: tid)
        raw(#","ts":"#)
        micros(e.time)
        raw(",")
        args(e)
        end()
    }

    private mutating func flow(_ phase: StaticString, _ id: UInt64, _ lane: Lane, _ e: TraceEvent) {
        // A request already resumed (by an error, or by a cycle while a task still carried its
        // waiter) has ended its flow: a task that carries it on draws nothing more of it.
        let starts = phase.withUTF8Buffer { $0.first == UInt8(ascii: "s") }
        guard starts || flowRequest[id] != nil else { return }
        let tid = tid(e, lane)
        begin()
        raw(#""name":"request","cat":"flow","ph":""#)
        raw(phase)
        raw(#"","id":"#)
        number(id)
        raw(#","pid":"#)
        number(pid(e))
        raw(#","tid":"#)
        number(UInt64(tid))
        raw(#","ts":"#)
        micros(e.time)
        raw(#","bp":"e","#)
        args(e, dispatch: flowRequest[id] ?? 0)
        end()
    }

    private mutating func counter(_ e: TraceEvent, depth: UInt32) {
        begin()
        raw(#""name":"runtime "#)
        number(e.runtime)
        raw(#" · queue depth","ph":"C","pid":"#)
        number(pid(e))
        raw(#","ts":"#)
        micros(e.time)
        raw(#","args":{"depth":"#)
        number(UInt64(depth))
        raw("}")
        end()
    }

    /// Takes the next event of the trace, in order.
    public mutating func consume(_ e: TraceEvent) {
        if origin == nil { origin = e.time }
        last = max(last, e.time)
        let runtime = e.runtimeKey
        let key = { (id: UInt64) in TraceIndex.Key(runtime: runtime, id: id) }
        // Chrome's pid is a small number per OS process (named at the end, when the input has
        // said which host each is on); every runtime's tracks are threads of it.
        if chromePids[e.process] == nil { chromePids[e.process] = UInt64(chromePids.count + 1) }
        if runtimeOrder[runtime] == nil { runtimeOrder[runtime] = runtimeOrder.count }
        // The track a dispatch comes from: the callers', or its origin task's lane.
        let originTrack = e.otherTask != 0 ? laneOfTask[key(e.otherTask)].map { Lane.task($0) } : nil
        switch e.kind {
        case .runtimeStart:
            runtimeLabels[e.process, default: []].append("runtime \(e.runtime): \(e.label) on \(e.label2)")
        case .runtimeStop:
            instant(e, .gate, "stop: \(e.codeName)", category: "lifecycle")
        case .dispatch:
            dispatchLabels[key(e.dispatch)] = (e.label, e.codeName)
            let from = originTrack ?? .callers
            instant(e, from, "\(e.codeName)(\(e.label)) dispatch #\(e.dispatch)", category: "dispatch")
            counter(e, depth: e.count)
            var carried: [UInt64] = []
            if e.isAwaitedDispatch {
                let id = nextFlow
                nextFlow += 1
                let name = "\(e.codeName)(\(e.label))"
                let slot = requestSlots[TrackKey(runtime: runtime, lane: .request(name, 0)), default: SlotPool()]
                    .take(at: e.time)
                requests[key(e.dispatch)] = (id, .request(name, slot), name, from, e)
                flowRequest[id] = e.dispatch
                flow("s", id, from, e)
                carried = [id]
            } else if e.otherTask != 0, e.isTaskReentry {
                // A task's re-entry carries its waiters into the new cycle.
                carried = taskFlows.removeValue(forKey: key(e.otherTask)) ?? []
                for id in carried { flow("t", id, from, e) }
            }
            if e.otherTask != 0, let lane = laneOfTask[key(e.otherTask)], taskStarts[key(e.otherTask)] == nil {
                // The task had ended; its lane was kept only for this re-entry.
                laneOfTask[key(e.otherTask)] = nil
                taskLanes[runtime, default: SlotPool()].give(lane, at: e.time)
            }
            if !carried.isEmpty { dispatchFlows[key(e.dispatch)] = carried }
        case .cycleEnter:
            let label = dispatchLabels.removeValue(forKey: key(e.dispatch))
            cycles[key(e.cycle)] = ("cycle #\(e.cycle) \(label.map { "\($0.style)(\($0.label))" } ?? "?")", e.time)
            counter(e, depth: e.count)
            if let carried = dispatchFlows.removeValue(forKey: key(e.dispatch)) {
                cycleFlows[key(e.cycle)] = carried
                // The cycle's slice is written at its leave; Perfetto binds by time, so the
                // flow finds it.
                for id in carried { flow("t", id, .gate, e) }
            }
        case .effect:
            if e.isActionEffect {
                // The action's own measured length, kept inside its cycle's slice.
                let start = max(e.time.minus(e.nanos), cycles[key(e.cycle)]?.start ?? 0)
                complete(
                    e, lane: .gate, e.effectKind == .action ? "action" : "async action", start: start, end: e.time,
                    category: "action")
            }
        case .cycleLeave:
            let cycle = cycles.removeValue(forKey: key(e.cycle))
            // A cycle whose enter the trace lost is drawn from the runtime's measured hold.
            let start = cycle?.start ?? e.time.minus(e.nanos)
            complete(
                e, lane: .gate, (cycle?.name ?? "cycle #\(e.cycle)") + " (\(e.codeName))", start: start, end: e.time,
                category: "cycle")
            cycleFlows[key(e.cycle)] = nil
        case .taskSpawn:
            let title = (e.label.isEmpty ? "task" : e.label) + " task #\(e.task)"
            let lane = taskLanes[runtime, default: SlotPool()].take(at: e.time)
            laneOfTask[key(e.task)] = lane
            taskStarts[key(e.task)] = (e.time, "\(title) \(e.codeName)", lane, e)
            // Waiters it was spawned with: the cycle's (a request's), and a replaced task's.
            var carried: [UInt64] = []
            if e.count > 0 {
                carried = cycleFlows[key(e.cycle)] ?? []
                if e.otherTask != 0 { carried += taskFlows.removeValue(forKey: key(e.otherTask)) ?? [] }
            }
            if !carried.isEmpty {
                taskFlows[key(e.task)] = carried
                for id in carried { flow("t", id, .task(lane), e) }
            }
        case .taskJoin:
            if let request = requests[key(e.dispatch)], let lane = laneOfTask[key(e.task)] {
                taskFlows[key(e.task), default: []].append(request.flow)
                // The join's own moment on the task, so the arrow runs forward from the joining
                // cycle to it (bound to the task's slice, it would point back to the task's start).
                instant(e, .task(lane), "join: dispatch #\(e.dispatch)", category: "join")
                flow("t", request.flow, .task(lane), e)
            }
        case .taskCancel, .taskSettle:
            if let start = taskStarts.removeValue(forKey: key(e.task)) {
                let outcome = e.kind == .taskCancel ? "cancelled (\(e.codeName))" : e.codeName
                complete(
                    e, lane: .task(start.lane), "\(start.title): \(outcome)", start: start.time, end: e.time,
                    category: "task")
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
                instant(e, request.track, "resume dispatch #\(e.dispatch): \(e.codeName)", category: "resume")
                flow("f", request.flow, request.track, e)
                flowRequest[request.flow] = nil
                complete(
                    request.event, lane: request.lane, request.name, start: request.event.time, end: e.time,
                    category: "request",
                    extra: ",\"dispatch\":\(e.dispatch),\"outcome\":\(json(e.codeName))")
                if case .request(let name, let slot) = request.lane {
                    requestSlots[TrackKey(runtime: runtime, lane: .request(name, 0)), default: SlotPool()]
                        .give(slot, at: e.time)
                }
            }
        case .dispatchRejected, .transduce, .eventDropped:
            break
        }
    }
}
