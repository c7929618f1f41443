extension Escaping {
    /// Text for a roff (man page) line, in ASCII: `\` as `\e`, `-` as `\-` (a minus, so options
    /// copy and search as typed), every other character past ASCII or a control as `\[uXXXX]`,
    /// and a leading `.` or `'` (a request to roff) made literal with `\&`. One line: a line
    /// break is a space.
    package static func roff(_ text: String) -> String {
        let out = mapping(text) { s in
            switch s {
            case "\\": return "\\e"
            case "-": return "\\-"
            case _ where s.value > 0x7E || s.value < 0x20:
                let hex = String(s.value, radix: 16, uppercase: true)
                return "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            default: return nil
            }
        }
        return out.hasPrefix(".") || out.hasPrefix("'") ? "\\&" + out : out
    }
}
