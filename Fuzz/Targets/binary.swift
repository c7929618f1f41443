import TraceFuzzHarness

/// libFuzzer entry: the binary trace reader, then every analysis.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBinary(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzHarness.exercise(bytes, reader: .binary)
    return 0
}
