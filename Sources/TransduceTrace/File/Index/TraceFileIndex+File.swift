#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The index's own file (little-endian throughout), never trusted: a damaged, hostile, forged or
/// stale one is refused (``load(sidecarOf:identity:key:)`` returns why) and rebuilt. Its last 32
/// bytes sign all before them with its user's key (``Key``): an index another user or program
/// wrote does not verify.
///
/// ```
/// magic 8 bytes "\x89TDIDX\r\n", u32 version (2), u32 0
/// identity  u64 size, i64 seconds, i64 nanoseconds, u32 head CRC, u32 tail CRC
/// u64 events, u64 first time + 1 (0: none)
/// u32 n, n × (u32 length, UTF-8)                 notes
/// u32 n, n × (u32 length, UTF-8)                 strings 1...n
/// u32 n, n × (u32 pid, u32 length, UTF-8)         hosts
/// u32 n, n × (u64 offset, u64 position, u32 strings, u32 process)   checkpoints
/// u32 n, n × (u64 runtime, u64 highest dispatch + 1 (0: none))      runtimes
/// u32 n, n × (u32 checkpoint, u32 0, u64 runtime, u64 lowest id, u64 highest id, u64 from)
/// u32 CRC-32 of all the bytes before it
/// 32 bytes HMAC-SHA-256 of all the bytes before it, under the user's key
/// ```
extension TraceFileIndex {
    static let magic: [UInt8] = [0x89, 0x54, 0x44, 0x49, 0x44, 0x58, 0x0D, 0x0A]
    static let version: UInt32 = 2
    /// The bytes of the file's head and tail that its identity checks.
    static let identityBytes = 1 << 20

