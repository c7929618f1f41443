/// Encodes events in the binary format (``TraceFileFormat``) as they come, one chunk of
/// ``TraceFileFormat/eventsPerChunk`` events at a time: for writers that never hold a whole trace
/// (``TraceFileWriter/encodeBinary(_:into:)``, trace-view's CTF reading child).
///
/// Memory: one chunk of events and the table of distinct strings seen. Not thread-safe.
package struct TraceFileEncoder {
    /// The host of each process, written with its process chunk; set before that process's
    /// first event is appended.
    package var hosts: [UInt32: String]
    private var out: [UInt8] = []
    private var ids: [String: UInt32] = ["": 0]
    private var pending: [TraceEvent] = []
    private var process: UInt32 = 0
    /// String ids of ring-slot label references (``append(records:process:text:into:)``); payload
    /// generations are not kept (each event has its own), their texts are.
    private var referenceIDs: [UInt64: UInt32] = [0: 0]
    /// The buffer ``append(records:process:text:into:)`` encodes events chunks in.
    private var events: [UInt8] = []
    /// ``append(_:label:label2:text:into:)``'s state: how many of its caller's text numbers are
    /// written, and the events chunk's payload it fills (a count, then ``numberedCount`` records).
    private var numberedStrings: UInt32 = 0
    private var numbered: [UInt8] = []
    private var numberedCount = 0

    /// Starts a file (its header is part of the first buffer handed out).
    package init(hosts: [UInt32: String] = [:]) {
        self.hosts = hosts
        out.reserveCapacity(1 << 17)
        out.append(contentsOf: TraceFileFormat.magic)
        out.appendLE(TraceFileFormat.version)
        out.appendLE(UInt16(0))
        out.appendLE(UInt32(0))
        pending.reserveCapacity(TraceFileFormat.eventsPerChunk)
    }

    package mutating func append(_ event: TraceEvent, into sink: ([UInt8]) -> Void) {
        pending.append(event)
        if pending.count == TraceFileFormat.eventsPerChunk { flush(into: sink) }
    }

    /// Writes what is pending and the footer with `counts`.
    package mutating func finish(counts: TraceCounts, into sink: ([UInt8]) -> Void) {
        flush(into: sink)
        var footer: [UInt8] = []
        var values = [
            counts.events, counts.overwritten, counts.discarded, counts.lost, counts.monotonicOrigin, counts.realtimeOrigin,
        ]
        if counts.slowRequests != 0 || counts.slowDumps != 0 || counts.occasion != .unsaid {
            values += [counts.slowRequests, counts.slowDumps]
        }
        if counts.occasion != .unsaid { values.append(UInt64(counts.occasion.rawValue)) }
        for value in values { footer.appendLE(value) }
        TraceFileWriter.appendChunk(.footer, footer, to: &out)
        sink(out)
        out.removeAll(keepingCapacity: true)
    }

    /// Appends ring-slot records of `process` as events chunks, with no ``TraceEvent`` and no
    /// `String` per event: `text` turns a label reference (`payload` `false`) or a payload
    /// generation (`true`) into its text, once per distinct one. Flushes what was appended
    /// before; `records` must hold at most ``TraceFileFormat/eventsPerChunk`` records.
    package mutating func append(
        records: UnsafeBufferPointer<RawRecord>, process: UInt32, text: (UInt64, _ payload: Bool) -> String,
        into sink: ([UInt8]) -> Void
    ) {
        flush(into: sink)
        guard !records.isEmpty else { return }
        startProcess(process)
        // One pass: each record's labels resolved (a string new to the file goes into `out` as
        // its chunk, which is handed out before the events chunk that uses it), then the record
        // encoded. The events chunk has a buffer of its own, reused from chunk to chunk: a new
        // one a chunk was new pages a chunk, faulted in and zeroed by the kernel, as many bytes
        // as the file. Most events share their label with the one before: the last one resolved
        // is checked before the table, a hash a distinct label, not one an event.
        let size = TraceRecordLayout.size
        let header = TraceFileFormat.chunkHeaderSize
        let length = 4 + records.count * size
        if events.count != header + length { events = [UInt8](repeating: 0, count: header + length) }
        var last: (reference: UInt64, id: UInt32) = (0, 0)
        var chunk = events
        events = []  // `chunk` is the buffer's one reference while it is written
        chunk.withUnsafeMutableBytes { bytes in
            let payload = UnsafeMutableRawBufferPointer(rebasing: bytes[header...])
            payload.storeBytes(of: UInt32(records.count).littleEndian, toByteOffset: 0, as: UInt32.self)
            var offset = 4
            for r in records {
                if r.label != last.reference { last = (r.label, referenceID(r.label, text)) }
                let second =
                    r.label2 == 0
                    ? 0
                    : r.kindCode == TraceEvent.Kind.runtimeStart.rawValue
                        ? referenceID(r.label2, text) : id(text(r.label2, true))
                TraceRecordLayout.encode(r, label: last.id, label2: second, into: payload, at: offset)
                offset += size
            }
            TraceFileWriter.storeChunkHeader(.events, of: UnsafeRawBufferPointer(payload), into: bytes)
        }
        if !out.isEmpty {
            sink(out)
            out.removeAll(keepingCapacity: true)
        }
        sink(chunk)
        events = chunk
    }

    /// Appends `event` with texts its caller numbered: `label` and `label2` (the event's `label`,
    /// `label2` and `payload` are not read) are numbers given out from 1, in the order the texts
    /// are first seen, 0 being the empty text; `text(n)` gives the bytes of number `n`. The
    /// numbers are the file's string ids as they are: each one not yet written is written, in
    /// order and once, before the chunk that first uses it. So no text is hashed here, and no
    /// `String` is made. A file is encoded either this way or by the other appends, not both.
    package mutating func append(
        _ event: TraceEvent, label: UInt32, label2: UInt32, text: (UInt32) -> UnsafeRawBufferPointer,
        into sink: ([UInt8]) -> Void
    ) {
        if event.process != process {
            emitNumbered()
            startProcess(event.process)
        }
        while numberedStrings < max(label, label2) {
            numberedStrings += 1
            appendString(numberedStrings, text(numberedStrings))
        }
        let size = TraceRecordLayout.size
        if numbered.isEmpty { numbered = [UInt8](repeating: 0, count: 4 + TraceFileFormat.eventsPerChunk * size) }
        numbered.withUnsafeMutableBytes {
            TraceRecordLayout.encode(event, label: label, label2: label2, into: $0, at: 4 + numberedCount * size)
        }
        numberedCount += 1
        if numberedCount == TraceFileFormat.eventsPerChunk {
            emitNumbered()
            sink(out)
            out.removeAll(keepingCapacity: true)
        }
    }

    /// Writes the events ``append(_:label:label2:text:into:)`` holds as a chunk into `out`.
    private mutating func emitNumbered() {
        guard numberedCount > 0 else { return }
        let length = 4 + numberedCount * TraceRecordLayout.size
        numbered.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: UInt32(numberedCount).littleEndian, toByteOffset: 0, as: UInt32.self)
            TraceFileWriter.appendChunk(.events, UnsafeRawBufferPointer(rebasing: bytes[..<length]), to: &out)
        }
        numberedCount = 0
    }

    private mutating func referenceID(_ reference: UInt64, _ text: (UInt64, Bool) -> String) -> UInt32 {
        if let id = referenceIDs[reference] { return id }
        let id = id(text(reference, false))
        referenceIDs[reference] = id
        return id
    }

    /// Writes a process chunk when `process` is not the process of the events before.
    private mutating func startProcess(_ process: UInt32) {
        guard process != self.process else { return }
        self.process = process
        var chunk: [UInt8] = []
        chunk.appendLE(process)
        chunk.append(contentsOf: Array(hosts[process, default: ""].utf8).prefix(TraceFileFormat.maxHostBytes))
        TraceFileWriter.appendChunk(.process, chunk, to: &out)
    }

    private mutating func id(_ string: String) -> UInt32 {
        if let id = ids[string] { return id }
        let id = UInt32(ids.count)
        ids[string] = id
        var string = string
        string.withUTF8 { appendString(id, UnsafeRawBufferPointer($0)) }
        return id
    }

    /// Writes string `id` (its first ``TraceFileFormat/maxStringBytes`` bytes) into `out`.
    private mutating func appendString(_ id: UInt32, _ text: UnsafeRawBufferPointer) {
        var payload: [UInt8] = []
        payload.reserveCapacity(4 + min(text.count, TraceFileFormat.maxStringBytes))
        payload.appendLE(id)
        payload.append(contentsOf: text.prefix(TraceFileFormat.maxStringBytes))
        TraceFileWriter.appendChunk(.string, payload, to: &out)
    }

    /// Writes the events appended so far (a live reader calls it while no new data comes, so its
    /// reader sees them without waiting for a full chunk).
    package mutating func flush(into sink: ([UInt8]) -> Void) {
        if numberedCount > 0 {
            emitNumbered()
            sink(out)
            out.removeAll(keepingCapacity: true)
        }
        guard !pending.isEmpty else { return }
        // Strings first, then the records that use them.
        var labelIDs: [(UInt32, UInt32)] = []
        labelIDs.reserveCapacity(pending.count)
        for event in pending {
            let second = event.kind == .runtimeStart ? event.label2 : event.payload
            labelIDs.append((id(event.label), id(second)))
        }
        // A chunk holds one process's events: a new process starts a new chunk after its process
        // chunk.
        var payload: [UInt8] = []
        payload.reserveCapacity(4 + pending.count * TraceFileFormat.recordSize)
        payload.appendLE(UInt32(0))
        var written = 0
        func emit() {
            guard written > 0 else { return }
            payload.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(written).littleEndian, toByteOffset: 0, as: UInt32.self) }
            TraceFileWriter.appendChunk(.events, payload, to: &out)
            payload.removeSubrange(4...)
            written = 0
        }
        for (event, labels) in zip(pending, labelIDs) {
            if event.process != process {
                emit()
                startProcess(event.process)
            }
            written += 1
            let at = payload.count
            payload.append(contentsOf: repeatElement(0, count: TraceRecordLayout.size))
            payload.withUnsafeMutableBytes {
                TraceRecordLayout.encode(event, label: labels.0, label2: labels.1, into: $0, at: at)
            }
        }
        emit()
        pending.removeAll(keepingCapacity: true)
        sink(out)
        out.removeAll(keepingCapacity: true)
    }
}
