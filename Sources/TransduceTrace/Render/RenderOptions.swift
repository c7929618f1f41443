/// How text output is drawn: width, character set and colour.
public struct RenderOptions: Sendable {
    public var width: Int
    /// Pure ASCII instead of box-drawing characters.
    public var ascii: Bool
    /// ANSI colours (only for a terminal, never with `NO_COLOR`).
    public var color: Bool

    /// The widths any renderer draws at; others are brought into this range.
    public static let minWidth = 40
    public static let maxWidth = 1000

    public init(width: Int = 100, ascii: Bool = false, color: Bool = false) {
        self.width = Swift.min(Self.maxWidth, Swift.max(Self.minWidth, width))
        self.ascii = ascii
        self.color = color
    }

    var vertical: Character { ascii ? "|" : "│" }
    var horizontal: Character { ascii ? "-" : "─" }
    var right: Character { ascii ? ">" : "▶" }
    var left: Character { ascii ? "<" : "◀" }
    var cross: String { ascii ? "x" : "✗" }
    var ellipsis: String { ascii ? "~" : "…" }

    public enum Tint: String, Sendable {
        case dispatch = "36"
        case gate = "33"
        case task = "32"
        case resume = "35"
        case error = "31"
        case dim = "2"
        case bold = "1"
    }

    public func paint(_ text: String, _ tint: Tint) -> String {
        color ? "\u{1B}[\(tint.rawValue)m\(text)\u{1B}[0m" : text
    }
}
