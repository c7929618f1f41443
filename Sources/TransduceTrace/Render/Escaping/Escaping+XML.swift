extension Escaping {
    /// Text for XML character data or a quoted attribute value, which is also safe as HTML text
    /// and as a quoted HTML attribute value: one line (``oneLine(_:)``), the characters XML 1.0
    /// forbids (U+FFFE, U+FFFF) as `?`, and `&`, `<`, `>`, `"`, `'` as entity references. The
    /// document must parse whatever the label holds, and never carry markup of its making.
    package static func xml(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            if let replaced = oneLine(s) {
                out.append(replaced)
                continue
            }
            switch s {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&apos;".unicodeScalars)
            case "\u{FFFE}", "\u{FFFF}": out.append("?")
            default: out.append(s)
            }
        }
        return String(out)
    }
}
