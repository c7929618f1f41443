import TraceFuzzHarness

/// libFuzzer entry: the JSON Lines reader, then every analysis.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONLines(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzHarness.exercise(bytes, reader: .jsonLines)
    return 0
}
