extension Escaping {
    /// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, its quotes
    /// doubled; other control characters shown as escapes (`\x1b`), as every output shows them,
    /// so that a field read back is the label and printed drives no terminal. Line breaks stay
    /// (inside the quotes, where a CSV reader keeps them as part of the field).
    package static func csv(_ text: String) -> String {
        var needsQuotes = false
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            switch s {
            case "\"":
                needsQuotes = true
                out.append(contentsOf: "\"\"".unicodeScalars)
            case ",", "\n", "\r":
                needsQuotes = true
                out.append(s)
            case "\t":
                out.append(s)
            default:
                if isUnsafeForTerminal(s) && s.value < 0xA0 {
                    out.append(contentsOf: escapingControls(String(s), keepingColour: false).unicodeScalars)
                } else {
                    out.append(s)
                }
            }
        }
        return needsQuotes ? "\"" + String(out) + "\"" : String(out)
    }

    /// A TSV field: tab, newline, carriage return and backslash written `\t`, `\n`, `\r`, `\\`
    /// (a TSV value cannot hold the first three), any other control or bidi character as the
    /// text output shows it (`\x1b`, `\u{202e}`): a field cannot drive a terminal it is printed to.
    package static func tsv(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            switch s {
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            default:
                if isUnsafeForTerminal(s) {
                    out.append(contentsOf: escapingControls(String(s), keepingColour: false).unicodeScalars)
                } else {
                    out.append(s)
                }
            }
        }
        return String(out)
    }
}
