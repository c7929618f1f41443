import Foundation
import TransduceTrace

/// The report's HTML: one document with its style (``ReportStyle``), its script
/// (``ReportScript``), the model as JSON and each embedded diagram as an inert `<template>`.
/// Nothing is fetched: no link, no font, no image but inline SVG. The page's script draws
/// everything from the JSON with text nodes, so no label becomes markup.
enum ReportPage {
    /// The id of the `<script type="application/json">` element that holds the model.
    static let modelID = "model"

    /// The page, in pieces to `emit`.
    static func write(model: ReportModel, diagrams: [Int: String], _ emit: (String) -> Void) {
        let title = "trace-view report: " + model.summary.source
        emit(
            """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
            <title>\(SequenceExport.xmlText(title))</title>
            <style>
            \(ReportStyle.css)
            </style>
            </head>
            <body>
            <noscript><p>This report draws itself with JavaScript: allow scripts for this file.</p></noscript>
            <script type="application/json" id="\(modelID)">

            """)
        emit(json(model))
        emit("\n</script>\n")
        for (i, svg) in diagrams.sorted(by: { $0.key < $1.key }) {
            emit("<template id=\"diagram-\(i)\">\n")
            emit(svg)
            emit("\n</template>\n")
        }
        emit("<script>\n")
        emit(ReportScript.js)
        emit("\n</script>\n</body>\n</html>\n")
    }

    /// The model as JSON (keys sorted, so the same trace gives the same page) that is safe in a
    /// `<script>` element: `<`, `>` and `&` only occur inside strings, where `\u003c` and the
    /// like read the same.
    static func json(_ model: ReportModel) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(model)) ?? Data("{}".utf8)
        var out = ""
        out.reserveCapacity(data.count + data.count / 16)
        for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
            switch scalar {
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The model a page embeds, read back from the page (what a test compares).
    static func model(in page: String) throws -> ReportModel {
        let open = "<script type=\"application/json\" id=\"\(modelID)\">\n"
        guard let start = page.range(of: open), let end = page.range(of: "</script>", range: start.upperBound..<page.endIndex)
        else { throw CLIError.data("no report model in the page") }
        return try JSONDecoder().decode(ReportModel.self, from: Data(page[start.upperBound..<end.lowerBound].utf8))
    }
}
