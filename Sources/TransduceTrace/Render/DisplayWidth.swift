/// How many terminal columns text takes: East Asian wide and fullwidth characters and emoji two,
/// combining marks and zero-width characters none, the rest one; the
/// renderers' colour sequences (`ESC [ … m`) none. What renderers lay out and cut by, so that a
/// line of CJK or emoji labels keeps to its width.
extension Character {
    /// The columns a terminal gives this character: the sum of its scalars' widths, as terminals
    /// that lay out by code point (xterm, tmux) draw it. An emoji sequence joined with U+200D
    /// counts each emoji: wider than a terminal that draws it as one glyph shows it, never
    /// narrower.
    package var displayColumns: Int {
        var columns = 0
        var previous = 0
        for scalar in unicodeScalars {
            let w: Int
            if scalar.isASCII {
                w = scalar.value < 0x20 || scalar.value == 0x7F ? 0 : 1
            } else if scalar.value == 0xFE0F {
                // Emoji presentation: a narrow character before it is drawn two columns wide.
                w = previous == 1 ? 1 : 0
            } else if scalar.properties.isEmojiPresentation || isWide(scalar.value) {
                w = 2
            } else {
                switch scalar.properties.generalCategory {
                case .nonspacingMark, .enclosingMark, .format, .control: w = 0
                default: w = 1
                }
            }
            columns += w
            previous = w
        }
        return columns
    }
}

/// East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth W and F), outside emoji.
private func isWide(_ v: UInt32) -> Bool {
    switch v {
    case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
        return true
    default:
        return false
    }
}

extension StringProtocol {
    /// The columns the text takes on a terminal, colour sequences (`ESC [ … m`) not counted.
    package var displayColumns: Int {
        // ASCII without escapes: one column a byte.
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return utf8.count }
        var columns = 0
        var inSequence = false
        for c in self {
            if inSequence {
                if c == "m" { inSequence = false }
            } else if c == "\u{1B}" {
                inSequence = true
            } else {
                columns += c.displayColumns
            }
        }
        return columns
    }

    /// The text within `limit` columns: whole when it fits, else its start ending with
    /// `ellipsis` (one column); "" for a limit of 0 or less.
    package func truncated(toColumns limit: Int, ellipsis: String) -> String {
        guard limit > 0 else { return "" }
        guard displayColumns > limit else { return String(self) }
        return prefix(columns: limit - 1) + ellipsis
    }

    /// The longest start of the text that fits in `columns` (a wide character that would
    /// straddle the limit is left out).
    package func prefix(columns limit: Int) -> String {
        var out = ""
        var columns = 0
        for c in self {
            let w = c.displayColumns
            if columns + w > limit { break }
            out.append(c)
            columns += w
        }
        return out
    }
}
