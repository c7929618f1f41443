extension Escaping {
    /// Text for a Mermaid message, note or participant alias, one line (``oneLine(_:)``): `#`
    /// starts an entity code and `;` ends a statement in Mermaid, `:` separates the message, and
    /// `<`, `>`, `&` would be markup to a renderer that draws labels as HTML, so all six are
    /// Mermaid entity codes (`#35;`: decimal code points).
    package static func mermaid(_ text: String) -> String {
        mapping(text) { s in "#;:<>&".unicodeScalars.contains(s) ? "#\(s.value);" : nil }
    }

    /// Text for PlantUML, one line (``oneLine(_:)``): its creole markup (`#` or `*` opening a
    /// list, `**bold**`, `//italic//`, `--strike--`, `__underline__`, `~~wave~~`, `""mono""`,
    /// `==`, `<tags>`) is escaped with `~`; inside a quoted name (`quoted`) a `"` is PlantUML's
    /// `<U+0022>` (it has no other escape there).
    package static func plantUML(_ text: String, quoted: Bool) -> String {
        var out = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var onlySpaceSoFar = true
        for (i, raw) in scalars.enumerated() {
            let s = oneLine(raw) ?? raw
            defer { if !s.properties.isWhitespace { onlySpaceSoFar = false } }
            if quoted && s == "\"" {
                out.append(contentsOf: "<U+0022>".unicodeScalars)
                continue
            }
            let doubled = "*/-_~\"=".unicodeScalars.contains(s) && i + 1 < scalars.count && scalars[i + 1] == s
            let leading = (s == "#" || s == "*") && onlySpaceSoFar
            if doubled || leading || s == "<" || s == "~" { out.append("~") }
            out.append(s)
        }
        return String(out)
    }
}
