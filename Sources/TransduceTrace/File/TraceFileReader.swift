import CTraceRing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Streams the events of a binary trace file (``TraceFileFormat``) one at a time.
///
/// Memory stays bounded whatever the input: one chunk (at most about 5 MiB) and the string
/// table (at most ``TraceFileFormat/maxTotalStringBytes``). A file that is not a trace at all
/// (bad magic, unknown version, too short) throws ``TraceFileError`` from `init`. Damage later in
/// the file (truncation, a checksum mismatch, an impossible length or kind) ends the stream: every
/// event before it is returned, and ``notes`` says what was lost and at which offset.
///
/// ```swift
/// let reader = try TraceFileReader(path: "run.tdtrace")
/// while let event = reader.next() { … }
/// print(reader.notes, reader.footer as Any)
/// ```
public final class TraceFileReader {
    // The state read and changed at every chunk (a trace of several processes has one every
    // few events) is `@exclusivity(unchecked)`: a reader is used by one thread at a time, and
    // the dynamic exclusivity checks of these cost 3% of `summary`.

    /// The file's path (or the name given for a stream), as errors and notes say it.
    public let path: String
    /// What could not be read, with byte offsets; empty for a whole file.
    public private(set) var notes: [String] = []
    /// The footer's counts, once the stream reached it.
    @exclusivity(unchecked) public private(set) var footer: TraceCounts?
    /// Byte offset of the next unread chunk.
    @exclusivity(unchecked) public private(set) var offset = 0
    /// Events returned so far (while ``forEach(while:_:)`` hands them over, counted once a chunk:
    /// a caller that needs the position of each event counts them itself).
    @exclusivity(unchecked) public private(set) var eventCount = 0
    /// The host of each process seen so far (from the file's process chunks).
    @exclusivity(unchecked) public private(set) var hosts: [UInt32: String] = [:]
    @exclusivity(unchecked) private var process: UInt32 = 0
    private var version: UInt16 = 0

    private let source: ByteSource
    @exclusivity(unchecked) private var strings: [String] = [""]
    private var stringBytes = 0
    /// The current chunk's payload: raw memory, not an array, so that decoding a record is loads
    /// from a pointer (no uniqueness or exclusivity checks per event). Where the source lent it
    /// (``ByteSource/lend(_:)``), or ``chunk`` when it was read there.
    @exclusivity(unchecked) private var payload: UnsafeRawPointer
    /// Where a chunk the source does not lend is read to.
    private var chunk: UnsafeMutableRawPointer
    private var chunkCapacity = 0
    @exclusivity(unchecked) private var chunkLength = 0
    /// A chunk header's bytes (reused: a trace can have a chunk every few events).
    private let header = UnsafeMutableRawPointer.allocate(byteCount: TraceFileFormat.chunkHeaderSize, alignment: 8)
    @exclusivity(unchecked) private var chunkEvents = 0
    @exclusivity(unchecked) private var chunkIndex = 0
    @exclusivity(unchecked) private var chunkOffset = 0
    @exclusivity(unchecked) private var finished = false
    /// Process chunks already checked, whose repeats need no checksum (see the type).
    @exclusivity(unchecked) private var checkedProcesses = CheckedProcessChunks()
    /// The checksum's tables, fetched once (see ``CRC32/checksum(_:tables:)``).
    private let checksumTables = CRC32.tables

    /// A place an events chunk starts, where reading can begin again (``init(path:resumingAt:strings:hosts:)``):
    /// its chunk header's byte offset and what a reader knows there.
    package struct Resume: Sendable, Equatable {
        /// The events chunk's header's byte offset.
        package var offset: Int
        /// Events before it.
        package var position: Int
        /// Strings defined before it (ids 1...strings).
        package var strings: Int
        /// The process of its events.
        package var process: UInt32

        package init(offset: Int, position: Int, strings: Int, process: UInt32) {
            (self.offset, self.position, self.strings, self.process) = (offset, position, strings, process)
        }
    }
    /// Told of each events chunk as it is loaded, before its events are handed out (an index
    /// builder keeps some of them as places to start again).
    @exclusivity(unchecked) package var onEventsChunk: ((Resume) -> Void)?
    /// Every string the file defined so far (id → text; id 0 is the empty string).
    package var definedStrings: [String] { strings }

