import CBabeltrace
import TransduceTrace

/// Reads the `transduce:*` events of an LTTng CTF trace directory through libbabeltrace2.
///
/// Events of other providers are skipped. Times are the raw `CLOCK_MONOTONIC` nanoseconds of
/// LTTng's default clock, the same time base as the ring buffer, so both traces of one process
/// line up. The thread is the `vtid` context (record with `lttng add-context -u -t vtid`).
public enum CTFTraceReader {
    public struct ReadError: Error, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Whether this build can read CTF traces (libbabeltrace2 was available at build time).
    public static var isAvailable: Bool { cbt_available() != 0 }

    /// Whether `path` is, or contains, a CTF trace directory.
    public static func isCTF(path: String) -> Bool { cbt_is_ctf(path) != 0 }

    /// Calls `body` with each `transduce:*` event in time order; returns notes on events that
    /// could not be mapped (unknown event names, unknown code names). With `process`, only events
    /// of that process are read (needs the `vpid` context).
    @discardableResult
    public static func read(path: String, process: Int32? = nil, _ body: (TraceEvent) -> Void) throws -> [String] {
        final class Context {
            var body: (TraceEvent) -> Void
            var notes: [String] = []
            let process: UInt32?
            init(body: @escaping (TraceEvent) -> Void, process: UInt32?) {
                self.body = body
                self.process = process
            }
        }
        return try withoutActuallyEscaping(body) { body in
            let context = Context(body: body, process: process.map { UInt32(bitPattern: $0) })
            var error = [CChar](repeating: 0, count: 1024)
            let unmanaged = Unmanaged.passUnretained(context)
            let status = cbt_read_ctf(
                path,
                { event, raw in
                    guard let event, let raw else { return 1 }
                    let context = Unmanaged<Context>.fromOpaque(raw).takeUnretainedValue()
                    if let process = context.process, event.pointee.vpid != process { return 0 }
                    guard let mapped = CTFTraceReader.map(event.pointee, notes: &context.notes) else { return 0 }
                    context.body(mapped)
                    return 0
                }, unmanaged.toOpaque(), &error, error.count)
            guard status == 0 else {
                throw ReadError(path: path, message: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            return context.notes
        }
    }

    /// Reads the whole trace into memory.
    public static func readAll(path: String, process: Int32? = nil) throws -> Trace {
        var events: [TraceEvent] = []
        let notes = try read(path: path, process: process) { events.append($0) }
        return Trace(events: events, counts: TraceCounts(events: UInt64(events.count)), notes: notes)
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
            return pointer.withMemoryRebound(to: UInt8.self, capacity: Int(field.text_length)) {
                String(decoding: UnsafeBufferPointer(start: $0, count: Int(field.text_length)), as: UTF8.self)
            }
        }
        var event = TraceEvent(
            kind: kind, time: raw.clock_ns, thread: raw.vtid, runtime: fields["runtime"].map { $0.integer } ?? 0)
        for schemaField in TraceSchema.fields(of: kind) {
            guard let field = fields[schemaField.name] else { continue }
            let ok = field.is_text != 0
                ? event.set(schemaField.slot, text: text(field))
                : event.set(schemaField.slot, integer: field.integer)
            if !ok && notes.count < 100 { notes.append("\(name): field \(schemaField.name) has an unexpected value") }
        }
        return event
    }
}
