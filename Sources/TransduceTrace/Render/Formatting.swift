/// Formats nanoseconds for people: `850ns`, `12.4µs`, `3.20ms`, `1.52s`.
package func formatDuration(_ nanos: UInt64, ascii: Bool = false) -> String {
    let n = Double(nanos)
    switch nanos {
    case 0..<1_000: return "\(nanos)ns"
    case 1_000..<1_000_000: return trimmed(n / 1_000) + (ascii ? "us" : "µs")
    case 1_000_000..<1_000_000_000: return trimmed(n / 1_000_000) + "ms"
    default: return trimmed(n / 1_000_000_000) + "s"
    }
}

private func trimmed(_ value: Double) -> String {
    let digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
    return format(value, decimals: digits)
}

/// `value` with a fixed number of decimals, without Foundation.
package func format(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded()
    let negative = rounded < 0
    // Values a trace can hold but a UInt64 of scaled digits cannot (hostile or wrapped times):
    // Swift's own shortest representation rather than a trap.
    guard abs(rounded) < 0x1p64 else { return "\(value)" }
    let magnitude = UInt64(abs(rounded))
    let whole = magnitude / UInt64(scale)
    var text = (negative ? "-" : "") + String(whole)
    if decimals > 0 {
        let fraction = String(magnitude % UInt64(scale))
        text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
    return text
}

/// Pads or cuts `text` to `width` display columns (``StringProtocol/displayColumns``).
package func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let count = text.displayColumns
    if count > width { return pad(text.prefix(columns: width), width, right: right) }
    if count == width { return text }
    let fill = String(repeating: " ", count: width - count)
    return right ? fill + text : text + fill
}

/// Parses a duration as people write it: `250us` (or `250µs`), `5ms`, `1.5s`, `800ns`; a bare
/// number is nanoseconds. `nil` for anything else (a negative, an unknown unit, an overflow).
package func parseDuration(_ text: String) -> UInt64? {
    let units: [(String, Double)] = [("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)]
    let trimmed = text.trimmingTrailing(where: { $0 == " " })
    if let whole = UInt64(trimmed) { return whole }
    for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
        let number = trimmed.dropLast(suffix.count)
        // Digits and one point only: no sign, exponent, `inf` or `nan`.
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            number.filter({ $0 == "." }).count <= 1, let value = Double(number)
        else { return nil }
        let nanos = (value * scale).rounded()
        guard nanos < 0x1p64 else { return nil }
        return UInt64(nanos)
    }
    return nil
}

/// `1 runtime`, `16 runtimes`: a count with its noun in the right number (`plural` where adding
/// an `s` is wrong: `counted(2, "child", "children")`).
package func counted(_ count: some BinaryInteger, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
}