    /// Opens `path` and checks its header.
    public convenience init(path: String) throws {
        guard let file = DescriptorSource(path: path) else {
            throw TraceFileError(.cannotOpen, path: path, offset: 0, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        try self.init(source: file, name: path)
    }

    /// Opens `path` (checking its header) and starts reading at `point`, found by an earlier read
    /// of the same file: `strings` holds at least the strings defined before it, `hosts` the
    /// process hosts. Throws when the file cannot be positioned there.
    package convenience init(path: String, resumingAt point: Resume, strings: [String], hosts: [UInt32: String]) throws {
        try self.init(path: path)
        guard point.offset >= TraceFileFormat.headerSize, point.strings < strings.count, point.position >= 0,
            let file = source as? DescriptorSource, file.seek(to: point.offset)
        else {
            throw TraceFileError(.badResumePoint, path: path, offset: point.offset, reason: "cannot start reading at this offset")
        }
        offset = point.offset
        eventCount = point.position
        self.strings = Array(strings.prefix(point.strings + 1))
        stringBytes = self.strings.reduce(0) { $0 + $1.utf8.count + TraceFileFormat.stringEntryCost }
        process = point.process
        self.hosts = hosts
    }

    /// Reads a trace held in memory (tests, pipes); `name` appears in errors.
    public convenience init(bytes: [UInt8], name: String = "<memory>") throws {
        try self.init(source: MemorySource(bytes), name: name)
    }

    /// Streams a trace from `source` (a pipe, a FIFO, standard input); `name` appears in errors.
    package init(source: ByteSource, name: String) throws {
        self.source = source
        self.path = name
        chunk = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 8)
        payload = UnsafeRawPointer(chunk)
        var header = [UInt8](repeating: 0, count: TraceFileFormat.headerSize)
        let got = source.read(into: &header, count: header.count)
        if got < 8 || Array(header.prefix(8)) != TraceFileFormat.magic {
            if got == 0 { throw TraceFileError(.empty, path: name, offset: 0, reason: "empty file, not a trace") }
            throw TraceFileError(.notATrace, path: name, offset: 0, reason: "not a Transduce trace file (bad magic number)")
        }
        if got < TraceFileFormat.headerSize {
            throw TraceFileError(.truncatedHeader, path: name, offset: got, reason: "truncated header")
        }
        let (version, flags, reserved) = header.withUnsafeBytes {
            ($0.le(8, as: UInt16.self), $0.le(10, as: UInt16.self), $0.le(12, as: UInt32.self))
        }
        if !TraceFileFormat.readableVersions.contains(version) {
            throw TraceFileError(
                .unsupportedVersion,
                path: name, offset: 8,
                reason: "unsupported trace format version \(version) (this reader knows version \(TraceFileFormat.version))")
        }
        // Version 1 defines no flags: a file with any set was written by something this reader
        // does not understand, or is damaged.
        if flags != 0 {
            throw TraceFileError(
                .unknownFlags, path: name, offset: 10, reason: "unknown header flags 0x\(String(flags, radix: 16))")
        }
        if reserved != 0 {
            throw TraceFileError(.reservedBytes, path: name, offset: 12, reason: "reserved header bytes are not zero")
        }
        offset = TraceFileFormat.headerSize
        self.version = version
    }

    deinit {
        chunk.deallocate()
        header.deallocate()
        checkedProcesses.deallocate()
    }

    /// The next event, or `nil` at the end of the trace or at the first damage.
    public func next() -> TraceEvent? {
        guard nextChunkWithEvents() else { return nil }
        let base = 4 + chunkIndex * TraceFileFormat.recordSize
        chunkIndex += 1
        guard let event = decodeRecord(at: base, strings: strings) else {
            finished = true
            chunkEvents = 0
            return nil
        }
        eventCount += 1
        return event
    }

    /// Hands every remaining event to `body`, as ``next()`` would one at a time, while
    /// `continues` says so (asked before each event): the loop a view reads a whole file with,
    /// decoding a chunk's records with the string table and process loaded once per chunk.
    public func forEach(while continues: () -> Bool, _ body: (TraceEvent) throws -> Void) rethrows {
        try eachEvent(while: continues, body)
    }

    /// Hands every remaining event to `body`, as ``next()`` would one at a time, until the end or
    /// until it calls ``stop()``: the loop a view reads a whole file with (asking a closure
    /// before each event, as ``forEach(while:_:)`` does, was a call an event, 2% of `summary`).
    public func forEach(_ body: (TraceEvent) throws -> Void) rethrows {
        stopped = false
        try eachEvent(while: { !stopped }, body)
    }

    /// Ends ``forEach(_:)`` after the event it is handing over, as asked by its body (or by
    /// what the body calls) once it has what it needs; a later `forEach` reads on from the next.
    public func stop() { stopped = true }
    @exclusivity(unchecked) private var stopped = false

    /// The loop of both `forEach`, written into each.
    @inline(__always)
    private func eachEvent(while continues: () -> Bool, _ body: (TraceEvent) throws -> Void) rethrows {
        // Two events decoded into in turn, again and again (an event returned from the decoder
        // was copied, a retain of each of its three strings, and the returned one destroyed, a
        // release of each). Each is handed over only after the next is decoded: the call copies
        // its event, and a copy that follows the decoder's stores at once waited for them to
        // reach the cache (a fifth of the reading loop).
        var first = TraceEvent(kind: .eventDropped, time: 0, thread: 0, runtime: 0)
        var second = first
        var heldFirst = HeldTexts()
        var heldSecond = HeldTexts()
        let kinds = TraceRecordLayout.kinds
        while continues(), nextChunkWithEvents() {
            let strings = self.strings
            var index = chunkIndex
            let count = chunkEvents
            // Counted in a local, put back once a chunk (and before a note, which says the
            // count): a stored property of a class changed once an event costs a dynamic
            // exclusivity check each time.
            var counted = index
            defer {
                chunkIndex = index
                eventCount += index - counted
            }
            while index < count {
                guard continues() else { return }
                var damage = decodeRecord(
                    at: 4 + index * TraceFileFormat.recordSize, strings: strings, kinds: kinds, into: &first,
                    holding: &heldFirst)
                if damage == nil {
                    let paired = index + 1 < count
                    if paired {
                        damage = decodeRecord(
                            at: 4 + (index + 1) * TraceFileFormat.recordSize, strings: strings, kinds: kinds,
                            into: &second, holding: &heldSecond)
                    }
                    index += 1
                    try body(first)
                    guard paired, damage == nil else { continue }
                    guard continues() else { return }
                    index += 1
                    try body(second)
                    continue
                }
                eventCount += index - counted
                counted = index
                note(damage!.message, at: damage!.offset)
                finished = true
                chunkEvents = 0
                return
            }
        }
    }

    /// Whether the current chunk has an event left, after loading chunks until one does;
    /// `false` at the end or at damage.
    private func nextChunkWithEvents() -> Bool {
        while chunkIndex >= chunkEvents {
            if finished || !readChunk() {
                finished = true
                return false
            }
        }
        return true
    }

    private func note(_ message: String, at position: Int) {
        notes.append(
            "\(path): \(message) at byte offset \(position); \(counted(eventCount, "event")) before it \(eventCount == 1 ? "was" : "were") read"
        )
    }

    /// Loads the next chunk; `false` at the end or on damage.
    private func readChunk() -> Bool {
        let headerSize = TraceFileFormat.chunkHeaderSize
        let got: Int
        if let lent = source.lend(headerSize) {
            header.copyMemory(from: lent.baseAddress!, byteCount: headerSize)
            got = headerSize
        } else {
            got = source.read(to: header, count: headerSize)
        }
        if got == 0 {
            if footer == nil { note("no footer: the file is truncated", at: offset) }
            return false
        }
        if footer != nil {
            note("data after the footer", at: offset)
            return false
        }
        guard got == headerSize else {
            note("truncated chunk header (\(got) of \(headerSize) bytes)", at: offset)
            return false
        }
        let h = UnsafeRawBufferPointer(start: header, count: headerSize)
        let (tagByte, length, crc) = (h[0], Int(h.le(4, as: UInt32.self)), h.le(8, as: UInt32.self))
        guard h[1] == 0 && h[2] == 0 && h[3] == 0 else {
            note("damaged chunk header (reserved bytes not zero)", at: offset)
            return false
        }
        guard let tag = TraceFileFormat.Tag(rawValue: tagByte) else {
            note("unknown chunk tag \(tagByte)", at: offset)
            return false
        }
        let limit: Int
        switch tag {
        case .string: limit = 4 + TraceFileFormat.maxStringBytes
        case .events: limit = 4 + TraceFileFormat.maxEventsPerChunk * TraceFileFormat.recordSize
        case .footer: limit = TraceFileFormat.occasionFooterSize
        case .process: limit = 4 + TraceFileFormat.maxHostBytes
        }
        guard length <= limit, length >= 4 else {
            note("impossible length \(length) for a \(tag) chunk", at: offset)
            return false
        }
        // A damaged chunk leaves no events to decode behind it.
        chunkEvents = 0
        chunkIndex = 0
        if let lent = source.lend(length) {
            payload = lent.baseAddress!
        } else {
            if chunkCapacity < length {
                chunk.deallocate()
                chunk = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 8)
                chunkCapacity = length
            }
            let read = source.read(to: chunk, count: length)
            guard read == length else {
                note("truncated \(tag) chunk (\(read) of \(length) bytes)", at: offset)
                return false
            }
            payload = UnsafeRawPointer(chunk)
        }
        chunkLength = length
        let payload = UnsafeRawBufferPointer(start: self.payload, count: length)
        if tag == .process && checkedProcesses.contains(checksum: crc, payload) {
            // The bytes of a process chunk that passed before: the same process and host.
            process = payload.le(0, as: UInt32.self)
            chunkOffset = offset + TraceFileFormat.chunkHeaderSize
            offset += TraceFileFormat.chunkHeaderSize + length
            return true
        }
        let actual = checksumTables.withUnsafeBufferPointer { CRC32.checksum(payload, tables: $0) }
        guard actual == crc else {
            note("checksum mismatch in a \(tag) chunk (damaged bytes)", at: offset)
            return false
        }
        chunkOffset = offset + TraceFileFormat.chunkHeaderSize
        defer { offset += TraceFileFormat.chunkHeaderSize + length }
        switch tag {
        case .string:
            let id = Int(payload.le(0, as: UInt32.self))
            guard id == strings.count else {
                note("string id \(id) out of sequence (expected \(strings.count))", at: offset)
                return false
            }
            stringBytes += length - 4 + TraceFileFormat.stringEntryCost
            guard stringBytes <= TraceFileFormat.maxTotalStringBytes else {
                note(
                    "string table larger than \(TraceFileFormat.maxTotalStringBytes >> 20) MiB "
                        + "(\(strings.count - 1) strings, each counted as its bytes and \(TraceFileFormat.stringEntryCost))",
                    at: offset)
                return false
            }
            strings.append(String(decoding: payload[4..<length], as: UTF8.self))
        case .events:
            let count = Int(payload.le(0, as: UInt32.self))
            guard count >= 1, length == 4 + count * TraceFileFormat.recordSize else {
                note("events chunk length \(length) does not match its count \(count)", at: offset)
                return false
            }
            chunkEvents = count
            chunkIndex = 0
            onEventsChunk?(
                Resume(offset: offset, position: eventCount, strings: strings.count - 1, process: process))
        case .process:
            guard version >= 2 else {
                note("a process chunk in a version \(version) file", at: offset)
                return false
            }
            let pid = payload.le(0, as: UInt32.self)
            // A trace that interleaves processes repeats their chunks: the host is decoded once
            // per change, not per chunk.
            process = pid
            let name = UnsafeRawBufferPointer(rebasing: payload[4..<length])
            if hosts[process].map({ !Self.same($0, name) }) ?? (length > 4) {
                let host = String(decoding: payload[4..<length], as: UTF8.self)
                if !host.isEmpty && hosts.count < 65_536 {
                    hosts[process] = host
                    // A chunk checked before may name the host this one replaced: forgotten, so
                    // that a repeat of it moves the host back as it would have.
                    checkedProcesses.removeAll()
                }
            }
            checkedProcesses.insert(checksum: crc, payload)
        case .footer:
            guard
                [TraceFileFormat.footerSize, TraceFileFormat.slowFooterSize, TraceFileFormat.occasionFooterSize]
                    .contains(length)
            else {
                note("footer of \(length) bytes", at: offset)
                return false
            }
            footer = { (b: UnsafeRawBufferPointer) in
                var counts = TraceCounts(
                    events: b.le(0), overwritten: b.le(8), discarded: b.le(16), lost: b.le(24), monotonicOrigin: b.le(32),
                    realtimeOrigin: b.le(40))
                if length >= TraceFileFormat.slowFooterSize {
                    counts.slowRequests = b.le(48)
                    counts.slowDumps = b.le(56)
                }
                // An occasion this reader does not know is one it cannot vouch for: unsaid.
                if length == TraceFileFormat.occasionFooterSize {
                    counts.occasion = TraceCounts.Occasion(rawValue: UInt8(clamping: b.le(64, as: UInt64.self))) ?? .unsaid
                }
                return counts
            }(payload)
            if let impossible = footer?.impossibility {
                note(impossible, at: offset)
                footer = nil
            }
        }
        return true
    }

