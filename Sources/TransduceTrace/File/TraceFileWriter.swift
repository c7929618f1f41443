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
    public enum Format: String, Sendable, CaseIterable {
        case binary
        case jsonLines = "jsonl"
    }

    /// Writes `trace` to `path` atomically: a temporary file of this call's own
    /// (`PATH.tmp-PID-N`) renamed into place, so concurrent writers of one path never tear it —
    /// the last rename wins whole.
    public static func write(_ trace: Trace, to path: String, format: Format = .binary) throws {
        let temporary = path + ".tmp-\(getpid())-\(temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0, let file = fdopen(descriptor, "wb") else {
            let reason = String(cString: strerror(errno))
            throw TraceFileError(path: path, offset: 0, reason: "cannot create file: \(reason)")
        }
        var ok = true
        let sink: ([UInt8]) -> Void = { bytes in
            if ok && !bytes.isEmpty { ok = fwrite(bytes, 1, bytes.count, file) == bytes.count }
        }
        switch format {
        case .binary: encodeBinary(trace, into: sink)
        case .jsonLines: JSONLines.encode(trace, into: sink)
        }
        ok = fclose(file) == 0 && ok
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw TraceFileError(path: path, offset: 0, reason: "write failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Encodes `trace` in the binary format, ``TraceFileFormat/eventsPerChunk`` events a chunk,
    /// handing out one buffer a chunk.
    public static func encodeBinary(_ trace: Trace, into sink: ([UInt8]) -> Void) {
        var out: [UInt8] = []
        out.reserveCapacity(1 << 17)
        out.append(contentsOf: TraceFileFormat.magic)
        out.appendLE(TraceFileFormat.version)
        out.appendLE(UInt16(0))
        out.appendLE(UInt32(0))
        var ids: [String: UInt32] = ["": 0]
        func id(_ string: String) -> UInt32 {
            if let id = ids[string] { return id }
            var bytes = Array(string.utf8)
            if bytes.count > TraceFileFormat.maxStringBytes {
                bytes = Array(bytes.prefix(TraceFileFormat.maxStringBytes))
            }
            let id = UInt32(ids.count)
            ids[string] = id
            var payload: [UInt8] = []
            payload.appendLE(id)
            payload.append(contentsOf: bytes)
            appendChunk(.string, payload, to: &out)
            return id
        }
        var index = 0
        let events = trace.events
        while index < events.count {
            let chunk = events[index..<min(events.count, index + TraceFileFormat.eventsPerChunk)]
            index += chunk.count
            // Strings first, then the records that use them.
            var labelIDs: [(UInt32, UInt32)] = []
            labelIDs.reserveCapacity(chunk.count)
            for event in chunk {
                let second = event.kind == .runtimeStart ? event.label2 : event.payload
                labelIDs.append((id(event.label), id(second)))
            }
            var payload: [UInt8] = []
            payload.reserveCapacity(4 + chunk.count * TraceFileFormat.recordSize)
            payload.appendLE(UInt32(chunk.count))
            for (event, labels) in zip(chunk, labelIDs) {
                payload.append(event.kind.rawValue)
                payload.append(event.code)
                payload.append(event.code2)
                payload.append(0)
                payload.appendLE(event.step)
                payload.appendLE(event.time)
                payload.appendLE(event.runtime)
                payload.appendLE(event.dispatch)
                payload.appendLE(event.cycle)
                payload.appendLE(event.task)
                payload.appendLE(event.otherTask)
                payload.appendLE(event.nanos)
                payload.appendLE(event.count)
                payload.appendLE(event.thread)
                payload.appendLE(labels.0)
                payload.appendLE(labels.1)
            }
            appendChunk(.events, payload, to: &out)
            sink(out)
            out.removeAll(keepingCapacity: true)
        }
        var footer: [UInt8] = []
        let c = trace.counts
        for value in [UInt64(events.count), c.overwritten, c.discarded, c.lost, c.monotonicOrigin, c.realtimeOrigin] {
            footer.appendLE(value)
        }
        appendChunk(.footer, footer, to: &out)
        sink(out)
    }

    private static func appendChunk(_ tag: TraceFileFormat.Tag, _ payload: [UInt8], to out: inout [UInt8]) {
        out.append(tag.rawValue)
        out.append(contentsOf: [0, 0, 0])
        out.appendLE(UInt32(payload.count))
        out.appendLE(CRC32.checksum(payload))
        out.append(contentsOf: payload)
    }
}
