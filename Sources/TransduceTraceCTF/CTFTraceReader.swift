import CBabeltrace
import TransduceTrace

/// Reads the `transduce:*` events of an LTTng CTF trace directory through libbabeltrace2.
///
/// Events of other providers are skipped. Times are the raw `CLOCK_MONOTONIC` nanoseconds of
/// LTTng's default clock, the same time base as the ring buffer, so both traces of one process
/// line up. The thread is the `vtid` context (record with `lttng add-context -u -t vtid`).
public enum CTFTraceReader {
    /// A CTF trace that could not be read.
    public struct ReadError: Error, CustomStringConvertible {
        /// The trace directory.
        public var path: String
        /// What libbabeltrace2 or the reader said.
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Whether this build can read CTF traces (libbabeltrace2 was available at build time).
    public static var isAvailable: Bool { cbt_available() != 0 }

    /// Whether `path` is, or contains, a CTF trace directory.
    public static func isCTF(path: String) -> Bool { cbt_is_ctf(path) != 0 }

    /// What a read found besides events.
    public struct Result: Sendable {
        /// Events that could not be mapped (unknown names, unknown code names).
        public var notes: [String] = []
        /// What the tracer said it lost, in words.
        public var lossNotes: [String] = []
        /// Events LTTng said it discarded (its discarded-events messages).
        public var discardedEvents: UInt64 = 0
        /// Discarded-events messages that gave no count: losses of unknown size.
        public var uncountedDiscards: UInt64 = 0
        /// Whole packets LTTng lost (event counts unknown).
        public var discardedPackets: UInt64 = 0
        /// The host of each process (the trace environment's `hostname`).
        public var hosts: [UInt32: String] = [:]

        /// Whether the tracer lost events: some analyses cannot then tell "never happened" from
        /// "was lost".
        public var lostEvents: Bool { discardedEvents > 0 || uncountedDiscards > 0 || discardedPackets > 0 }
    }

    /// How many CTF traces are at or below `path` (a bounded search; see cbabeltrace.h).
    public static func traceCount(path: String) -> Int { Int(cbt_count_traces(path)) }
    /// The most traces a directory may hold.
    public static let maxTraces = Int(CBT_MAX_TRACES)