    /// Whether `host`'s UTF-8 is `bytes`.
    private static func same(_ host: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var host = host
        return host.withUTF8 {
            $0.count == bytes.count && ($0.isEmpty || memcmp($0.baseAddress!, bytes.baseAddress!, $0.count) == 0)
        }
    }

    @inline(__always)
    private func decodeRecord(at base: Int, strings: [String]) -> TraceEvent? {
        var event = TraceEvent(kind: .eventDropped, time: 0, thread: 0, runtime: 0)
        var held = HeldTexts()
        if let damage = decodeRecord(
            at: base, strings: strings, kinds: TraceRecordLayout.kinds, into: &event, holding: &held)
        {
            note(damage.message, at: damage.offset)
            return nil
        }
        return event
    }

    /// The string ids of the texts an event decoded into holds (0, the empty string, for a new
    /// one): a text is assigned only when its id changes.
    private struct HeldTexts {
        var label = 0
        var label2 = 0
        var payload = 0
    }

    /// Decodes the record at `base` of the current chunk into `event` (whose texts are those of
    /// `held`), every field of it; when the record is damaged, says what is wrong and where (for
    /// a note), and `event` is then unchanged.
    @inline(__always)
    private func decodeRecord(
        at base: Int, strings: [String], kinds: [TraceEvent.Kind?], into event: inout TraceEvent,
        holding held: inout HeldTexts
    ) -> (message: String, offset: Int)? {
        let b = UnsafeRawBufferPointer(start: payload, count: chunkLength)
        guard let kind = kinds[Int(b[base + Int(CLTTNG_RECORD_KIND)])] else {
            return ("unknown event kind \(b[base])", chunkOffset + base)
        }
        let (label32, label2_32) = TraceRecordLayout.labels(in: b, at: base)
        let label = Int(label32)
        let second = Int(label2_32)
        guard label < strings.count, second < strings.count else {
            return ("event refers to an undefined string", chunkOffset + base)
        }
        TraceRecordLayout.decode(kind, from: b, at: base, into: &event)
        event.process = process
        // A runtimeStart's second text is its host kind; every other kind's is its payload.
        let (label2, payload) = kind == .runtimeStart ? (second, 0) : (0, second)
        if label != held.label {
            event.label = strings[label]
            held.label = label
        }
        if label2 != held.label2 {
            event.label2 = strings[label2]
            held.label2 = label2
        }
        if payload != held.payload {
            event.payload = strings[payload]
            held.payload = payload
        }
        return nil
    }
}
