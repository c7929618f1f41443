/// Writes Perfetto's native trace format, streaming: `TracePacket`s of `TrackEvent`s in protobuf
/// (encoded by hand from Perfetto's published `.proto` field numbers), which the Perfetto UI and
/// trace processor load past the size where they give up on JSON.
///
/// The layout is ``ChromeTraceExporter``'s: a process per OS process (its OS pid; pid and host in
/// its name, its runtimes in its labels); the dispatches made from outside a runtime's tasks on
/// the thread that made them (a thread track with the OS tid: the vtid on LTTng input, the
/// recording thread's id in a ring dump); under the process a track per runtime holding that
/// runtime's tracks, in order — the compute gate with its cycles and their actions nested inside, a
/// `queue depth` counter, task lanes, request tracks; one flow per awaited request from its
/// dispatch through every cycle and task that carried it to its resume.
///
/// Compact on purpose (a 10M-event trace must stay loadable): one packet sequence whose names,
/// categories, argument names and texts are interned; times on a sequence clock whose zero is a
/// second before the first event (declared against `CLOCK_MONOTONIC` in a clock snapshot, so the
/// timeline shows the trace's own times); small track ids; the queue depth carried on the
/// dispatch or cycle packet of its moment. A slice's name says what it is and how it ended
/// (`cycle post(load) (handedOff)`, `load task switchToLatest: completed`, a request's
/// `post(load)`, its outcome an argument); its number is an argument (`cycle`, `task`,
/// `dispatch`).
///
/// Memory: what is in flight (cycles, tasks, requests), the free lanes, the actions of the cycle
/// in progress, flow steps waiting for the slice they bind to, and one entry per track and
/// distinct name.
public struct PerfettoTraceExporter: TraceConsumer {
    private var layout: ExportLayout
    private var writer: Writer

    /// An exporter that hands its bytes to `sink` in chunks of about a megabyte as events come
    /// (`sink` is called on the consuming thread). The first 64 runtimes the trace names have
    /// tracks of their own; the runtimes after them are counted together, in a process of their
    /// own (four counters: their queues' depths added up, cycles in progress, awaited requests
    /// in flight, tasks running) unless `allRuntimes`.
    public init(allRuntimes: Bool = false, sink: @escaping ([UInt8]) -> Void) {
        layout = ExportLayout(allRuntimes: allRuntimes)
        writer = Writer(sink: sink)
    }

    /// Takes the next event of the trace, in order.
    public mutating func consume(_ e: TraceEvent) {
        if !writer.started { writer.start(at: e.time) }
        layout.consume(e, on: &writer)
    }

    /// Closes the slices still open (a request not resumed or a task still running when the trace
    /// ends, drawn to its last event and said so in their `outcome`), names the processes
    /// (`hosts`: each pid's host, where the input says) and hands over the last bytes; call once,
    /// after the last event.
    public mutating func finish(hosts: [UInt32: String] = [:]) {
        layout.finish(on: &writer)
        writer.finish(processes: layout.processes(hosts: hosts))
    }

