#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
    static let maxLine = JSONLines.maxLine
    /// The most notes a reader keeps (a hostile input could make one per line).
    public static let maxNotes = 100

    /// Opens `path`; throws ``TraceFileError`` when it cannot be opened.
    public convenience init(path: String) throws {
        guard let file = DescriptorSource(path: path) else {
            throw TraceFileError(.cannotOpen, path: path, offset: 0, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        self.init(source: file, name: path)
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
                    let read = counts(from: object)
                    if let impossible = read.impossibility {
                        addNote("line \(lineNumber): \(impossible)")
                    } else {
                        footer = read
                    }
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
        if case .string(let name) = object["occasion"] { counts.occasion = TraceCounts.Occasion(name: name) ?? .unsaid }
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
