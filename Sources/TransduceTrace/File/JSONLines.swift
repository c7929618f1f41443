#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The readable interchange form: one JSON object per line, with the schema's field names.
///
/// ```
/// {"kind":"dispatch","time":1200,"thread":7,"runtime":1,"dispatch":3,"style":"request","event":"load","origin_task":0,"queue_depth":1}
/// {"kind":"counts","events":1,"overwritten":0,"discarded":0,"lost":0,"monotonic_origin":0,"realtime_origin":0}
/// ```
/// The counts line has `slow_requests` and `slow_dumps` too when a slow-request trigger counted
/// any. Codes are written by name; `payload` appears only when captured; `pid` when known. Lines of
/// kind `process` (`{"kind":"process","pid":42,"host":"box"}`) name the host of a process. The
/// last line carries the recorder's counts.
public enum JSONLines {
    /// Writes `trace` as JSON Lines to `sink`, in chunks of about 1 MiB: process lines, one line per
    /// event, then the counts line.
    public static func encode(_ trace: Trace, into sink: ([UInt8]) -> Void) {
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        for (pid, host) in trace.hosts.sorted(by: { $0.key < $1.key }) {
            out.append(contentsOf: #"{"kind":"process","pid":"#.utf8)
            appendNumber(UInt64(pid), to: &out)
            out.append(contentsOf: #","host":"#.utf8)
            appendString(host, to: &out)
            out.append(contentsOf: "}\n".utf8)
        }
        for event in trace.events {
            line(for: event, into: &out)
            if out.count >= 1 << 20 {
                sink(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        countsLine(trace.counts, events: trace.events.count, into: &out)
        sink(out)
    }

    /// The last line: the recorder's (or tracer's) counts, with `events` events written.
    public static func countsLine(_ c: TraceCounts, events: Int, into out: inout [UInt8]) {
        out.append(
            contentsOf: Array(
                #"{"kind":"counts","events":\#(events),"overwritten":\#(c.overwritten),"discarded":\#(c.discarded),"lost":\#(c.lost),"monotonic_origin":\#(c.monotonicOrigin),"realtime_origin":\#(c.realtimeOrigin)"#
                    .utf8))
        // Only from a recorder with a slow-request trigger.
        if c.slowRequests != 0 || c.slowDumps != 0 {
            out.append(contentsOf: Array(#","slow_requests":\#(c.slowRequests),"slow_dumps":\#(c.slowDumps)"#.utf8))
        }
        out.append(contentsOf: Array("}".utf8))
        out.append(0x0A)
    }

    /// Appends one event's line (with its newline) to `out`.
    public static func line(for event: TraceEvent, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"kind":""#.utf8)
        out.append(contentsOf: event.kind.description.utf8)
        out.append(contentsOf: #"","time":"#.utf8)
        appendNumber(event.time, to: &out)
        out.append(contentsOf: #","thread":"#.utf8)
        appendNumber(UInt64(event.thread), to: &out)
        out.append(contentsOf: #","runtime":"#.utf8)
        appendNumber(event.runtime, to: &out)
        if event.process != 0 {
            out.append(contentsOf: #","pid":"#.utf8)
            appendNumber(UInt64(event.process), to: &out)
        }
        for field in TraceSchema.fields(of: event.kind) {
            out.append(contentsOf: #",""#.utf8)
            out.append(contentsOf: field.name.utf8)
            out.append(contentsOf: #"":"#.utf8)
            if field.slot.isText {
                appendString(event.text(field.slot), to: &out)
            } else {
                appendNumber(event.integer(field.slot), to: &out)
            }
        }
        if !event.payload.isEmpty {
            out.append(contentsOf: #","payload":"#.utf8)
            appendString(event.payload, to: &out)
        }
        out.append(contentsOf: "}\n".utf8)
    }

    static func appendNumber(_ value: UInt64, to out: inout [UInt8]) {
        if value == 0 { return out.append(0x30) }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            while n > 0 {
                d[count] = UInt8(0x30 + n % 10)
                n /= 10
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }

    static func appendString(_ string: String, to out: inout [UInt8]) {
        out.append(0x22)
        for byte in string.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}

/// Streams events from a JSON Lines trace. A line that is not a valid event is skipped and noted
/// (with its line number); blank lines are ignored. Lines longer than 1 MiB are refused.
///
/// Memory stays bounded: one line buffer and at most ``maxNotes`` notes. Not thread-safe.
public final class JSONLinesReader {
    /// The file's path (or the name given), as errors and notes say it.
    public let path: String
    /// What could not be read (at most ``maxNotes``), with line numbers.
    public private(set) var notes: [String] = []
    /// The counts line's counts, once the stream reached it.
    public private(set) var footer: TraceCounts?
    /// Lines read so far.
    public private(set) var lineNumber = 0
    /// Events returned so far.
    public private(set) var eventCount = 0
    /// The host of each process seen so far (from `process` lines).
    public private(set) var hosts: [UInt32: String] = [:]
    private let source: ByteSource
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0
    private var exhausted = false
    /// Inside a line longer than ``maxLine``, reading on to its end.
    private var skippingLongLine = false
    static let maxLine = 1 << 20
    /// The most notes a reader keeps (a hostile input could make one per line).
    public static let maxNotes = 100

    /// Opens `path`; throws ``TraceFileError`` when it cannot be opened.
    public convenience init(path: String) throws {
        guard let file = fopen(path, "rb") else {
            throw TraceFileError(path: path, offset: 0, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        self.init(source: FileSource(file), name: path)
    }

    /// Reads JSON Lines held in memory; `name` appears in notes.
    public convenience init(bytes: [UInt8], name: String = "<memory>") {
        self.init(source: MemorySource(bytes), name: name)
    }

    /// Streams JSON Lines from `source` (a pipe, a FIFO, standard input).
    package init(source: ByteSource, name: String) {
        self.source = source
        self.path = name
    }

    /// The next event, or `nil` at the end of the input.
    public func next() -> TraceEvent? {
        while let line = nextLine() {
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            do {
                let object = try FlatJSON.parse(line)
                if case .string("counts") = object["kind"] {
                    footer = counts(from: object)
                    continue
                }
                if case .string("process") = object["kind"] {
                    if case .number(let pid) = object["pid"], let pid = UInt32(exactly: pid),
                        case .string(let host) = object["host"],
                        hosts.count < 65_536
                    {
                        hosts[pid] = String(host.prefix(TraceFileFormat.maxHostBytes))
                    }
                    continue
                }
                let event = try Self.event(from: object)
                eventCount += 1
                return event
            } catch {
                addNote("line \(lineNumber): \(error)")
            }
        }
        return nil
    }

    private func addNote(_ message: String) {
        if notes.count < Self.maxNotes {
            notes.append("\(path): \(message)")
        } else if notes.count == Self.maxNotes {
            notes.append("\(path): more malformed lines not listed")
        }
    }

    private func counts(from object: [String: FlatJSON.Value]) -> TraceCounts {
        func n(_ key: String) -> UInt64 { if case .number(let v) = object[key] { v } else { 0 } }
        var counts = TraceCounts(
            events: n("events"), overwritten: n("overwritten"), discarded: n("discarded"), lost: n("lost"),
            monotonicOrigin: n("monotonic_origin"), realtimeOrigin: n("realtime_origin"))
        counts.slowRequests = n("slow_requests")
        counts.slowDumps = n("slow_dumps")
        return counts
    }

    static func event(from object: [String: FlatJSON.Value]) throws -> TraceEvent {
        guard case .string(let kindName) = object["kind"] else { throw FlatJSON.Error.message("no \"kind\"") }
        guard let kind = TraceEvent.Kind(name: kindName) else { throw FlatJSON.Error.message("unknown kind \"\(kindName)\"") }
        func number(_ key: String) throws -> UInt64 {
            switch object[key] {
            case .number(let v): return v
            case nil: return 0
            default: throw FlatJSON.Error.message("\"\(key)\" must be a non-negative integer")
            }
        }
        guard let thread = UInt32(exactly: try number("thread")) else { throw FlatJSON.Error.message("\"thread\" out of range") }
        var event = TraceEvent(kind: kind, time: try number("time"), thread: thread, runtime: try number("runtime"))
        guard let process = UInt32(exactly: try number("pid")) else { throw FlatJSON.Error.message("\"pid\" out of range") }
        event.process = process
        for field in TraceSchema.fields(of: kind) {
            if field.slot.isText {
                switch object[field.name] {
                case .string(let text):
                    guard event.set(field.slot, text: text) else {
                        throw FlatJSON.Error.message("unknown \(field.name) \"\(text)\"")
                    }
                case nil: break
                default: throw FlatJSON.Error.message("\"\(field.name)\" must be a string")
                }
            } else {
                guard event.set(field.slot, integer: try number(field.name)) else {
                    throw FlatJSON.Error.message("\"\(field.name)\" out of range")
                }
            }
        }
        if case .string(let payload) = object["payload"] { event.payload = payload }
        return event
    }

    /// The next line without its newline; refills the buffer from the source as needed.
    private func nextLine() -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
                let line = buffer[start..<newline]
                start = newline + 1
                if skippingLongLine {
                    skippingLongLine = false
                    continue
                }
                return line
            }
            if exhausted {
                if skippingLongLine { return nil }
                guard start < end else { return nil }
                let line = buffer[start..<end]
                start = end
                return line
            }
            // Compact, grow if a line does not fit, then read more.
            if start > 0 {
                buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
                end -= start
                start = 0
            }
            if skippingLongLine {
                // Passing over the rest of a line that was too long: drop what is buffered.
                start = 0
                end = 0
            }
            if end == buffer.count {
                guard buffer.count < Self.maxLine else {
                    // Too long to be an event: note it, drop it and go on with the next line.
                    lineNumber += 1
                    addNote("line \(lineNumber): longer than \(Self.maxLine) bytes, skipped")
                    skippingLongLine = true
                    start = 0
                    end = 0
                    continue
                }
                buffer += [UInt8](repeating: 0, count: buffer.count)
            }
            var chunk = [UInt8](repeating: 0, count: buffer.count - end)
            let n = source.read(into: &chunk, count: chunk.count)
            if n == 0 {
                exhausted = true
            } else {
                buffer.replaceSubrange(end..<(end + n), with: chunk[0..<n])
                end += n
            }
        }
    }
}

/// A parser for flat JSON objects of strings and non-negative integers (the JSON Lines form).
enum FlatJSON {
    enum Value: Equatable {
        case string(String)
        case number(UInt64)
        case other
    }

    enum Error: Swift.Error, CustomStringConvertible {
        case message(String)
        var description: String {
            switch self {
            case .message(let m): m
            }
        }
    }

    static func parse(_ bytes: ArraySlice<UInt8>) throws -> [String: Value] {
        var i = bytes.startIndex
        let end = bytes.endIndex
        func skip() { while i < end, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0D { i += 1 } }
        func expect(_ byte: UInt8, _ what: String) throws {
            skip()
            guard i < end, bytes[i] == byte else { throw Error.message("expected \(what) at column \(i - bytes.startIndex + 1)") }
            i += 1
        }
        func string() throws -> String {
            try expect(0x22, "a string")
            var out: [UInt8] = []
            while i < end {
                let b = bytes[i]
                i += 1
                switch b {
                case 0x22: return String(decoding: out, as: UTF8.self)
                case 0x5C:
                    guard i < end else { break }
                    let e = bytes[i]
                    i += 1
                    switch e {
                    case 0x22, 0x5C, 0x2F: out.append(e)
                    case 0x6E: out.append(0x0A)
                    case 0x72: out.append(0x0D)
                    case 0x74: out.append(0x09)
                    case 0x62: out.append(0x08)
                    case 0x66: out.append(0x0C)
                    case 0x75:
                        guard i + 4 <= end, let code = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16)
                        else { throw Error.message("bad \\u escape") }
                        i += 4
                        var value = code
                        // A UTF-16 surrogate pair, \uD83D\uDE00, is one scalar.
                        if (0xD800..<0xDC00).contains(code), i + 6 <= end, bytes[i] == 0x5C, bytes[i + 1] == 0x75,
                            let low = UInt32(String(decoding: bytes[(i + 2)..<(i + 6)], as: UTF8.self), radix: 16),
                            (0xDC00..<0xE000).contains(low)
                        {
                            value = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                            i += 6
                        }
                        let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: throw Error.message("bad escape")
                    }
                default: out.append(b)
                }
            }
            throw Error.message("unterminated string")
        }
        var object: [String: Value] = [:]
        try expect(0x7B, "'{'")
        skip()
        if i < end, bytes[i] == 0x7D {
            i += 1
        } else {
            while true {
                let key = try string()
                try expect(0x3A, "':'")
                skip()
                guard i < end else { throw Error.message("missing value for \"\(key)\"") }
                if bytes[i] == 0x22 {
                    object[key] = .string(try string())
                } else if bytes[i] >= 0x30 && bytes[i] <= 0x39 {
                    var value: UInt64 = 0
                    while i < end, bytes[i] >= 0x30 && bytes[i] <= 0x39 {
                        let (m, o1) = value.multipliedReportingOverflow(by: 10)
                        let (a, o2) = m.addingReportingOverflow(UInt64(bytes[i] - 0x30))
                        guard !o1 && !o2 else { throw Error.message("number too large for \"\(key)\"") }
                        value = a
                        i += 1
                    }
                    object[key] = .number(value)
                } else {
                    // true/false/null/negative/nested: not part of the schema.
                    throw Error.message("unsupported value for \"\(key)\"")
                }
                skip()
                guard i < end else { throw Error.message("unterminated object") }
                if bytes[i] == 0x2C {
                    i += 1
                    continue
                }
                try expect(0x7D, "',' or '}'")
                break
            }
        }
        skip()
        guard i == end else { throw Error.message("trailing characters after the object") }
        return object
    }
}
