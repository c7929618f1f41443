extension Escaping {
    /// `string` as a JSON string literal, appended to `out` as UTF-8: `"` and `\` escaped, the
    /// C0 controls as `\n`, `\r`, `\t` or `\u00XX`, and beyond what JSON requires, DEL, the C1
    /// controls and the bidi and invisible format characters as `\u` escapes (the same string to
    /// a JSON reader): JSON printed to a terminal must not drive it nor reorder its text.
    package static func appendJSON(_ string: String, to out: inout [UInt8]) {
        out.append(0x22)
        if string.utf8.contains(where: { $0 >= 0x7F }) {
            for scalar in string.unicodeScalars {
                if scalar.value >= 0x7F && isUnsafeForTerminal(scalar) {
                    let hex = String(scalar.value, radix: 16)
                    out.append(contentsOf: Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8))
                } else if scalar.value >= 0x80 {
                    UTF8.encode(scalar) { out.append($0) }
                } else {
                    appendJSONASCII(UInt8(scalar.value), to: &out)
                }
            }
        } else {
            for byte in string.utf8 { appendJSONASCII(byte, to: &out) }
        }
        out.append(0x22)
    }

    /// `string` as a JSON string literal (``appendJSON(_:to:)``).
    package static func json(_ string: String) -> String {
        var bytes: [UInt8] = []
        appendJSON(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// JSON text that is safe inside an HTML `<script>` element: `<`, `>` and `&` (which only
    /// occur inside its strings) and U+2028, U+2029 as `\u` escapes, which read the same, so no
    /// `</script>` or `<!--` of a label's making ends or changes the element.
    package static func scriptJSON(_ json: String) -> String {
        mapping(json, oneLine: false) { s in
            switch s {
            case "<": "\\u003c"
            case ">": "\\u003e"
            case "&": "\\u0026"
            case "\u{2028}": "\\u2028"
            case "\u{2029}": "\\u2029"
            default: nil
            }
        }
    }

    private static func appendJSONASCII(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case 0x22: out.append(contentsOf: [0x5C, 0x22])
        case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
        case 0x0D: out.append(contentsOf: [0x5C, 0x72])
        case 0x09: out.append(contentsOf: [0x5C, 0x74])
        case 0..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        default: out.append(byte)
        }
    }
}
