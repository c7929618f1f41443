/// How text output is drawn: width, character set and colour.
package struct RenderOptions: Sendable {
    /// Columns every line must fit in (brought into ``minWidth``…``maxWidth``).
    package var width: Int
    /// Pure ASCII instead of box-drawing characters.
    package var ascii: Bool
    /// ANSI colours (only for a terminal, never with `NO_COLOR`).
    package var color: Bool
    /// How many colours the terminal says it draws (``ColorDepth/of(term:colorTerm:)``).
    package var depth: ColorDepth = .ansi16
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

    /// How many colours a terminal draws, as it says in `TERM` and `COLORTERM`.
    package enum ColorDepth: Sendable, CaseIterable {
        /// The 8 ANSI colours (and their bright forms): every colour terminal.
        case ansi16
        /// xterm's 256-colour palette (`TERM=*-256color`).
        case ansi256
        /// 24-bit colour (`COLORTERM=truecolor` or `24bit`).
        case truecolor

        /// The depth a terminal announces: `COLORTERM` first (what terminals that draw 24-bit
        /// colour set), then a `TERM` naming 256 colours; else the 16 every colour terminal has.
        package static func of(term: String?, colorTerm: String?) -> ColorDepth {
            if let colorTerm, ["truecolor", "24bit"].contains(colorTerm.lowercased()) { return .truecolor }
            if let term, term.hasSuffix("256color") || term.hasSuffix("256") { return .ansi256 }
            return .ansi16
        }
    }

    /// The colours renderers use, each an ANSI SGR code at every ``ColorDepth`` (`rawValue`: the
    /// 16-colour one). The hues stay the same at every depth; a deeper terminal gets softer,
    /// more legible shades of them.
    package enum Tint: String, Sendable, CaseIterable {
        /// Dispatches (cyan).
        case dispatch = "36"
        /// The gate: cycles entering and leaving; work in progress (yellow).
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
        /// The selection (reverse video).
        case selected = "7"

        /// The SGR code at `depth`.
        package func code(_ depth: ColorDepth) -> String {
            switch (self, depth) {
            case (.dim, _), (.bold, _), (.selected, _), (_, .ansi16): rawValue
            case (.dispatch, .ansi256): "38;5;38"
            case (.gate, .ansi256): "38;5;178"
            case (.task, .ansi256): "38;5;71"
            case (.resume, .ansi256): "38;5;170"
            case (.error, .ansi256): "38;5;203"
            case (.dispatch, .truecolor): "38;2;0;175;215"
            case (.gate, .truecolor): "38;2;215;175;0"
            case (.task, .truecolor): "38;2;95;175;95"
            case (.resume, .truecolor): "38;2;215;95;215"
            case (.error, .truecolor): "38;2;255;95;95"
            }
        }

        /// Every code a tint is written with, at any depth, and the reset: what output keeps as
        /// colour (``escapingControls(_:keepingColour:)``) and escapes otherwise.
        package static let allCodes: Set<String> = Set(
            allCases.flatMap { tint in ColorDepth.allCases.map { tint.code($0) } } + ["0"])
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
        color ? "\u{1B}[\(tint.code(depth))m\(text)\u{1B}[0m" : text
    }
}
