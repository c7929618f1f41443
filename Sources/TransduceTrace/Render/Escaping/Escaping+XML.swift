extension Escaping {
    /// Text for XML character data or a quoted attribute value, which is also safe as HTML text
    /// and as a quoted HTML attribute value: one line (``oneLine(_:)``), the characters XML 1.0
    /// forbids (U+FFFE, U+FFFF) as `?`, and `&`, `<`, `>`, `"`, `'` as entity references. The
    /// document must parse whatever the label holds, and never carry markup of its making.
    package static func xml(_ text: String) -> String {
        mapping(text) { s in
            switch s {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            case "'": "&apos;"
            case "\u{FFFE}", "\u{FFFF}": "?"
            default: nil
            }
        }
    }
}
