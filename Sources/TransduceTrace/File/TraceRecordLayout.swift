import CTraceRing

/// One event record of the binary trace file (``TraceFileFormat``): the byte offsets of its
/// fields, from `clttng_format.h`, and the one encoder and decoder that every Swift writer and
/// reader uses (the crash dump's C encoder uses the same offsets; the tests compare its bytes with
/// these).
///
/// Little-endian throughout. `label` and `label2` are string ids of the file's string chunks.
enum TraceRecordLayout {
    static let size = Int(CLTTNG_RECORD_SIZE)

    /// The kind each value of a record's kind byte names, if any: a load, where
    /// `Kind(rawValue:)` is a call into another module (7% of a reader's loop).
    static let kinds: [TraceEvent.Kind?] = (0...255).map { TraceEvent.Kind(rawValue: UInt8($0)) }

    /// Writes `event` with string ids `label` and `label2` at `offset` of `out`, which must hold
    /// ``size`` bytes there.
    static func encode(
        _ event: TraceEvent, label: UInt32, label2: UInt32, into out: UnsafeMutableRawBufferPointer, at offset: Int
    ) {
        var r = RawRecord()
        r.kindCode = event.kind.rawValue
        r.code = event.code
        r.code2 = event.code2
        r.step = event.step
        r.time = event.time
        r.runtime = event.runtime
        r.dispatch = event.dispatch
        r.cycle = event.cycle
        r.task = event.task
        r.otherTask = event.otherTask
        r.nanos = event.nanos
        r.count = event.count
        r.thread = event.thread
        encode(r, label: label, label2: label2, into: out, at: offset)
    }

    /// Writes ring-slot record `r` with string ids `label` and `label2` (in place of its label
    /// references) at `offset` of `out`, which must hold ``size`` bytes there.
    static func encode(
        _ r: RawRecord, label: UInt32, label2: UInt32, into out: UnsafeMutableRawBufferPointer, at offset: Int
    ) {
        func put<T: FixedWidthInteger>(_ value: T, _ field: Int) {
            out.storeBytes(of: value.littleEndian, toByteOffset: offset + field, as: T.self)
        }
        // The record's first 72 bytes are the slot's words 0 to 8, little-endian (byte 3, the
        // one word 0 leaves unused, is 0): a word a store, not a field.
        put(r.words.0 & ~0xFF00_0000, Int(CLTTNG_RECORD_KIND))
        put(r.time, Int(CLTTNG_RECORD_TIME))
        put(r.runtime, Int(CLTTNG_RECORD_RUNTIME))
        put(r.dispatch, Int(CLTTNG_RECORD_DISPATCH))
        put(r.cycle, Int(CLTTNG_RECORD_CYCLE))
        put(r.task, Int(CLTTNG_RECORD_TASK))
        put(r.otherTask, Int(CLTTNG_RECORD_OTHER_TASK))
        put(r.nanos, Int(CLTTNG_RECORD_NANOS))
        put(r.words.8, Int(CLTTNG_RECORD_COUNT))
        put(label, Int(CLTTNG_RECORD_LABEL))
        put(label2, Int(CLTTNG_RECORD_LABEL2))
    }

    /// The string ids of the record at `offset`.
    static func labels(in bytes: UnsafeRawBufferPointer, at offset: Int) -> (UInt32, UInt32) {
        (bytes.le(offset + Int(CLTTNG_RECORD_LABEL)), bytes.le(offset + Int(CLTTNG_RECORD_LABEL2)))
    }

    /// The record at `offset` as an event of `kind` (already checked), without its labels.
    static func decode(_ kind: TraceEvent.Kind, from b: UnsafeRawBufferPointer, at offset: Int) -> TraceEvent {
        var event = TraceEvent(kind: kind, time: 0, runtime: 0)
        decode(kind, from: b, at: offset, into: &event)
        return event
    }

    /// Writes every field but the texts of the record at `offset` (of `kind`, already checked)
    /// into `event`, whose texts stay as they were: a reader decoding into one event again and
    /// again assigns a text only when its id changes (assigning the whole event released and
    /// retained its three strings every time, 7% of `summary`).
    @inline(__always)
    static func decode(_ kind: TraceEvent.Kind, from b: UnsafeRawBufferPointer, at offset: Int, into event: inout TraceEvent) {
        event.kind = kind
        event.time = b.le(offset + Int(CLTTNG_RECORD_TIME))
        event.thread = b.le(offset + Int(CLTTNG_RECORD_THREAD))
        event.runtime = b.le(offset + Int(CLTTNG_RECORD_RUNTIME))
        event.code = b[offset + Int(CLTTNG_RECORD_CODE)]
        event.code2 = b[offset + Int(CLTTNG_RECORD_CODE2)]
        event.step = b.le(offset + Int(CLTTNG_RECORD_STEP))
        event.dispatch = b.le(offset + Int(CLTTNG_RECORD_DISPATCH))
        event.cycle = b.le(offset + Int(CLTTNG_RECORD_CYCLE))
        event.task = b.le(offset + Int(CLTTNG_RECORD_TASK))
        event.otherTask = b.le(offset + Int(CLTTNG_RECORD_OTHER_TASK))
        event.nanos = b.le(offset + Int(CLTTNG_RECORD_NANOS))
        event.count = b.le(offset + Int(CLTTNG_RECORD_COUNT))
    }
}
