extension Escaping {
    /// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, its quotes
    /// doubled; other control characters shown as escapes (`\x1b`), as every output shows them,
    /// so that a field read back is the label and printed drives no terminal. Line breaks stay
    /// (inside the quotes, where a CSV reader keeps them as part of the field).
    package static func csv(_ text: String) -> String {
        let needsQuotes = text.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
        let field = mapping(text, oneLine: false) { s in
            if s == "\"" { return "\"\"" }
            guard s != "\t" && s != "\n" && s != "\r", s.value < 0xA0, isUnsafeForTerminal(s) else { return nil }
            return escapingControls(String(s), keepingColour: false)
        }
        return needsQuotes ? "\"" + field + "\"" : field
    }

    /// A TSV field: tab, newline, carriage return and backslash written `\t`, `\n`, `\r`, `\\`
    /// (a TSV value cannot hold the first three), any other control or bidi character as the
    /// text output shows it (`\x1b`, `\u{202e}`): a field cannot drive a terminal it is printed to.
    package static func tsv(_ text: String) -> String {
        mapping(text, oneLine: false) { s in
            switch s {
            case "\t": "\\t"
            case "\n": "\\n"
            case "\r": "\\r"
            case "\\": "\\\\"
            default: isUnsafeForTerminal(s) ? escapingControls(String(s), keepingColour: false) : nil
            }
        }
    }
}
