import CLTTng

/// One event record of the binary trace file (``TraceFileFormat``): the byte offsets of its
/// fields, from `clttng_format.h`, and the one encoder and decoder that every Swift writer and
/// reader uses (the crash dump's C encoder uses the same offsets; the tests compare its bytes with
/// these).
///
/// Little-endian throughout. `label` and `label2` are string ids of the file's string chunks.
enum TraceRecordLayout {
    static let size = Int(CLTTNG_RECORD_SIZE)

    /// Writes `event` with string ids `label` and `label2` at `offset` of `out`, which must hold
    /// ``size`` bytes there.
    static func encode(
        _ event: TraceEvent, label: UInt32, label2: UInt32, into out: UnsafeMutableRawBufferPointer, at offset: Int
    ) {
        func put<T: FixedWidthInteger>(_ value: T, _ field: Int) {
            out.storeBytes(of: value.littleEndian, toByteOffset: offset + field, as: T.self)
        }
        put(event.kind.rawValue, Int(CLTTNG_RECORD_KIND))
        put(event.code, Int(CLTTNG_RECORD_CODE))
        put(event.code2, Int(CLTTNG_RECORD_CODE2))
        put(UInt8(0), Int(CLTTNG_RECORD_CODE2) + 1)
        put(event.step, Int(CLTTNG_RECORD_STEP))
        put(event.time, Int(CLTTNG_RECORD_TIME))
        put(event.runtime, Int(CLTTNG_RECORD_RUNTIME))
        put(event.dispatch, Int(CLTTNG_RECORD_DISPATCH))
        put(event.cycle, Int(CLTTNG_RECORD_CYCLE))
        put(event.task, Int(CLTTNG_RECORD_TASK))
        put(event.otherTask, Int(CLTTNG_RECORD_OTHER_TASK))
        put(event.nanos, Int(CLTTNG_RECORD_NANOS))
        put(event.count, Int(CLTTNG_RECORD_COUNT))
        put(event.thread, Int(CLTTNG_RECORD_THREAD))
        put(label, Int(CLTTNG_RECORD_LABEL))
        put(label2, Int(CLTTNG_RECORD_LABEL2))
    }

    /// The string ids of the record at `offset`.
    static func labels(in bytes: UnsafeRawBufferPointer, at offset: Int) -> (UInt32, UInt32) {
        (bytes.le(offset + Int(CLTTNG_RECORD_LABEL)), bytes.le(offset + Int(CLTTNG_RECORD_LABEL2)))
    }

    /// The record at `offset` as an event of `kind` (already checked), without its labels.
    static func decode(_ kind: TraceEvent.Kind, from b: UnsafeRawBufferPointer, at offset: Int) -> TraceEvent {
        var event = TraceEvent(
            kind: kind, time: b.le(offset + Int(CLTTNG_RECORD_TIME)), thread: b.le(offset + Int(CLTTNG_RECORD_THREAD)),
            runtime: b.le(offset + Int(CLTTNG_RECORD_RUNTIME)))
        event.code = b[offset + Int(CLTTNG_RECORD_CODE)]
        event.code2 = b[offset + Int(CLTTNG_RECORD_CODE2)]
        event.step = b.le(offset + Int(CLTTNG_RECORD_STEP))
        event.dispatch = b.le(offset + Int(CLTTNG_RECORD_DISPATCH))
        event.cycle = b.le(offset + Int(CLTTNG_RECORD_CYCLE))
        event.task = b.le(offset + Int(CLTTNG_RECORD_TASK))
        event.otherTask = b.le(offset + Int(CLTTNG_RECORD_OTHER_TASK))
        event.nanos = b.le(offset + Int(CLTTNG_RECORD_NANOS))
        event.count = b.le(offset + Int(CLTTNG_RECORD_COUNT))
        return event
    }
}