    /// The protobuf writer: draws the layout's marks as track events.
    struct Writer: ExportLayout.Canvas {
        private let sink: ([UInt8]) -> Void
        private var out = ProtobufBuffer()
        private(set) var started = false
        /// The zero of the sequence's clock, in the trace's time (a second before the first event,
        /// so that the few events stamped before it still have a time).
        private var base: UInt64 = 0
        private var nextUUID: UInt64 = 1
        private var processTracks: [Int: UInt64] = [:]
        /// Each calling thread's track (a thread descriptor with its OS pid and tid).
        private var threadTracks: [ThreadKey: UInt64] = [:]
        private struct ThreadKey: Hashable {
            var process: UInt32
            var thread: UInt32
        }
        private var runtimeTracks: [RuntimeKey: UInt64] = [:]
        private var tracks: [ExportLayout.TrackKey: UInt64] = [:]
        private var counterTracks: [RuntimeKey: UInt64] = [:]
        /// Interning: each distinct text's id, and the entries new in the packet being written.
        private var names: [String: UInt64] = [:]
        private var categories: [String: UInt64] = [:]
        /// Each category's interned id, by its raw value (0: not interned yet), so that an event
        /// finds it without hashing its name.
        private var categoryIIDs = [UInt64](repeating: 0, count: ExportLayout.Category.allCases.count)
        private var argumentNames: [String: UInt64] = [:]
        private var texts: [String: UInt64] = [:]
        private var interned = ProtobufBuffer()
        /// What a slice's begin or a moment carries besides itself: flows that pass there, and the
        /// queue depth at that moment (a counter value on another event's packet costs a few
        /// bytes; its own packet, about twenty).
        private struct Riders {
            var flows: [UInt64] = []
            var terminating: [UInt64] = []
            var counters: [(track: UInt64, value: UInt32)] = []
        }
        /// The last moment, held back so that the flow steps and the queue depth the layout hands
        /// over right after it (at its time) go into its packet.
        private var pendingMoment: (moment: ExportLayout.Moment, riders: Riders)?
        /// The queue depth at a cycle's enter, per gate, held for the cycle's begin.
        private var pendingDepths: [RuntimeKey: (time: UInt64, track: UInt64, value: UInt32)] = [:]
        /// Flow steps waiting for the slice that encloses them (a cycle's or a task's, drawn when
        /// it ends), per track.
        private var pendingFlows: [ExportLayout.TrackKey: [(id: UInt64, time: UInt64, terminates: Bool)]] = [:]
        /// The actions of the cycle in progress, per gate: written inside their cycle's slice,
        /// after its begin, so that Perfetto nests them even when they start at the same time.
        private var pendingActions: [ExportLayout.TrackKey: [ExportLayout.Slice]] = [:]

        /// Field numbers from Perfetto's protos (perfetto/trace/trace_packet.proto and the
        /// track_event protos).
        private enum Field {
            static let tracePacket: UInt64 = 1
            // TracePacket
            static let timestamp: UInt64 = 8
            static let sequenceID: UInt64 = 10
            static let trackEvent: UInt64 = 11
            static let internedData: UInt64 = 12
            static let sequenceFlags: UInt64 = 13
            static let clockSnapshot: UInt64 = 6
            static let defaults: UInt64 = 59
            static let trackDescriptor: UInt64 = 60
            // TrackEvent
            static let categoryIIDs: UInt64 = 3
            static let annotations: UInt64 = 4
            static let type: UInt64 = 9
            static let nameIID: UInt64 = 10
            static let trackUUID: UInt64 = 11
            static let counterValue: UInt64 = 30
            static let extraCounterUUIDs: UInt64 = 31
            static let extraCounterValues: UInt64 = 12
            static let flowIDs: UInt64 = 47
            static let terminatingFlowIDs: UInt64 = 48
            // InternedData
            static let eventCategories: UInt64 = 1
            static let eventNames: UInt64 = 2
            static let annotationNames: UInt64 = 3
            static let annotationTexts: UInt64 = 29
        }

        private enum EventType: UInt64 {
            case begin = 1
            case end = 2
            case instant = 3
            case counter = 4
        }

        /// The packet sequence's id, and its clock (64 and up are a sequence's own).
        private static let sequence: UInt64 = 1
        private static let clock: UInt64 = 64
        private static let monotonic: UInt64 = 3

        init(sink: @escaping ([UInt8]) -> Void) {
            self.sink = sink
        }

        /// Writes the sequence's first packet: fresh incremental state, the clock (its zero a
        /// second before `time`, the first event's) and the default clock of every packet after.
        mutating func start(at time: UInt64) {
            started = true
            base = time.minus(1_000_000_000)
            let packet = out.begin(Field.tracePacket)
            out.uint(Field.sequenceID, Self.sequence)
            out.uint(Field.sequenceFlags, 1)  // SEQ_INCREMENTAL_STATE_CLEARED
            let snapshot = out.begin(Field.clockSnapshot)
            let ours = out.begin(1)
            out.uint(1, Self.clock)
            out.uint(2, 0)
            out.end(ours)
            let monotonic = out.begin(1)
            out.uint(1, Self.monotonic)
            out.uint(2, base)
            out.end(monotonic)
            out.uint(2, Self.monotonic)  // primary_trace_clock
            out.end(snapshot)
            let defaults = out.begin(Field.defaults)
            out.uint(58, Self.clock)  // timestamp_clock_id
            out.end(defaults)
            out.end(packet)
        }

