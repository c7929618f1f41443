import TraceFuzzHarness

/// libFuzzer entry: the decoder of a trace file's index (`TRACE.tdidx`), as it is and with its
/// checksum made right (else nearly every mutation stops at the checksum), then its lookups.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIndex(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzHarness.exerciseIndex(bytes)
    return 0
}
