/// The events a ``BreakdownKeeper`` keeps, with their positions, packed into bytes: each event's
/// fields that are not zero or empty, as varints after a mask that names them, its position and
/// time relative to the first event kept, its texts as UTF-8; and where each one starts. About
/// 30 bytes an event where a ``TraceEvent`` and its position took 136, and a struct of the same
/// fields 96: at 10M events in 78,126 runtimes the requests' breakdowns keep 500,000 events at
/// once, the largest share of what the CSV requests table, `diff` and the OTLP export peak at.
///
/// Every event's runtime and process are the same (the keeper's: set by the first appended).
/// Indices are stable while events are only appended or dropped from the front: the events are
/// `startIndex..<endIndex`, and the storage of dropped ones goes in bulk (``removeFirst(upTo:)``).
struct KeptEvents {
    /// The events' encodings, one after another.
    private var bytes: [UInt8] = []
    /// Where each event's encoding starts in `bytes`.
    private var offsets: [Int] = []
    /// The first event not dropped.
    private(set) var startIndex = 0
    /// Positions and times are kept relative to these: the first event's since the store was
    /// last empty.
    private var basePosition = 0
    private var baseTime: UInt64 = 0
    private var runtime: UInt64 = 0
    private var process: UInt32 = 0

    init() {}

    var endIndex: Int { offsets.count }
    /// How many events are kept.
    var count: Int { offsets.count - startIndex }
    var isEmpty: Bool { count == 0 }
    /// The bytes its events take (their encodings and where each starts).
    var storedBytes: Int { bytes.count + offsets.count * MemoryLayout<Int>.stride }

    /// Which fields an encoding holds (those not zero or empty), in this order after the
    /// position, the kind, the mask and the time.
    private enum Field: UInt64 {
        case dispatch, cycle, task, otherTask, nanos, thread, step, count, code, code2, label, label2, payload
        var bit: UInt64 { 1 << rawValue }
    }

