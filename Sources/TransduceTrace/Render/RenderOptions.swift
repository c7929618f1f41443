/// How text output is drawn: width, character set and colour.
package struct RenderOptions: Sendable {
    /// Columns every line must fit in (brought into ``minWidth``…``maxWidth``).
    package var width: Int
    /// Pure ASCII instead of box-drawing characters.
    package var ascii: Bool
    /// ANSI colours (only for a terminal, never with `NO_COLOR`).
    package var color: Bool
    /// Whether text is cut to ``width`` (with `…`). Off, nothing is cut: tables widen to their
    /// cells and a diagram's labels run past its width, as `ps` and `git` print to a pipe;
    /// ``width`` then only lays out what has a shape (a diagram's lifelines, a histogram's bars).
    package var cuts: Bool

    /// The widths any renderer draws at; others are brought into this range.
    package static let minWidth = 40
    /// The widest lines renderers draw.
    package static let maxWidth = 1000

    /// Options for `width` columns (clamped to ``minWidth``…``maxWidth``), cutting lines to it
    /// unless `cuts` is false.
    package init(width: Int = 100, ascii: Bool = false, color: Bool = false, cuts: Bool = true) {
        self.width = Swift.min(Self.maxWidth, Swift.max(Self.minWidth, width))
        self.ascii = ascii
        self.color = color
        self.cuts = cuts
    }

    var vertical: Character { ascii ? "|" : "│" }
    var horizontal: Character { ascii ? "-" : "─" }
    var right: Character { ascii ? ">" : "▶" }
    var left: Character { ascii ? "<" : "◀" }
    var cross: String { ascii ? "x" : "✗" }
    var ellipsis: String { ascii ? "~" : "…" }

    /// The colours renderers use, as ANSI SGR codes.
    package enum Tint: String, Sendable, CaseIterable {
        /// Dispatches (cyan).
        case dispatch = "36"
        /// The gate: cycles entering and leaving (yellow).
        case gate = "33"
        /// Tasks (green).
        case task = "32"
        /// Resumes (magenta).
        case resume = "35"
        /// Errors, rejections, cancellations and warnings (red).
        case error = "31"
        /// Quiet rows (faint).
        case dim = "2"
        /// Headings (bold).
        case bold = "1"
    }

    /// `line` as the terminal will show it (trace text escaped, see
    /// `escapingControls`; pure ASCII with ``ascii``), cut to the width in
    /// display columns (`…` at the cut; colour sequences take none); whole when ``cuts`` is off.
    package func fit(_ line: String) -> String {
        // Control characters count as the escapes the terminal output will show for them.
        let line = ascii ? escapingNonASCII(line, keepingColour: color) : escapingControls(line, keepingColour: color)
        guard cuts, line.utf8.count > width, line.displayColumns > width else { return line }
        var out = ""
        var visible = 0
        var escape = false
        var painted = false
        for c in line {
            if escape {
                out.append(c)
                if c == "m" { escape = false }
                continue
            }
            if c == "\u{1B}" {
                escape = true
                painted = true
                out.append(c)
                continue
            }
            let w = c.displayColumns
            if visible + w > width - 1 {
                out += ellipsis
                return painted ? out + "\u{1B}[0m" : out
            }
            out.append(c)
            visible += w
        }
        return out
    }

    /// `text` in `tint` when ``color`` is on; otherwise `text` unchanged.
    package func paint(_ text: String, _ tint: Tint) -> String {
        color ? "\u{1B}[\(tint.rawValue)m\(text)\u{1B}[0m" : text
    }
}