        // MARK: Tracks

        /// A track descriptor packet: `body` writes its fields after its uuid.
        private mutating func describe(_ uuid: UInt64, _ body: (inout ProtobufBuffer) -> Void) {
            let packet = out.begin(Field.tracePacket)
            out.uint(Field.sequenceID, Self.sequence)
            let descriptor = out.begin(Field.trackDescriptor)
            out.uint(1, uuid)
            body(&out)
            out.end(descriptor)
            out.end(packet)
        }

        private mutating func newUUID() -> UInt64 {
            defer { nextUUID += 1 }
            return nextUUID
        }

        /// The process's track: described at the end, when the input has said which host the
        /// process is on (Perfetto keeps a process's first name, and reads every descriptor
        /// before it lays out the tracks).
        private mutating func processTrack(_ number: Int) -> UInt64 {
            if let known = processTracks[number] { return known }
            let uuid = newUUID()
            processTracks[number] = uuid
            return uuid
        }

        /// The pid a process descriptor gives: the OS pid, so that the trace processor's
        /// `process.pid` is the system's; the process's number in the export where the trace
        /// does not say (pid 0).
        private static func osPid(_ pid: UInt32, number: Int) -> Int64 { pid == 0 ? Int64(number) : Int64(pid) }

        /// The track of OS thread `thread` of process `pid` (a thread descriptor: Perfetto puts
        /// it under the process with that pid, as the thread with that tid).
        private mutating func threadTrack(pid: UInt32, thread: UInt32, number: Int) -> UInt64 {
            let key = ThreadKey(process: pid, thread: thread)
            if let known = threadTracks[key] { return known }
            _ = processTrack(number)
            let uuid = newUUID()
            threadTracks[key] = uuid
            describe(uuid) { out in
                let descriptor = out.begin(4)  // TrackDescriptor.thread
                out.int(1, Self.osPid(pid, number: number))  // ThreadDescriptor.pid
                out.int(2, Int64(thread))  // tid
                out.end(descriptor)
            }
            return uuid
        }

        private mutating func describeProcess(_ uuid: UInt64, pid: UInt32, number: Int, name: String, labels: [String]) {
            describe(uuid) { out in
                let process = out.begin(3)
                out.int(1, Self.osPid(pid, number: number))  // pid
                out.string(6, name)  // process_name
                for label in labels { out.string(8, label) }  // process_labels
                out.end(process)
                out.uint(11, 3)  // child_ordering: EXPLICIT
            }
        }

        /// The runtime's track, the parent of all of its own.
        private mutating func runtimeTrack(_ track: ExportLayout.Track) -> UInt64 {
            let runtime = track.key.runtime
            if let known = runtimeTracks[runtime] { return known }
            let parent = processTrack(track.process)
            let uuid = newUUID()
            runtimeTracks[runtime] = uuid
            describe(uuid) { out in
                out.uint(5, parent)
                out.string(2, track.runtimeName)
                out.uint(11, 3)  // child_ordering: EXPLICIT
                out.int(12, Int64(track.runtimeOrder))  // sibling_order_rank
            }
            return uuid
        }

        /// The track of `track` (a counter's, with `counter`), described when first used.
        private mutating func uuid(_ track: ExportLayout.Track, counter: Bool = false) -> UInt64 {
            if let known = tracks[track.key] { return known }
            let parent = runtimeTrack(track)
            let uuid = newUUID()
            tracks[track.key] = uuid
            describeChild(uuid, of: parent, name: track.name, order: track.key.lane.order, counter: counter)
            return uuid
        }

