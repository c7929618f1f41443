/// The one escaping of trace text on its way to a terminal.
///
/// Labels, names and messages come from the traced program, a relay daemon or a hostile file,
/// and must not retitle, move, clear or recolour the user's terminal, nor reorder its text. So
/// every control character (C0, DEL, C1) is shown as an escape (`\x1b`, `\u{9b}`), and so are
/// the bidirectional controls and the invisible format characters (`\u{202e}`, `\u{200b}`): the
/// text reads as it is stored. The only sequences kept are the colour sequences the renderers
/// themselves paint with (``RenderOptions/paint(_:_:)``: exactly `ESC [ code m` for a
/// ``RenderOptions/Tint`` or `ESC [ 0 m`), and only with `keepingColour`; with it off (no
/// colour wanted, or text laid out by width) they are escaped too.
package func escapingControls(_ line: String, keepingColour: Bool = true) -> String {
    guard line.unicodeScalars.contains(where: { needsEscape($0) || $0 == "\u{1B}" }) else { return line }
    let scalars = Array(line.unicodeScalars)
    var out = String.UnicodeScalarView()
    var i = 0
    while i < scalars.count {
        let s = scalars[i]
        if keepingColour, s == "\u{1B}", let length = ownColourSequence(scalars, at: i) {
            out.append(contentsOf: scalars[i..<(i + length)])
            i += length
            continue
        }
        if needsEscape(s) || s == "\u{1B}" {
            out.append(contentsOf: escape(s).unicodeScalars)
        } else {
            out.append(s)
        }
        i += 1
    }
    return String(out)
}

/// `text` in pure ASCII (`--ascii`): every scalar outside printable ASCII as `\u{…}` (controls
/// as ``escapingControls(_:keepingColour:)`` shows them; the renderers' own colour sequences
/// kept with `keepingColour`).
package func escapingNonASCII(_ text: String, keepingColour: Bool = true) -> String {
    let text = escapingControls(text, keepingColour: keepingColour)
    guard text.unicodeScalars.contains(where: { $0.value > 0x7E }) else { return text }
    var out = String.UnicodeScalarView()
    for s in text.unicodeScalars {
        if s.value > 0x7E { out.append(contentsOf: escape(s).unicodeScalars) } else { out.append(s) }
    }
    return String(out)
}

/// The length of the colour sequence the renderers write at `i` (`ESC [ code m`), or `nil`.
private func ownColourSequence(_ scalars: [Unicode.Scalar], at i: Int) -> Int? {
    guard i + 3 < scalars.count, scalars[i + 1] == "[" else { return nil }
    var j = i + 2
    var code = ""
    // (`38;2;255;95;95`, a 24-bit colour, is the longest code a tint writes.)
    while j < scalars.count, j - i < 20, ("0"..."9").contains(scalars[j]) || scalars[j] == ";" {
        code.unicodeScalars.append(scalars[j])
        j += 1
    }
    guard j < scalars.count, scalars[j] == "m", ownColourCodes.contains(code) else { return nil }
    return j - i + 1
}

/// The SGR codes ``RenderOptions/paint(_:_:)`` writes: its tints, and the reset.
private let ownColourCodes = RenderOptions.Tint.allCodes

private func escape(_ s: Unicode.Scalar) -> String {
    let hex = String(s.value, radix: 16)
    return s.value < 0x80 ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex : "\\u{\(hex)}"
}

/// Whether `s` must not reach a terminal as it is (``escapingControls(_:keepingColour:)``
/// escapes it; exports that print text replace or escape it): control characters, and the
/// format characters that reorder text or take no room: bidi embeddings, overrides, isolates
/// and marks; zero-width space, word joiner, byte-order mark. (The zero-width joiner stays:
/// emoji sequences are made with it.)
package func isUnsafeForTerminal(_ s: Unicode.Scalar) -> Bool { needsEscape(s) }

private func needsEscape(_ s: Unicode.Scalar) -> Bool {
    let v = s.value
    if v < 0x20 || (0x7F...0x9F).contains(v) { return true }
    guard v >= 0x61C else { return false }
    return v == 0x61C || v == 0x200B || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || v == 0x2060
        || (0x2066...0x2069).contains(v) || v == 0xFEFF
}
