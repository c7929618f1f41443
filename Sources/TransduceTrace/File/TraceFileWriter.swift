import CTraceRing
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Numbers the temporary files of one process, so concurrent writers never share one.
private let temporaryCounter = Atomic<UInt64>(0)

/// Writes a ``Trace`` to a file in the binary format (``TraceFileFormat``) or as JSON Lines.
public enum TraceFileWriter {
    /// A file format, by its usual extension.
    public enum Format: String, Sendable, CaseIterable {
        /// The binary format (``TraceFileFormat``).
        case binary
        /// JSON Lines (``JSONLines``), for files ending in `.jsonl`.
        case jsonLines = "jsonl"
    }

    /// Writes `trace` to `path`: atomically where the path is a regular file or absent (a
    /// temporary file of this call's own, `PATH.tmp-PID-N`, renamed into place, so concurrent
    /// writers of one path never tear it — the last rename wins whole); through a symbolic link
    /// to what it points to (the link stays); in place to a FIFO or a device (see
    /// `FileDestination`).
    public static func write(_ trace: Trace, to path: String, format: Format = .binary) throws {
        try write(to: path) { sink in
            switch format {
            case .binary: encodeBinary(trace, into: sink)
            case .jsonLines: JSONLines.encode(trace, into: sink)
            }
        }
    }

    /// Writes what `encode` hands its sink to `path`, as ``write(_:to:format:)`` does.
    package static func write(to path: String, _ encode: (_ sink: ([UInt8]) -> Void) throws -> Void) throws {
        let destination: FileDestination
        do {
            destination = try FileDestination.resolve(path)
        } catch {
            throw TraceFileError(.cannotWrite, path: path, offset: 0, reason: "cannot write: \(error.reason)")
        }
        let target: String
        var temporary: String?
        switch destination {
        case .atomic(let final):
            target = final
            temporary = final + ".tmp-\(getpid())-\(temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue)"
        case .direct(let path): target = path
        }
        // A crash while the temporary file is written removes it (the crash handler's dump
        // stands in for this one): no empty temporary file is left beside the dump.
        let noted = temporary.map { clttng_temporary_begin($0) } ?? -1
        defer { clttng_temporary_done(noted) }
        let descriptor =
            temporary.map { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
            ?? open(target, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0, let file = fdopen(descriptor, "wb") else {
            let reason = String(cString: strerror(errno))
            throw TraceFileError(.cannotWrite, path: path, offset: 0, reason: "cannot create file: \(reason)")
        }
        var ok = true
        let sink: ([UInt8]) -> Void = { bytes in
            if ok && !bytes.isEmpty { ok = fwrite(bytes, 1, bytes.count, file) == bytes.count }
        }
        do {
            try encode(sink)
        } catch {
            fclose(file)
            if let temporary { unlink(temporary) }
            throw error
        }
        ok = fclose(file) == 0 && ok
        guard ok, temporary.map({ rename($0, target) == 0 }) ?? true else {
            if let temporary { unlink(temporary) }
            throw TraceFileError(.cannotWrite, path: path, offset: 0, reason: "write failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Encodes `trace` in the binary format, ``TraceFileFormat/eventsPerChunk`` events a chunk,
    /// handing out one buffer a chunk.
    public static func encodeBinary(_ trace: Trace, into sink: ([UInt8]) -> Void) {
        var encoder = TraceFileEncoder(hosts: trace.hosts)
        for event in trace.events { encoder.append(event, into: sink) }
        var counts = trace.counts
        counts.events = UInt64(trace.events.count)
        encoder.finish(counts: counts, into: sink)
    }

    /// Stores the header of a chunk tagged `tag` whose payload is `payload` in the first
    /// ``TraceFileFormat/chunkHeaderSize`` bytes of `out`.
    static func storeChunkHeader(
        _ tag: TraceFileFormat.Tag, of payload: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer
    ) {
        out.storeBytes(of: UInt32(tag.rawValue).littleEndian, toByteOffset: 0, as: UInt32.self)
        out.storeBytes(of: UInt32(payload.count).littleEndian, toByteOffset: 4, as: UInt32.self)
        out.storeBytes(of: CRC32.checksum(payload).littleEndian, toByteOffset: 8, as: UInt32.self)
    }

    static func appendChunk(_ tag: TraceFileFormat.Tag, _ payload: [UInt8], to out: inout [UInt8]) {
        payload.withUnsafeBytes { appendChunk(tag, $0, to: &out) }
    }

    static func appendChunk(_ tag: TraceFileFormat.Tag, _ payload: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        let start = out.count
        let header = TraceFileFormat.chunkHeaderSize
        out.append(contentsOf: repeatElement(0, count: header))
        out.append(contentsOf: payload)
        out.withUnsafeMutableBytes { bytes in
            storeChunkHeader(
                tag, of: UnsafeRawBufferPointer(rebasing: bytes[(start + header)...]),
                into: UnsafeMutableRawBufferPointer(rebasing: bytes[start...]))
        }
    }
}
