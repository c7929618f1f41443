import Foundation
import TraceInputs
import TransduceTrace

/// The report's HTML: one document with its style (``ReportStyle``), its script
/// (``ReportScript``), the model as JSON and each embedded diagram as an inert `<template>`.
/// Nothing is fetched: no link, no font, no image but inline SVG. The page's script draws
/// everything from the JSON with text nodes, so no label becomes markup; it is the only script
/// the page's Content-Security-Policy lets run (by its hash, ``scriptSource``).
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
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src \(scriptSource); img-src data:">
            <title>\(Escaping.xml(title))</title>
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
        emit("<script>")
        emit(script)
        emit("</script>\n</body>\n</html>\n")
    }

    /// The page's one script element's text, exactly as the page holds it.
    static let script = "\n" + ReportScript.js + "\n"

    /// The Content-Security-Policy's `script-src`: the page's own script by its SHA-256, and
    /// nothing else. No inline handler, `javascript:` URL or other script element runs, even
    /// one of a label's making that some escaping missed.
    static let scriptSource: String = {
        "'sha256-" + Data(SHA256.digest(Array(script.utf8))).base64EncodedString() + "'"
    }()

    /// The model as JSON (keys sorted, so the same trace gives the same page) that is safe in a
    /// `<script>` element: `<`, `>` and `&` only occur inside strings, where `\u003c` and the
    /// like read the same.
    static func json(_ model: ReportModel) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(model)) ?? Data("{}".utf8)
        return Escaping.scriptJSON(String(decoding: data, as: UTF8.self))
    }

    /// The model a page embeds, read back from the page (what a test compares).
    static func model(in page: String) throws -> ReportModel {
        let open = "<script type=\"application/json\" id=\"\(modelID)\">\n"
        guard let start = page.range(of: open), let end = page.range(of: "</script>", range: start.upperBound..<page.endIndex)
        else { throw CLIError.data("no report model in the page") }
        return try JSONDecoder().decode(ReportModel.self, from: Data(page[start.upperBound..<end.lowerBound].utf8))
    }
}
