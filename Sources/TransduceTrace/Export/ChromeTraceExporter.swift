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
/// trace. The layout is shared with ``PerfettoTraceExporter``.
public struct ChromeTraceExporter: TraceConsumer {
    private var layout: ExportLayout
    private var writer: Writer

    /// An exporter that hands its JSON to `sink` in chunks as events come (`sink` is called on the
    /// consuming thread; the exporter keeps only open slices, free lanes and flows in memory).
    /// The first 64 runtimes the trace names have tracks of their own; the runtimes after them
    /// are counted together, in a process of their own (four counters: their queues' depths
    /// added up, cycles in progress, awaited requests in flight, tasks running) unless
    /// `allRuntimes`.
    public init(allRuntimes: Bool = false, sink: @escaping ([UInt8]) -> Void) {
        layout = ExportLayout(allRuntimes: allRuntimes)
        writer = Writer(sink: sink)
    }

    /// Takes the next event of the trace, in order.
    public mutating func consume(_ e: TraceEvent) {
        if writer.origin == nil { writer.origin = e.time }
        layout.consume(e, on: &writer)
    }

    /// Closes the slices still open (a request not resumed or a task still running when the trace
    /// ends, drawn to its last event and named so), names the processes (`hosts`: each pid's host,
    /// where the input says) and closes the JSON document; call once, after the last event.
    public mutating func finish(hosts: [UInt32: String] = [:]) {
        layout.finish(on: &writer)
        writer.finish(processes: layout.processes(hosts: hosts))
    }

    /// The JSON writer: draws the layout's marks as Chrome trace events.
    struct Writer: ExportLayout.Canvas {
        private let sink: ([UInt8]) -> Void
        private var out: [UInt8] = []
        var origin: UInt64?
        private var first = true
        /// Chrome's tid of every track (unique across the whole export: Perfetto takes tids as
        /// the system's, so a tid seen under two pids would be one thread moving between
        /// processes).
        private var tids: [ExportLayout.TrackKey: Int] = [:]
        /// The first tid: above every Chrome pid, so that no track is taken for a process's main
        /// thread.
        static let firstTid = 1_000_000

        init(sink: @escaping ([UInt8]) -> Void) {
            self.sink = sink
            out.append(contentsOf: "{\"traceEvents\":[\n".utf8)
        }

