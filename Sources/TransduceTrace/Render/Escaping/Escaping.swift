/// The one escaping of trace text for each output language trace-view writes.
///
/// A label can hold anything: markup, delimiters, line breaks, controls, and combining marks
/// or prepended characters that join a delimiter into one `Character` with its neighbour
/// (`"<\u{301}"` is one grapheme cluster, and it is not equal to `"<"`). So every function here
/// reads Unicode scalars, never `Character`s: a delimiter is escaped whatever it is joined to.
/// Each output language has one function, and every writer of that language calls it:
///
/// | language | function |
/// |---|---|
/// | XML, SVG, HTML text and attribute values | ``xml(_:)`` |
/// | JSON strings | ``appendJSON(_:to:)``, ``json(_:)`` |
/// | CSV fields (RFC 4180) | ``csv(_:)`` |
/// | TSV fields | ``tsv(_:)`` |
/// | Mermaid sequence text | ``mermaid(_:)`` |
/// | PlantUML sequence text | ``plantUML(_:quoted:)`` |
/// | the terminal | `escapingControls(_:keepingColour:)` (`ControlEscapes.swift`) |
package enum Escaping {
    /// The scalar a one-line text shows for `s`, or `nil` to keep it: a line break becomes a
    /// space, any other control or bidi or invisible format character `?` (it would reach
    /// whoever prints the file, and a right-to-left override would reorder the text).
    static func oneLine(_ s: Unicode.Scalar) -> Unicode.Scalar? {
        if s == "\n" || s == "\r" || s == "\u{2028}" || s == "\u{2029}" { return " " }
        if isUnsafeForTerminal(s) { return "?" }
        return nil
    }

    /// `text` as one line (``oneLine(_:)`` on each scalar): for any format that cannot hold a
    /// line break in a value.
    package static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { oneLine($0) != nil }) else { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars { out.append(oneLine(s) ?? s) }
        return String(out)
    }

    /// `text` with each scalar `replacement` maps written as the text it gives, the rest kept;
    /// with `oneLine`, line breaks and unsafe scalars are replaced first (``oneLine(_:)``). The
    /// one loop every escaping here runs: over scalars, never `Character`s.
    static func mapping(_ text: String, oneLine: Bool = true, _ replacement: (Unicode.Scalar) -> String?) -> String {
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            if oneLine, let replaced = Self.oneLine(s) {
                out.append(replaced)
            } else if let replaced = replacement(s) {
                out.append(contentsOf: replaced.unicodeScalars)
            } else {
                out.append(s)
            }
        }
        return String(out)
    }
}