    /// The identity of the file at `path` as it is now; nil when it cannot be read.
    package static func identity(of path: String) -> Identity? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(info.st_size)
        let span = min(size, identityBytes)
        guard let head = read(descriptor, count: span, at: 0).map(CRC32.checksum),
            let tail = read(descriptor, count: span, at: size - span).map(CRC32.checksum)
        else { return nil }
        #if canImport(Darwin)
            let (seconds, nanoseconds) = (Int64(info.st_mtimespec.tv_sec), Int64(info.st_mtimespec.tv_nsec))
        #else
            let (seconds, nanoseconds) = (Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec))
        #endif
        return Identity(
            size: UInt64(size), seconds: seconds, nanoseconds: nanoseconds, headChecksum: head, tailChecksum: tail)
    }

    /// `count` bytes of `descriptor` from byte `offset`; nil when it has fewer or reading fails.
    private static func read(_ descriptor: Int32, count: Int, at offset: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            filled += n
        }
        return bytes
    }

    /// The index's bytes, signed with `key`.
    package func encoded(key: Key) -> [UInt8] {
        var b: [UInt8] = Self.magic
        // Its size known, reserved: grown by doubling, the bytes of 1.1 million spans (48 MB) were
        // held twice and more while they were written.
        func size(_ texts: some Sequence<String>) -> Int { texts.reduce(0) { $0 + 4 + $1.utf8.count } }
        let texts = size(notes) + size(strings.dropFirst()) + size(hosts.values)
        b.reserveCapacity(
            b.count + 56 + 4 * 6 + texts + 4 * hosts.count + 24 * checkpoints.count + 16 * runtimes.count
                + 40 * spans.count + 4 + 32)
        b.appendLE(Self.version)
        b.appendLE(UInt32(0))
        b.appendLE(identity.size)
        b.appendLE(identity.seconds)
        b.appendLE(identity.nanoseconds)
        b.appendLE(identity.headChecksum)
        b.appendLE(identity.tailChecksum)
        b.appendLE(UInt64(events))
        b.appendLE(firstTime.map { $0 &+ 1 } ?? 0)
        func text(_ s: String) {
            b.appendLE(UInt32(s.utf8.count))
            b += s.utf8
        }
        b.appendLE(UInt32(notes.count))
        notes.forEach(text)
        b.appendLE(UInt32(strings.count - 1))
        strings.dropFirst().forEach(text)
        b.appendLE(UInt32(hosts.count))
        for (pid, host) in hosts.sorted(by: { $0.key < $1.key }) {
            b.appendLE(pid)
            text(host)
        }
        b.appendLE(UInt32(checkpoints.count))
        for c in checkpoints {
            b.appendLE(UInt64(c.offset))
            b.appendLE(UInt64(c.position))
            b.appendLE(UInt32(c.strings))
            b.appendLE(c.process)
        }
        b.appendLE(UInt32(runtimes.count))
        for runtime in runtimes {
            b.appendLE(runtime.key.rawValue)
            b.appendLE(runtime.highestDispatch.map { $0 &+ 1 } ?? 0)
        }
        b.appendLE(UInt32(spans.count))
        for s in spans {
            b.appendLE(UInt32(s.checkpoint))
            b.appendLE(UInt32(0))
            b.appendLE(s.runtime.rawValue)
            b.appendLE(s.dispatches.lowerBound)
            b.appendLE(s.dispatches.upperBound)
            b.appendLE(UInt64(s.from))
        }
        b.appendLE(CRC32.checksum(b))
        b += key.sign(b)
        return b
    }

    /// Why an index's bytes were refused.
    package struct Refusal: Error, Equatable, CustomStringConvertible {
        package var description: String
        /// An index of another version of trace-view: rebuilt without a word.
        package var isStale = false
        /// Not signed with this user's key: forged, or another user's.
        package var isForgery = false
        /// Something else than a regular file holds the index's name (left alone, and not worth a
        /// word: it cannot mislead a view).
        package var isNotAFile = false
    }

    /// Decodes bytes ``encoded(key:)`` made with `key`; throws ``Refusal`` for anything else
    /// (``Refusal/isForgery`` when the signature is not `key`'s), allocating no more than the
    /// bytes' size justifies.
    package init(decoding signed: [UInt8], key: Key) throws {
        guard signed.count >= Self.magic.count + 12 + 32, Array(signed.prefix(Self.magic.count)) == Self.magic else {
            throw Refusal(description: "not a trace index")
        }
        guard signed.withUnsafeBytes({ $0.le(Self.magic.count, as: UInt32.self) }) == Self.version else {
            throw Refusal(description: "an index of another version", isStale: true)
        }
        // The signed bytes are read where they are: an index can be tens of MB, and each copy
        // (to sign, to checksum) was one more of it at once.
        let body = signed.count - 32
        let signature = signed.withUnsafeBytes { key.sign(UnsafeRawBufferPointer(rebasing: $0[..<body])) }
        // Compared in full, whatever differs (no early exit a timer could read).
        guard zip(signature, signed[body...]).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw Refusal(
                description: "its signature is not this user's (it was not written by this user's trace-view)", isForgery: true)
        }
        var r = Cursor(bytes: signed)
        let (stored, computed) = signed.withUnsafeBytes {
            ($0.le(body - 4, as: UInt32.self), CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[..<(body - 4)])))
        }
        guard computed == stored else { throw Refusal(description: "checksum mismatch") }
        r.at = Self.magic.count
        guard try r.u32() == Self.version, try r.u32() == 0 else { throw Refusal(description: "unknown index version") }
        r.end = body - 4
        let identity = Identity(
            size: try r.u64(), seconds: Int64(bitPattern: try r.u64()), nanoseconds: Int64(bitPattern: try r.u64()),
            headChecksum: try r.u32(), tailChecksum: try r.u32())
        let events = try r.count(of: try r.u64())
        let first = try r.u64()
        let notes = try r.list(minimum: 4) { try $0.text() }
        let strings = [""] + (try r.list(minimum: 4) { try $0.text() })
        var hosts: [UInt32: String] = [:]
        for (pid, host) in try r.list(minimum: 8, { (try $0.u32(), try $0.text()) }) { hosts[pid] = host }
        let checkpoints = try r.list(minimum: 24) {
            TraceFileReader.Resume(
                offset: try $0.count(of: $0.u64()), position: try $0.count(of: $0.u64()), strings: Int(try $0.u32()),
                process: try $0.u32())
        }
        let runtimes = try r.list(minimum: 16) { r in
            let (key, highest) = (try r.u64(), try r.u64())
            return Runtime(key: RuntimeKey(rawValue: key), highestDispatch: highest == 0 ? nil : highest - 1)
        }
        var spans = Spans()
        try r.each(minimum: 40) { r in
            let checkpoint = Int(try r.u32())
            _ = try r.u32()
            let runtime = try r.u64()
            let (low, high) = (try r.u64(), try r.u64())
            let from = try r.count(of: r.u64())
            guard low <= high, checkpoint < checkpoints.count else { throw Refusal(description: "impossible span") }
            spans.append(Span(checkpoint: checkpoint, runtime: RuntimeKey(rawValue: runtime), dispatches: low...high, from: from))
        }
        guard r.at == r.end else { throw Refusal(description: "bytes after the spans") }
        // What a reader would trust: places in order, within the file, after strings that exist.
        for (a, b) in zip(checkpoints, checkpoints.dropFirst()) where !(a.offset < b.offset && a.position <= b.position) {
            throw Refusal(description: "checkpoints out of order")
        }
        for c in checkpoints
        where c.strings >= strings.count || c.offset < TraceFileFormat.headerSize || UInt64(c.offset) >= identity.size
            || c.position > events
        {
            throw Refusal(description: "a checkpoint outside the file")
        }
        self.init(
            identity: identity, events: events, firstTime: first == 0 ? nil : first - 1, notes: notes, strings: strings,
            hosts: hosts, checkpoints: checkpoints, spans: spans, runtimes: runtimes)
    }

    /// Reads over an index's bytes, refusing to run past them.
    private struct Cursor {
        let bytes: [UInt8]
        var at = 0
        var end: Int

        init(bytes: [UInt8]) {
            self.bytes = bytes
            end = bytes.count
        }

        mutating func take<T: FixedWidthInteger>(_: T.Type) throws -> T {
            let size = MemoryLayout<T>.size
            guard end - at >= size else { throw Refusal(description: "truncated") }
            defer { at += size }
            return bytes.withUnsafeBytes { $0.le(at, as: T.self) }
        }
        mutating func u32() throws -> UInt32 { try take(UInt32.self) }
        mutating func u64() throws -> UInt64 { try take(UInt64.self) }
        /// A count or position that must fit an `Int`.
        func count(of value: UInt64) throws -> Int {
            guard value <= UInt64(Int.max / 2) else { throw Refusal(description: "impossible count") }
            return Int(value)
        }
        mutating func text() throws -> String {
            let length = Int(try u32())
            guard end - at >= length else { throw Refusal(description: "truncated") }
            defer { at += length }
            return String(decoding: bytes[at..<at + length], as: UTF8.self)
        }
        /// A u32 count, then that many items of at least `minimum` bytes each.
        mutating func list<T>(minimum: Int, _ item: (inout Cursor) throws -> T) throws -> [T] {
            let n = try count(minimum: minimum)
            var out: [T] = []
            out.reserveCapacity(n)
            for _ in 0..<n { out.append(try item(&self)) }
            return out
        }

        /// A u32 count, then that many items of at least `minimum` bytes each, each read by `item`.
        mutating func each(minimum: Int, _ item: (inout Cursor) throws -> Void) throws {
            for _ in 0..<(try count(minimum: minimum)) { try item(&self) }
        }

        /// A u32 count of items of at least `minimum` bytes each, checked against what is left.
        private mutating func count(minimum: Int) throws -> Int {
            let n = Int(try u32())
            guard n <= (end - at) / minimum else { throw Refusal(description: "a count larger than the index") }
            return n
        }
    }

    /// The index kept beside the trace at `path` if this user's trace-view wrote it (signed with
    /// `key`) and it describes the file as it is now; else why not, when that is worth saying:
    /// `refused` is nil when there is no index or it is merely stale (the trace changed, or an
    /// older trace-view wrote it), and says so for one that is forged, damaged or not a regular
    /// file. Without a key nothing is trusted.
    package static func load(
        sidecarOf path: String, identity: Identity, key: Key? = Key.current
    ) -> (index: TraceFileIndex?, refused: Refusal?) {
        let sidecar = sidecarPath(of: path)
        // Not a link, FIFO or device (opening one for reading must not block, reading it must not
        // hang), and no larger than an index of this trace can be.
        var link = stat()
        guard lstat(sidecar, &link) == 0 else { return (nil, nil) }
        let notAFile = Refusal(description: "\(sidecar) is not a regular file", isNotAFile: true)
        guard (link.st_mode & S_IFMT) == S_IFREG else { return (nil, notAFile) }
        guard let key else { return (nil, nil) }
        let descriptor = open(sidecar, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else { return (nil, nil) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return (nil, notAFile)
        }
        let limit = Int(min(identity.size, UInt64(Int.max / 4))) + (64 << 20)
        guard info.st_size <= limit else {
            return (nil, Refusal(description: "\(sidecar) is larger than an index of this trace"))
        }
        guard let bytes = read(descriptor, count: Int(info.st_size), at: 0) else {
            return (nil, Refusal(description: "\(sidecar): cannot read it"))
        }
        do {
            let index = try TraceFileIndex(decoding: bytes, key: key)
            guard index.identity == identity else { return (nil, nil) }
            return (index, nil)
        } catch let refusal as Refusal where refusal.isStale {
            return (nil, nil)
        } catch let refusal as Refusal {
            var said = refusal
            said.description = "\(sidecar): \(refusal.description)"
            return (nil, said)
        } catch {
            return (nil, Refusal(description: "\(sidecar): \(error)"))
        }
    }

    /// Keeps the index beside the trace at `path`, signed with `key`: written to a new file that
    /// then replaces the old index, which must be a regular file (a link, FIFO, device or
    /// directory at that name is left as it is, and no index is kept). Returns why not, if it
    /// could not (a read-only directory, no key: the index serves this run only).
    @discardableResult
    package func save(sidecarOf path: String, key: Key? = Key.current) -> String? {
        guard let key else { return "no key to sign an index with (see TRACE_VIEW_INDEX_KEY)" }
        let sidecar = Self.sidecarPath(of: path)
        var existing = stat()
        if lstat(sidecar, &existing) == 0, (existing.st_mode & S_IFMT) != S_IFREG {
            return "\(sidecar) is not a regular file: left as it is"
        }
        let temporary = sidecar + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { return "cannot write \(temporary): \(String(cString: strerror(errno)))" }
        let bytes = encoded(key: key)
        var failure: String?
        if !bytes.withUnsafeBytes({ writeAll(descriptor, $0) }) {
            failure = "cannot write \(temporary): \(String(cString: strerror(errno)))"
        }
        if close(descriptor) != 0 && failure == nil { failure = "cannot write \(temporary): \(String(cString: strerror(errno)))" }
        if failure == nil && rename(temporary, sidecar) != 0 {
            failure = "cannot replace \(sidecar): \(String(cString: strerror(errno)))"
        }
        if failure != nil { unlink(temporary) }
        return failure
    }
}