        private mutating func counterUUID(_ gate: ExportLayout.Track) -> UInt64 {
            if let known = counterTracks[gate.key.runtime] { return known }
            let parent = runtimeTrack(gate)
            let uuid = newUUID()
            counterTracks[gate.key.runtime] = uuid
            // Between the gate and the task lanes.
            describeChild(
                uuid, of: parent, name: gate.runtimeName + " · queue depth", order: ExportLayout.Lane.gate.order + 1,
                counter: true)
            return uuid
        }

        /// A track under a runtime's: its `name`, its place among its siblings, and whether it
        /// holds a counter's values.
        private mutating func describeChild(_ uuid: UInt64, of parent: UInt64, name: String, order: Int, counter: Bool) {
            describe(uuid) { out in
                out.uint(5, parent)
                out.string(2, name)
                out.int(12, Int64(order))
                if counter {
                    let descriptor = out.begin(8)
                    out.end(descriptor)
                }
            }
        }

        // MARK: Events

        /// The interned id of `text` in `table`, adding it to the packet's interned data (in
        /// `field` of InternedData) when new.
        private static func intern(
            _ text: String, _ table: inout [String: UInt64], _ interned: inout ProtobufBuffer, field: UInt64
        ) -> UInt64 {
            if let known = table[text] { return known }
            let iid = UInt64(table.count + 1)
            table[text] = iid
            let entry = interned.begin(field)
            interned.uint(1, iid)
            interned.string(2, text)
            interned.end(entry)
            return iid
        }

        /// A slice's argument: its name from the registry (``ExportAttribute``) only.
        private enum Argument {
            case number(ExportAttribute, UInt64)
            case text(ExportAttribute, String)
        }

        /// A track event packet at `time`, on track `uuid`.
        private mutating func event(
            _ type: EventType, at time: UInt64, track uuid: UInt64, name: String? = nil, category: ExportLayout.Category? = nil,
            arguments: [Argument] = [], riders: Riders = Riders(), counter: UInt32 = 0
        ) {
            let packet = out.begin(Field.tracePacket)
            out.uint(Field.timestamp, time.minus(base))
            out.uint(Field.sequenceID, Self.sequence)
            // A packet that names anything by interned id needs the sequence's incremental state
            // (a reader that lost it drops the packet rather than misname it).
            if name != nil || category != nil || !arguments.isEmpty { out.uint(Field.sequenceFlags, 2) }
            let event = out.begin(Field.trackEvent)
            out.uint(Field.type, type.rawValue)
            out.uint(Field.trackUUID, uuid)
            if let name {
                out.uint(Field.nameIID, Self.intern(name, &names, &interned, field: Field.eventNames))
            }
            if let category {
                var iid = categoryIIDs[category.rawValue]
                if iid == 0 {
                    let text = category.name.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
                    iid = Self.intern(text, &categories, &interned, field: Field.eventCategories)
                    categoryIIDs[category.rawValue] = iid
                }
                out.uint(Field.categoryIIDs, iid)
            }
            for argument in arguments {
                let annotation = out.begin(Field.annotations)
                switch argument {
                case .number(let key, let value):
                    out.uint(1, Self.intern(key.rawValue, &argumentNames, &interned, field: Field.annotationNames))
                    out.uint(3, value)  // uint_value
                case .text(let key, let value):
                    out.uint(1, Self.intern(key.rawValue, &argumentNames, &interned, field: Field.annotationNames))
                    out.uint(17, Self.intern(value, &texts, &interned, field: Field.annotationTexts))  // string_value_iid
                }
                out.end(annotation)
            }
            if type == .counter { out.int(Field.counterValue, Int64(counter)) }
            for id in riders.flows { out.fixed64(Field.flowIDs, id) }
            for id in riders.terminating { out.fixed64(Field.terminatingFlowIDs, id) }
            for counter in riders.counters {
                out.uint(Field.extraCounterUUIDs, counter.track)
                out.int(Field.extraCounterValues, Int64(counter.value))
            }
            out.end(event)
            if !interned.bytes.isEmpty {
                let data = out.begin(Field.internedData)
                out.bytes.append(contentsOf: interned.bytes)
                out.end(data)
                interned.bytes.removeAll(keepingCapacity: true)
            }
            out.end(packet)
            if out.bytes.count >= 1 << 20 {
                sink(out.bytes)
                out.bytes.removeAll(keepingCapacity: true)
            }
        }

