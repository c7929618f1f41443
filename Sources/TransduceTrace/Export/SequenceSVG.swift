/// The sequence diagram as a standalone SVG: the lanes and messages of the Mermaid and PlantUML
/// exports (``SequenceExport``), drawn with no renderer in between. Text stays text (searchable,
/// copyable); colours follow the viewer's light or dark scheme and tell the kinds of message
/// apart by hue and by dash, for colour-blind readers too.
extension SequenceExport {
    /// The SVG layout, in px.
    enum SVGLayout {
        static let margin = 20
        static let laneWidth = 200
        static let headerHeight = 36
        static let rowHeight = 26
        static let fontSize = 12
    }

    /// A standalone SVG document of the events at `indices` of `index` (in time order, as
    /// ``mermaid(index:indices:maxTasks:)`` draws them), line by line to
    /// `emit`: one pass counts the messages (the document's height comes first), a second draws
    /// them, holding no more than one line.
    public static func svg(index: TraceIndex, indices: [Int], maxTasks: Int = 12, _ emit: (String) -> Void) {
        typealias L = SVGLayout
        let indices = index.inTimeOrder(indices)
        let (lanes, ids, several) = declare(index: index, indices: indices, maxTasks: maxTasks)
        var count = 0
        forEachMessage(index: index, indices: indices, ids: ids, several: several) { _ in count += 1 }
        let width = 2 * L.margin + L.laneWidth * max(1, lanes.count)
        let top = L.margin + L.headerHeight + L.rowHeight
        let height = top + L.rowHeight * count + L.margin
        var x: [Lane: Int] = [:]
        for (i, lane) in lanes.enumerated() { x[lane] = L.margin + L.laneWidth * i + L.laneWidth / 2 }

        emit(#"<?xml version="1.0" encoding="UTF-8"?>"#)
        emit(
            #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)" height="\#(height)" "#
                + #"viewBox="0 0 \#(width) \#(height)" font-family="ui-monospace, Menlo, Consolas, monospace" "#
                + #"font-size="\#(L.fontSize)" role="img">"#)
        emit("<title>\(Escaping.xml("Sequence diagram: \(count) messages between \(lanes.count) lifelines"))</title>")
        for line in svgStyle { emit(line) }
        emit(#"<rect class="bg" width="100%" height="100%"/>"#)
        for lane in lanes {
            let center = x[lane]!
            emit(
                #"<line class="life" x1="\#(center)" y1="\#(L.margin + L.headerHeight)" x2="\#(center)" y2="\#(height - L.margin)"/>"#
            )
            emit(
                #"<rect class="head" x="\#(center - L.laneWidth / 2 + 6)" y="\#(L.margin)" width="\#(L.laneWidth - 12)" "#
                    + #"height="\#(L.headerHeight - 6)" rx="4"/>"#)
            emit(
                #"<text class="head" x="\#(center)" y="\#(L.margin + L.headerHeight / 2 + 1)" text-anchor="middle">"#
                    + "\(Escaping.xml(cut(title(of: lane, in: index), to: 26)))<title>\(Escaping.xml(cut(title(of: lane, in: index))))</title></text>"
            )
        }
        var row = 0
        forEachMessage(index: index, indices: indices, ids: ids, several: several) { m in
            let y = top + L.rowHeight * row
            row += 1
            let text = Escaping.xml(cut(m.text))
            let style = m.style.rawValue
            if m.style == .banner {
                emit(#"<line class="banner" x1="\#(L.margin)" y1="\#(y)" x2="\#(width - L.margin)" y2="\#(y)"/>"#)
                emit(#"<text class="banner" x="\#(width / 2)" y="\#(y - 5)" text-anchor="middle">\#(text)</text>"#)
            } else if m.isLocal {
                let at = x[m.from]!
                emit(#"<circle class="\#(style)" cx="\#(at)" cy="\#(y)" r="4"/>"#)
                emit(#"<text class="\#(style)" x="\#(at + 10)" y="\#(y + 4)">\#(text)</text>"#)
            } else {
                let from = x[m.from]!
                let to = x[m.to]!
                // The arrowhead stops at the lifeline; the text sits above the arrow, from its left end.
                let end = to > from ? to - 2 : to + 2
                emit(
                    #"<line class="msg \#(style)" x1="\#(from)" y1="\#(y)" x2="\#(end)" y2="\#(y)" "#
                        + #"marker-end="url(#head-\#(style))"/>"#)
                emit(#"<text class="\#(style)" x="\#(min(from, to) + 8)" y="\#(y - 5)">\#(text)</text>"#)
            }
        }
        emit("</svg>")
    }

    /// The ``svg(index:indices:maxTasks:_:)`` document in one array of lines.
    public static func svg(index: TraceIndex, indices: [Int], maxTasks: Int = 12) -> [String] {
        collected { svg(index: index, indices: indices, maxTasks: maxTasks, $0) }
    }

    /// The styles and arrowheads: the Okabe–Ito palette (told apart by people with any colour
    /// vision), darker for a light background and lighter for a dark one, and a dash per kind
    /// besides the hue.
    static let svgStyle: [String] = {
        let kinds: [(String, light: String, dark: String, dash: String)] = [
            ("dispatch", "#0072B2", "#56B4E9", "none"), ("gate", "#9A6700", "#E69F00", "6 3"),
            ("task", "#007A5A", "#009E73", "2 2"), ("resume", "#A4508B", "#CC79A7", "none"),
            ("error", "#C2410C", "#F08A4B", "8 2 2 2"), ("quiet", "#6B6B6B", "#A0A0A0", "1 3"),
        ]
        // Text gets a halo of the background's colour, drawn under it (`paint-order`): it stays
        // legible where it crosses a lifeline or an arrowhead.
        var css = [
            "<style>",
            ".bg{fill:#FFFFFF} .life{stroke:#8C959F;stroke-dasharray:4 4}",
            "text{fill:#1F2328;paint-order:stroke;stroke:#FFFFFF;stroke-width:3px;stroke-linejoin:round;stroke-dasharray:none}",
            ".head{fill:#F6F8FA;stroke:#8C959F} text.head{fill:#1F2328;stroke:#F6F8FA;font-weight:bold}",
            ".banner{stroke:#57606A;stroke-dasharray:10 4} text.banner{fill:#57606A;stroke:#FFFFFF;font-style:italic}",
            ".msg{stroke-width:1.5}",
        ]
        for kind in kinds {
            css.append(
                ".\(kind.0){stroke:\(kind.light);fill:\(kind.light);stroke-dasharray:\(kind.dash)} "
                    + "text.\(kind.0){stroke:#FFFFFF;stroke-dasharray:none}")
        }
        css.append("@media (prefers-color-scheme: dark){")
        css.append(".bg{fill:#0D1117} text{fill:#E6EDF3;stroke:#0D1117} .life{stroke:#6E7681} .head{fill:#161B22;stroke:#6E7681}")
        css.append("text.head{fill:#E6EDF3;stroke:#161B22} .banner{stroke:#8B949E} text.banner{fill:#8B949E;stroke:#0D1117}")
        for kind in kinds { css.append(".\(kind.0){stroke:\(kind.dark);fill:\(kind.dark)} text.\(kind.0){stroke:#0D1117}") }
        css.append("}")
        css.append("</style>")
        css.append("<defs>")
        for kind in kinds {
            css.append(
                #"<marker id="head-\#(kind.0)" class="\#(kind.0)" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" "#
                    + #"markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" stroke-dasharray="none"/></marker>"#
            )
        }
        css.append("</defs>")
        return css
    }()
}