        /// Names the processes (Chrome's pid is the layout's process number) and closes the
        /// document.
        mutating func finish(processes: [(number: Int, pid: UInt32?, name: String, labels: [String])]) {
            for process in processes {
                let pid = process.number
                emit(#""name":"process_name","ph":"M","pid":\#(pid),"args":{"name":\#(Escaping.json(process.name))}"#)
                emit(#""name":"process_sort_index","ph":"M","pid":\#(pid),"args":{"sort_index":\#(pid)}"#)
                if !process.labels.isEmpty {
                    emit(
                        #""name":"process_labels","ph":"M","pid":\#(pid),"args":{"labels":\#(Escaping.json(process.labels.joined(separator: ", ")))}"#
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

        private mutating func string(_ text: String) { Escaping.appendJSON(text, to: &out) }

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
        private mutating func head(_ name: String, _ category: StaticString, _ phase: StaticString, pid: Int, tid: Int) {
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
            number(UInt64(pid))
            raw(#","tid":"#)
            number(UInt64(tid))
        }

        /// The tid of `track`, named (and sorted with its runtime) when first used.
        private mutating func tid(_ track: ExportLayout.Track) -> Int {
            if let known = tids[track.key] { return known }
            let tid = Self.firstTid + tids.count
            tids[track.key] = tid
            let pid = track.process
            emit(#""name":"thread_name","ph":"M","pid":\#(pid),"tid":\#(tid),"args":{"name":\#(Escaping.json(track.name))}"#)
            emit(#""name":"thread_sort_index","ph":"M","pid":\#(pid),"tid":\#(tid),"args":{"sort_index":\#(track.order)}"#)
            return tid
        }

        /// A complete slice (an end stamped before its start, as a few are, is drawn with no
        /// length).
        mutating func slice(_ slice: ExportLayout.Slice) {
            let name: String
            var extra = ""
            switch slice.kind {
            case .cycle(let number, let style, let label, let enterSeen, let outcome):
                let head = enterSeen ? "cycle #\(number) \(label.map { "\(style ?? "")(\($0))" } ?? "?")" : "cycle #\(number)"
                name = head + " (\(outcome))"
            case .action(let async): name = async ? "async action" : "action"
            case .task(let number, let label, let kind, let cancelled, let outcome):
                let title = "\(label.isEmpty ? "task" : label) task #\(number) \(kind)"
                name = title + ": " + (outcome.map { cancelled ? "cancelled (\($0))" : $0 } ?? "running at the end")
            case .request(let dispatch, let request, let outcome, let traceID):
                name = outcome == nil ? request + " (not resumed)" : request
                extra = ",\"dispatch\":\(dispatch)" + (outcome.map { ",\"outcome\":\(Escaping.json($0))" } ?? "")
                if let traceID { extra += ",\"trace_id\":\(Escaping.json(traceID))" }
            }
            let tid = tid(slice.track)
            head(name, slice.kind.category.name, "X", pid: slice.track.process, tid: tid)
            raw(#","ts":"#)
            micros(slice.start)
            raw(#","dur":"#)
            fixed3(slice.end.minus(slice.start))
            raw(",")
            args(slice.event, extra)
            end()
        }

        /// A moment: an instant, which cannot overlap anything, and which the flows passing there
        /// bind to.
        mutating func moment(_ moment: ExportLayout.Moment) {
            let name: String
            switch moment.kind {
            case .stop(let code): name = "stop: \(code)"
            case .dispatch(let dispatch, let request): name = "\(request) dispatch #\(dispatch)"
            case .join(let dispatch): name = "join: dispatch #\(dispatch)"
            case .resume(let dispatch, let outcome): name = "resume dispatch #\(dispatch): \(outcome)"
            }
            let tid = tid(moment.track)
            head(name, moment.kind.category.name, "i", pid: moment.track.process, tid: tid)
            raw(#","ts":"#)
            micros(moment.event.time)
            raw(",")
            args(moment.event)
            end()
        }

        mutating func flow(_ step: ExportLayout.FlowStep) {
            let tid = tid(step.track)
            begin()
            raw(#""name":"request","cat":"flow","ph":""#)
            switch step.phase {
            case .start: raw("s")
            case .step: raw("t")
            case .end: raw("f")
            }
            raw(#"","id":"#)
            number(step.id)
            raw(#","pid":"#)
            number(UInt64(step.track.process))
            raw(#","tid":"#)
            number(UInt64(tid))
            raw(#","ts":"#)
            micros(step.event.time)
            raw(#","bp":"e","#)
            args(step.event, dispatch: step.dispatch)
            end()
        }

        mutating func tally(_ e: TraceEvent, count: Int, track: ExportLayout.Track) {
            begin()
            raw(#""name":"#)
            string(track.name)
            counterValue("count", UInt64(count), process: track.process, at: e.time)
        }

        mutating func counter(_ e: TraceEvent, depth: UInt32, gate track: ExportLayout.Track) {
            begin()
            // Written as bytes: a value at every dispatch and cycle entry.
            if track.key.runtime == RuntimeLanes.others {
                raw(#""name":"other runtimes"#)
            } else {
                raw(#""name":"runtime "#)
                number(e.runtime)
            }
            raw(#" · queue depth""#)
            counterValue("depth", UInt64(depth), process: track.process, at: e.time)
        }

        /// The rest of a counter event after its name: its process, time and `argument`'s value.
        private mutating func counterValue(_ argument: StaticString, _ value: UInt64, process: Int, at time: UInt64) {
            raw(#","ph":"C","pid":"#)
            number(UInt64(process))
            raw(#","ts":"#)
            micros(time)
            raw(#","args":{""#)
            raw(argument)
            raw(#"":"#)
            number(value)
            raw("}")
            end()
        }
    }
}