        /// Takes the flow steps waiting on `slice`'s track that it encloses (those before it had
        /// no slice to bind to, and are dropped).
        private mutating func takeFlows(enclosedBy slice: ExportLayout.Slice) -> Riders {
            var riders = Riders()
            guard var waiting = pendingFlows[slice.track.key] else { return riders }
            let end = max(slice.end, slice.start)
            waiting.removeAll { step in
                guard step.time <= end else { return false }
                if step.time >= slice.start {
                    if step.terminates { riders.terminating.append(step.id) } else { riders.flows.append(step.id) }
                }
                return true
            }
            pendingFlows[slice.track.key] = waiting.isEmpty ? nil : waiting
            return riders
        }

        /// The name and arguments of a slice.
        private func title(of kind: ExportLayout.SliceKind) -> (name: String, arguments: [Argument]) {
            switch kind {
            case .cycle(let number, let style, let label, let enterSeen, let outcome):
                let name = enterSeen ? "cycle \(label.map { "\(style ?? "")(\($0))" } ?? "?")" : "cycle"
                return ("\(name) (\(outcome))", [.number(.perfettoCycle, number)])
            case .action(let async):
                return (async ? "async action" : "action", [])
            case .task(let number, let label, let kind, let cancelled, let outcome):
                let outcome = outcome.map { cancelled ? "cancelled (\($0))" : $0 } ?? "running at the end"
                return ("\(label.isEmpty ? "task" : label) task \(kind): \(outcome)", [.number(.perfettoTask, number)])
            case .request(let dispatch, let name, let outcome, let traceID):
                let arguments: [Argument] = [
                    .number(.perfettoDispatch, dispatch), .text(.perfettoOutcome, outcome ?? "not resumed"),
                ]
                return (name, arguments + (traceID.map { [.text(.perfettoTraceID, $0)] } ?? []))
            }
        }

        /// Writes a slice as its begin and end (an end stamped before its start, as a few are,
        /// at its start), with the flows it encloses on its begin.
        private mutating func write(_ slice: ExportLayout.Slice, within bounds: (UInt64, UInt64)? = nil) {
            var start = slice.start
            var end = max(slice.end, slice.start)
            if let (low, high) = bounds {
                // An action inside its cycle, even where the two clocks that measured them disagree.
                start = min(max(start, low), high)
                end = min(max(end, start), high)
            }
            let uuid = uuid(slice.track)
            let (name, arguments) = title(of: slice.kind)
            var clamped = slice
            clamped.start = start
            clamped.end = end
            event(
                .begin, at: start, track: uuid, name: name, category: slice.kind.category, arguments: arguments,
                riders: takeFlows(enclosedBy: clamped))
            event(.end, at: end, track: uuid)
        }

        mutating func slice(_ slice: ExportLayout.Slice) {
            flushMoment()
            switch slice.kind {
            case .action:
                pendingActions[slice.track.key, default: []].append(slice)
            case .cycle:
                let actions = pendingActions.removeValue(forKey: slice.track.key) ?? []
                let uuid = uuid(slice.track)
                let end = max(slice.end, slice.start)
                let (name, arguments) = title(of: slice.kind)
                var riders = takeFlows(enclosedBy: slice)
                if let depth = pendingDepths.removeValue(forKey: slice.track.key.runtime) {
                    if depth.time == slice.start {
                        riders.counters.append((depth.track, depth.value))
                    } else {
                        event(.counter, at: depth.time, track: depth.track, counter: depth.value)
                    }
                }
                event(
                    .begin, at: slice.start, track: uuid, name: name, category: slice.kind.category, arguments: arguments,
                    riders: riders)
                for action in actions { write(action, within: (slice.start, end)) }
                event(.end, at: end, track: uuid)
            case .task, .request:
                write(slice)
            }
        }