    /// Keeps `e` at `position`, which is after every position kept.
    mutating func append(_ e: TraceEvent, at position: Int) {
        if offsets.isEmpty { (basePosition, baseTime, runtime, process) = (position, e.time, e.runtime, e.process) }
        offsets.append(bytes.count)
        var mask: UInt64 = 0
        if e.dispatch != 0 { mask |= Field.dispatch.bit }
        if e.cycle != 0 { mask |= Field.cycle.bit }
        if e.task != 0 { mask |= Field.task.bit }
        if e.otherTask != 0 { mask |= Field.otherTask.bit }
        if e.nanos != 0 { mask |= Field.nanos.bit }
        if e.thread != 0 { mask |= Field.thread.bit }
        if e.step != 0 { mask |= Field.step.bit }
        if e.count != 0 { mask |= Field.count.bit }
        if e.code != 0 { mask |= Field.code.bit }
        if e.code2 != 0 { mask |= Field.code2.bit }
        if !e.label.isEmpty { mask |= Field.label.bit }
        if !e.label2.isEmpty { mask |= Field.label2.bit }
        if !e.payload.isEmpty { mask |= Field.payload.bit }
        ProtobufBuffer.varint(UInt64(position - basePosition), into: &bytes)
        bytes.append(e.kind.rawValue)
        ProtobufBuffer.varint(mask, into: &bytes)
        // Zigzag: an event of another thread can be stamped before the first kept.
        let delta = Int64(bitPattern: e.time &- baseTime)
        ProtobufBuffer.varint(UInt64(bitPattern: delta << 1 ^ delta >> 63), into: &bytes)
        if mask & Field.dispatch.bit != 0 { ProtobufBuffer.varint(e.dispatch, into: &bytes) }
        if mask & Field.cycle.bit != 0 { ProtobufBuffer.varint(e.cycle, into: &bytes) }
        if mask & Field.task.bit != 0 { ProtobufBuffer.varint(e.task, into: &bytes) }
        if mask & Field.otherTask.bit != 0 { ProtobufBuffer.varint(e.otherTask, into: &bytes) }
        if mask & Field.nanos.bit != 0 { ProtobufBuffer.varint(e.nanos, into: &bytes) }
        if mask & Field.thread.bit != 0 { ProtobufBuffer.varint(UInt64(e.thread), into: &bytes) }
        if mask & Field.step.bit != 0 { ProtobufBuffer.varint(UInt64(e.step), into: &bytes) }
        if mask & Field.count.bit != 0 { ProtobufBuffer.varint(UInt64(e.count), into: &bytes) }
        if mask & Field.code.bit != 0 { bytes.append(e.code) }
        if mask & Field.code2.bit != 0 { bytes.append(e.code2) }
        if mask & Field.label.bit != 0 { append(e.label) }
        if mask & Field.label2.bit != 0 { append(e.label2) }
        if mask & Field.payload.bit != 0 { append(e.payload) }
    }

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            ProtobufBuffer.varint(UInt64(utf8.count), into: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    /// The position of the event at `index`.
    func position(at index: Int) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(buffer: buffer, at: offsets[index])
            return basePosition + Int(reader.varint())
        }
    }

    /// The event at `index`, with its position.
    subscript(index: Int) -> (position: Int, event: TraceEvent) {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(buffer: buffer, at: offsets[index])
            let position = basePosition + Int(reader.varint())
            // Only ever a kind's raw value was written.
            let kind = TraceEvent.Kind(rawValue: reader.byte())!
            let mask = reader.varint()
            let zigzag = reader.varint()
            let delta = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
            var e = TraceEvent(kind: kind, time: baseTime &+ UInt64(bitPattern: delta), thread: 0, runtime: runtime)
            e.process = process
            if mask & Field.dispatch.bit != 0 { e.dispatch = reader.varint() }
            if mask & Field.cycle.bit != 0 { e.cycle = reader.varint() }
            if mask & Field.task.bit != 0 { e.task = reader.varint() }
            if mask & Field.otherTask.bit != 0 { e.otherTask = reader.varint() }
            if mask & Field.nanos.bit != 0 { e.nanos = reader.varint() }
            if mask & Field.thread.bit != 0 { e.thread = UInt32(truncatingIfNeeded: reader.varint()) }
            if mask & Field.step.bit != 0 { e.step = UInt32(truncatingIfNeeded: reader.varint()) }
            if mask & Field.count.bit != 0 { e.count = UInt32(truncatingIfNeeded: reader.varint()) }
            if mask & Field.code.bit != 0 { e.code = reader.byte() }
            if mask & Field.code2.bit != 0 { e.code2 = reader.byte() }
            if mask & Field.label.bit != 0 { e.label = reader.text() }
            if mask & Field.label2.bit != 0 { e.label2 = reader.text() }
            if mask & Field.payload.bit != 0 { e.payload = reader.text() }
            return (position, e)
        }
    }

    /// Reads an encoding (written by ``append(_:at:)``: never past its end).
    private struct Reader {
        let buffer: UnsafeBufferPointer<UInt8>
        var at: Int

        mutating func byte() -> UInt8 {
            defer { at += 1 }
            return buffer[at]
        }

        mutating func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = byte()
                value |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return value }
                shift += 7
            }
        }

        mutating func text() -> String {
            let n = Int(varint())
            defer { at += n }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[at..<(at + n)]), as: UTF8.self)
        }
    }

    /// The index of the first event at or after `position` (binary search).
    func firstIndex(atOrAfter position: Int) -> Int {
        (startIndex..<endIndex).partitionPoint { self.position(at: $0) >= position }
    }

    /// Drops the events before `index`. Their storage goes once they are more than half of it
    /// (each event is moved at most once per halving), or all of it.
    mutating func removeFirst(upTo index: Int) {
        startIndex = max(startIndex, index)
        if startIndex == endIndex {
            self = KeptEvents()
        } else if startIndex >= 64 && startIndex * 2 > offsets.count {
            rebuild(capacity: false)
        }
    }

    /// Keeps only the events whose positions `keep` accepts.
    mutating func removeAll(keeping keep: (Int) -> Bool) {
        var kept = KeptEvents()
        (kept.basePosition, kept.baseTime, kept.runtime, kept.process) = (basePosition, baseTime, runtime, process)
        for i in startIndex..<endIndex where keep(position(at: i)) {
            kept.offsets.append(kept.bytes.count)
            kept.bytes += bytes[offsets[i]..<end(of: i)]
        }
        self = kept.isEmpty ? KeptEvents() : kept
    }

    /// Moves what is kept to storage of its own size (a trimmed array keeps the capacity of its
    /// longest run), when it is much less.
    mutating func shrink() {
        guard startIndex > 0 || bytes.capacity > 2 * bytes.count + 64 || offsets.capacity > 2 * offsets.count + 8 else {
            return
        }
        rebuild(capacity: true)
    }

    private func end(of index: Int) -> Int { index + 1 < offsets.count ? offsets[index + 1] : bytes.count }

    /// The events from `startIndex` on in new storage (of their size when `capacity`).
    private mutating func rebuild(capacity: Bool) {
        guard !isEmpty else {
            self = KeptEvents()
            return
        }
        let cut = offsets[startIndex]
        if capacity {
            bytes = Array(bytes[cut...])
            offsets = offsets[startIndex...].map { $0 - cut }
        } else {
            bytes.removeFirst(cut)
            offsets.removeFirst(startIndex)
            for i in offsets.indices { offsets[i] -= cut }
        }
        startIndex = 0
    }
}