    /// Calls `body` with each `transduce:*` event in time order, with its process (`vpid`) and
    /// thread (`vtid`). With `process`, only events of that process are read (needs `vpid`).
    @discardableResult
    ///
    /// With `recordTag`, only events of processes that started a runtime with that
    /// `TRANSDUCE_RECORD_TAG` (`trace-view record` tags its command's processes) are read.
    public static func read(
        path: String, process: Int32? = nil, recordTag: String? = nil, _ body: (TraceEvent) -> Void
    ) throws -> Result {
        final class Context {
            var body: (TraceEvent) -> Void
            var result = Result()
            let process: UInt32?
            let tag: String?
            var tagged = Set<UInt32>()
            init(body: @escaping (TraceEvent) -> Void, process: UInt32?, tag: String?) {
                self.body = body
                self.process = process
                self.tag = tag
            }
        }
        return try withoutActuallyEscaping(body) { body in
            let context = Context(body: body, process: process.map { UInt32(bitPattern: $0) }, tag: recordTag)
            var error = [CChar](repeating: 0, count: 1024)
            var losses = cbt_losses()
            let unmanaged = Unmanaged.passUnretained(context)
            let status = cbt_read_ctf(
                path,
                { event, raw in
                    guard let event, let raw else { return 1 }
                    let context = Unmanaged<Context>.fromOpaque(raw).takeUnretainedValue()
                    if let process = context.process, event.pointee.vpid != process { return 0 }
                    if let tag = context.tag {
                        let vpid = event.pointee.vpid
                        if !context.tagged.contains(vpid) {
                            guard CTFTraceReader.recordTag(of: event.pointee) == tag else { return 0 }
                            context.tagged.insert(vpid)
                        }
                    }
                    guard var mapped = CTFTraceReader.map(event.pointee, notes: &context.result.notes) else { return 0 }
                    mapped.process = event.pointee.vpid
                    if context.result.hosts[mapped.process] == nil, context.result.hosts.count < 65_536,
                        let host = event.pointee.hostname, host.pointee != 0
                    {
                        context.result.hosts[mapped.process] = String(cString: host)
                    }
                    context.body(mapped)
                    return 0
                }, unmanaged.toOpaque(), &losses, &error, error.count)
            guard status == 0 else {
                throw ReadError(
                    path: path, message: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            var result = context.result
            result.discardedEvents = losses.discarded_events
            result.uncountedDiscards = losses.discarded_events_uncounted
            result.discardedPackets = losses.discarded_packets
            if result.discardedEvents > 0 {
                result.lossNotes.append("LTTng discarded \(result.discardedEvents) event(s) (its buffers were full)")
            }
            if result.uncountedDiscards > 0 {
                result.lossNotes.append("LTTng discarded events \(result.uncountedDiscards) more time(s), count unknown")
            }
            if result.discardedPackets > 0 {
                result.lossNotes.append("LTTng lost \(result.discardedPackets) packet(s) of events, count unknown")
            }
            return result
        }
    }

    /// Reads the whole trace into memory; LTTng's discarded events are the counts' `discarded`.
    public static func readAll(path: String, process: Int32? = nil) throws -> Trace {
        var events: [TraceEvent] = []
        let result = try read(path: path, process: process) { events.append($0) }
        var trace = Trace(
            events: events, counts: TraceCounts(events: UInt64(events.count), discarded: result.discardedEvents),
            notes: result.notes + result.lossNotes)
        trace.hosts = result.hosts
        return trace
    }

    /// How the provider writes an empty text (transduce_tp.h says why).
    public static let emptyText = "\u{2205}"

    /// The `record_tag` of a `runtime_start` event, or nil for any other event.
    static func recordTag(of raw: cbt_event) -> String? {
        guard String(cString: raw.name) == "transduce:runtime_start" else { return nil }
        for i in 0..<Int(raw.field_count) where String(cString: raw.fields[i].name) == "record_tag" {
            let field = raw.fields[i]
            guard let pointer = field.text, field.text_length > 0 else { return "" }
            let tag = pointer.withMemoryRebound(to: UInt8.self, capacity: Int(field.text_length)) {
                String(decoding: UnsafeBufferPointer(start: $0, count: Int(field.text_length)), as: UTF8.self)
            }
            return tag == emptyText ? "" : tag
        }
        return ""
    }

    static func map(_ raw: cbt_event, notes: inout [String]) -> TraceEvent? {
        let name = String(cString: raw.name)
        guard name.hasPrefix("transduce:") else { return nil }
        guard let kind = TraceEvent.Kind(lttngName: String(name.dropFirst("transduce:".count))) else {
            if notes.count < 100 { notes.append("unknown event \(name) skipped") }
            return nil
        }
        var fields: [String: cbt_field] = [:]
        for i in 0..<Int(raw.field_count) {
            let field = raw.fields[i]
            fields[String(cString: field.name)] = field
        }
        func text(_ field: cbt_field) -> String {
            guard let pointer = field.text, field.text_length > 0 else { return "" }
            let value = pointer.withMemoryRebound(to: UInt8.self, capacity: Int(field.text_length)) {
                String(decoding: UnsafeBufferPointer(start: $0, count: Int(field.text_length)), as: UTF8.self)
            }
            return value == emptyText ? "" : value
        }
        var event = TraceEvent(
            kind: kind, time: raw.clock_ns, thread: raw.vtid, runtime: fields["runtime"].map { $0.integer } ?? 0)
        for schemaField in TraceSchema.fields(of: kind) {
            guard let field = fields[schemaField.name] else { continue }
            let ok =
                field.is_text != 0
                ? event.set(schemaField.slot, text: text(field))
                : event.set(schemaField.slot, integer: field.integer)
            if !ok && notes.count < 100 { notes.append("\(name): field \(schemaField.name) has an unexpected value") }
        }
        return event
    }
}