        private func title(of kind: ExportLayout.MomentKind) -> (name: String, arguments: [Argument]) {
            switch kind {
            case .stop(let code): return ("stop: \(code)", [])
            case .dispatch(let dispatch, let name): return ("dispatch \(name)", [.number(.perfettoDispatch, dispatch)])
            case .join(let dispatch): return ("join", [.number(.perfettoDispatch, dispatch)])
            case .resume(let dispatch, let outcome): return ("resume: \(outcome)", [.number(.perfettoDispatch, dispatch)])
            }
        }

        private mutating func flushMoment() {
            guard let (moment, riders) = pendingMoment else { return }
            pendingMoment = nil
            let (name, arguments) = title(of: moment.kind)
            // A dispatch from outside the runtime's tasks sits on the thread that made it.
            let e = moment.event
            // (Not for the runtimes kept together: a thread's descriptor would make its process.)
            let track =
                moment.track.key.lane == .callers && e.thread != 0 && moment.track.key.runtime != RuntimeLanes.others
                ? threadTrack(pid: e.process, thread: e.thread, number: moment.track.process) : uuid(moment.track)
            event(
                .instant, at: e.time, track: track, name: name, category: moment.kind.category, arguments: arguments,
                riders: riders)
        }

        mutating func moment(_ moment: ExportLayout.Moment) {
            flushMoment()
            pendingMoment = (moment, Riders())
        }

        mutating func flow(_ step: ExportLayout.FlowStep) {
            if pendingMoment?.moment.track.key == step.track.key, pendingMoment?.moment.event.time == step.event.time {
                if step.phase == .end {
                    pendingMoment?.riders.terminating.append(step.id)
                } else {
                    pendingMoment?.riders.flows.append(step.id)
                }
                return
            }
            pendingFlows[step.track.key, default: []].append((step.id, step.event.time, step.phase == .end))
        }

        mutating func tally(_ e: TraceEvent, count: Int, track: ExportLayout.Track) {
            event(.counter, at: e.time, track: uuid(track, counter: true), counter: UInt32(clamping: count))
        }

        /// The depth rides on the dispatch's moment, or on the begin of the cycle whose enter it
        /// is; a packet of its own only where neither comes.
        mutating func counter(_ e: TraceEvent, depth: UInt32, gate track: ExportLayout.Track) {
            let uuid = counterUUID(track)
            if let pending = pendingMoment, pending.moment.event.time == e.time,
                pending.moment.track.key.runtime == track.key.runtime
            {
                pendingMoment?.riders.counters.append((uuid, depth))
                return
            }
            if let held = pendingDepths.removeValue(forKey: track.key.runtime) {
                event(.counter, at: held.time, track: held.track, counter: held.value)
            }
            if e.kind == .cycleEnter {
                pendingDepths[track.key.runtime] = (e.time, uuid, depth)
            } else {
                event(.counter, at: e.time, track: uuid, counter: depth)
            }
        }

        /// Writes what is still held back, names each process with its host and runtimes, and
        /// hands over the last bytes.
        mutating func finish(processes: [(number: Int, pid: UInt32?, name: String, labels: [String])]) {
            flushMoment()
            for (_, actions) in pendingActions.sorted(by: { ($0.value.first?.start ?? 0) < ($1.value.first?.start ?? 0) }) {
                for action in actions { write(action) }
            }
            pendingActions.removeAll()
            pendingFlows.removeAll()
            for (_, held) in pendingDepths.sorted(by: { $0.value.time < $1.value.time }) {
                event(.counter, at: held.time, track: held.track, counter: held.value)
            }
            pendingDepths.removeAll()
            for process in processes {
                describeProcess(
                    processTrack(process.number), pid: process.pid ?? 0, number: process.number, name: process.name,
                    labels: process.labels)
            }
            sink(out.bytes)
            out.bytes.removeAll()
        }
    }
}
