/// Writes Chrome Trace Event JSON (opens in Perfetto UI and chrome://tracing), streaming.
///
/// - each runtime is a process; its `compute gate` track holds cycles as complete (`X`) events,
///   with actions nested inside them; each task instance has its own track from spawn to end;
/// - awaited requests are async (`b`/`e`) events from dispatch to resume;
/// - flow events (`s`/`t`/`f`) link each awaited dispatch → its cycles → the tasks holding its
///   waiter → its resume.
///
/// Timestamps are microseconds from the first event. Memory: in-flight cycles, tasks and requests.
public struct ChromeTraceExporter: TraceConsumer {
    private let sink: ([UInt8]) -> Void
    private var out: [UInt8] = []
    private var origin: UInt64?
    private var first = true
    private var chromePids: [UInt64: UInt64] = [:]
    private var namedTracks = Set<String>()
    private var dispatchLabels: [TraceIndex.Key: (label: String, style: String)] = [:]
    private var cycleLabels: [TraceIndex.Key: String] = [:]
    private var taskStarts: [TraceIndex.Key: (time: UInt64, title: String)] = [:]
    /// Flow id of the request whose waiter a cycle or task carries.
    private var cycleFlow: [TraceIndex.Key: UInt64] = [:]
    private var taskFlow: [TraceIndex.Key: UInt64] = [:]
    private var nextFlow: UInt64 = 1
    private var requestFlow: [TraceIndex.Key: UInt64] = [:]
    static let callers = 1
    static let gate = 2

    public init(sink: @escaping ([UInt8]) -> Void) {
        self.sink = sink
        out.append(contentsOf: "[\n".utf8)
    }

    public mutating func finish() {
        out.append(contentsOf: "\n]\n".utf8)
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

    /// The track of a task: ids from any trace map into a range Chrome's integer tids hold.
    private static func taskTrack(_ task: UInt64) -> Int { 1000 + Int(task % (1 << 40)) }

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

    private mutating func track(_ pid: UInt64, _ tid: Int, _ name: String) {
        let key = "\(pid)/\(tid)"
        guard namedTracks.insert(key).inserted else { return }
        emit(#""name":"thread_name","ph":"M","pid":\#(pid),"tid":\#(tid),"args":{"name":\#(json(name))}"#)
        emit(#""name":"thread_sort_index","ph":"M","pid":\#(pid),"tid":\#(tid),"args":{"sort_index":\#(tid)}"#)
    }

    private mutating func slice(_ pid: UInt64, _ tid: Int, _ name: String, start: UInt64, duration: UInt64, category: String) {
        emit(
            #""name":\#(json(name)),"cat":"\#(category)","ph":"X","pid":\#(pid),"tid":\#(tid),"ts":\#(micros(start)),"dur":\#(format(Double(duration) / 1000, decimals: 3))"#
        )
    }

    private mutating func flow(_ phase: String, _ id: UInt64, _ pid: UInt64, _ tid: Int, _ time: UInt64) {
        emit(
            #""name":"request","cat":"flow","ph":"\#(phase)","id":\#(id),"pid":\#(pid),"tid":\#(tid),"ts":\#(micros(time)),"bp":"e""#
        )
    }

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
        switch e.kind {
        case .runtimeStart:
            emit(#""name":"process_labels","ph":"M","pid":\#(pid),"args":{"labels":\#(json("\(e.label) on \(e.label2)"))}"#)
        case .runtimeStop:
            emit(
                #""name":\#(json("stop: \(e.codeName)")),"ph":"i","s":"p","pid":\#(pid),"tid":\#(Self.gate),"ts":\#(micros(e.time))"#
            )
        case .dispatch:
            dispatchLabels[key(e.dispatch)] = (e.label, e.codeName)
            let awaited = ["send", "request", "uniqueRequest"].contains(e.codeName)
            let name = "\(e.codeName)(\(e.label)) #\(e.dispatch)"
            if e.otherTask == 0 {
                slice(pid, Self.callers, name, start: e.time, duration: 1000, category: "dispatch")
            }
            if awaited {
                let id = nextFlow
                nextFlow += 1
                requestFlow[key(e.dispatch)] = id
                emit(
                    #""name":\#(json(name)),"cat":"request","ph":"b","id":\#(id),"pid":\#(pid),"tid":\#(Self.callers),"ts":\#(micros(e.time))"#
                )
                flow("s", id, pid, Self.callers, e.time)
            } else if let origin = taskFlow[key(e.otherTask)], e.otherTask != 0, e.codeName == "taskRequest" {
                // A task re-entry carries its waiters into the new cycle.
                requestFlow[key(e.dispatch)] = origin
            }
        case .cycleEnter:
            let label = dispatchLabels.removeValue(forKey: key(e.dispatch))
            cycleLabels[key(e.cycle)] = "cycle #\(e.cycle) \(label.map { "\($0.style)(\($0.label))" } ?? "?")"
            if let id = requestFlow[key(e.dispatch)] {
                cycleFlow[key(e.cycle)] = id
                flow("t", id, pid, Self.gate, e.time)
            }
        case .effect:
            if e.codeName == "action" || e.codeName == "asyncAction" {
                slice(
                    pid, Self.gate, e.codeName == "action" ? "action" : "async action", start: e.time.minus(e.nanos),
                    duration: e.nanos, category: "action")
            }
        case .cycleLeave:
            let name = cycleLabels.removeValue(forKey: key(e.cycle)) ?? "cycle #\(e.cycle)"
            slice(pid, Self.gate, name + " (\(e.codeName))", start: e.time.minus(e.nanos), duration: e.nanos, category: "cycle")
            cycleFlow[key(e.cycle)] = nil
        case .taskSpawn:
            let title = (e.label.isEmpty ? "task" : e.label) + "#\(e.task)"
            taskStarts[key(e.task)] = (e.time, "\(title) \(e.codeName)")
            track(pid, Self.taskTrack(e.task), "task \(title)")
            if let id = cycleFlow[key(e.cycle)], e.count > 0 {
                taskFlow[key(e.task)] = id
                flow("t", id, pid, Self.taskTrack(e.task), e.time)
            }
        case .taskJoin:
            if let id = requestFlow[key(e.dispatch)] {
                flow("t", id, pid, Self.taskTrack(e.task), e.time)
            }
        case .taskCancel, .taskSettle:
            if let start = taskStarts.removeValue(forKey: key(e.task)) {
                let outcome = e.kind == .taskCancel ? "cancelled (\(e.codeName))" : e.codeName
                slice(
                    pid, Self.taskTrack(e.task), "\(start.title): \(outcome)", start: start.time,
                    duration: max(e.time.minus(start.time), 1000), category: "task")
            }
            if e.kind == .taskSettle { taskFlow[key(e.task)] = nil }
        case .requestResume:
            if let id = requestFlow.removeValue(forKey: key(e.dispatch)) {
                slice(
                    pid, Self.callers, "resume #\(e.dispatch): \(e.codeName)", start: e.time, duration: 1000, category: "resume")
                flow("f", id, pid, Self.callers, e.time)
                emit(
                    #""name":"request #\#(e.dispatch)","cat":"request","ph":"e","id":\#(id),"pid":\#(pid),"tid":\#(Self.callers),"ts":\#(micros(e.time))"#
                )
            }
        case .dispatchRejected, .transduce, .eventDropped:
            break
        }
    }
}
