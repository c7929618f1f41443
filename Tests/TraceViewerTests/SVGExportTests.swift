import Foundation
import FoundationXML
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace

/// `export --format svg`: an XML parser reads it, it draws what PlantUML draws of the same
/// events, no label makes markup in it, and a real browser renders it.
@Suite struct SVGExportTests {
    static let root = Repository.root

    /// The elements of a document, in order, with their attributes and text; or the parser's
    /// error.
    final class Elements: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String], text: String)] = []
        private var open: [Int] = []

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            open.append(elements.count)
            elements.append((name, attributes, ""))
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let last = open.last { elements[last].text += string }
        }

        static func parse(_ text: String) throws -> [(name: String, attributes: [String: String], text: String)] {
            let parser = XMLParser(data: Data(text.utf8))
            let elements = Elements()
            parser.delegate = elements
            #expect(parser.parse(), "not XML: \(parser.parserError.map { "\($0)" } ?? "?")")
            return elements.elements
        }
    }

    /// What PlantUML's export of the same events draws: participants, arrows, notes, banners.
    static func plantUMLCounts(_ lines: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in lines.split(separator: "\n") {
            if line.hasPrefix("participant ") { counts["lanes", default: 0] += 1 }
            if line.hasPrefix("note right of ") { counts["notes", default: 0] += 1 }
            if line.hasPrefix("== ") { counts["banners", default: 0] += 1 }
            if line.contains(" -> ") && !line.hasPrefix("note") { counts["arrows", default: 0] += 1 }
        }
        return counts
    }

    static func svgCounts(_ elements: [(name: String, attributes: [String: String], text: String)]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for e in elements {
            let classes = (e.attributes["class"] ?? "").split(separator: " ")
            if e.name == "rect" && classes.contains("head") { counts["lanes", default: 0] += 1 }
            if e.name == "circle" { counts["notes", default: 0] += 1 }
            if e.name == "line" && classes.contains("banner") { counts["banners", default: 0] += 1 }
            if e.name == "line" && classes.contains("msg") { counts["arrows", default: 0] += 1 }
        }
        return counts
    }

    @Test(arguments: [
        [fixtures + "/demo.jsonl", "--request", "1"], [fixtures + "/demo.jsonl"], [fixtures + "/two-runtimes.jsonl"],
    ])
    func itDrawsWhatPlantUMLDraws(_ input: [String]) async throws {
        let svg = try await traceView(["export", "--format", "svg"] + input)
        #expect(svg.status == 0, "\(svg.err)")
        let plantUML = try await traceView(["export", "--format", "plantuml"] + input)
        #expect(plantUML.status == 0, "\(plantUML.err)")
        let elements = try Elements.parse(svg.out)
        #expect(elements.first?.name == "svg")
        let counts = Self.svgCounts(elements)
        #expect(counts == Self.plantUMLCounts(plantUML.out))
        #expect((counts["arrows"] ?? 0) > 5)
        // Every message's text is there as text, in the order PlantUML has it.
        let texts = elements.filter { $0.name == "text" && $0.attributes["class"] != "head" }.map(\.text)
        #expect(texts.count == counts.values.reduce(0, +) - (counts["lanes"] ?? 0))
    }

    /// Labels made to break out (`</text><script>`, quotes, controls, bidi overrides, U+FFFF)
    /// stay text: the document parses, and holds only the elements and attributes it draws with.
    @Test func hostileLabelsStayText() async throws {
        let run = try await traceView(["export", "--format", "svg", fixtures + "/regressions/hostile-labels.jsonl"])
        #expect(run.status == 0, "\(run.err)")
        let elements = try Elements.parse(run.out)
        let drawn: Set<String> = ["svg", "title", "style", "defs", "marker", "path", "rect", "line", "text", "circle"]
        #expect(Set(elements.map(\.name)).isSubset(of: drawn), "\(Set(elements.map(\.name)))")
        #expect(!elements.contains { $0.attributes.keys.contains { $0.lowercased().hasPrefix("on") } })
        #expect(!run.out.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E || $0.value == 0xFFFF })

        let crafted = Escaping.xml("</text><script>alert(\"x\")</script>&\u{1B}[31m\u{202E}\u{FFFF}'")
        #expect(crafted == "&lt;/text&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;?[31m??&apos;")
    }

    /// Headless Chromium opens the file, with no error and no request, and draws it — far from
    /// blank — on a light background, or a dark one when the reader's scheme is dark.
    @Test(
        .enabled(if: browserAvailable),
        arguments: [false, true])
    func aBrowserRendersIt(dark: Bool) async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("demo.svg")
        let run = try await traceView(["export", "--format", "svg", "--request", "1", "--output", path, fixtures + "/demo.jsonl"])
        #expect(run.status == 0, "\(run.err)")
        let seen = try await browserCheck(
            path, eval: "document.querySelectorAll('line.msg').length", screenshot: dir.file("demo.png"), width: 1000,
            height: 700, dark: dark)
        #expect((seen.value as? Int ?? 0) > 5, "\(seen.raw)")
        let screenshot = seen.screenshot
        #expect(screenshot["width"] as? Int == 1000)
        #expect((screenshot["colours"] as? Int ?? 0) >= 4, "\(screenshot)")
        #expect((screenshot["unlike_corner"] as? Double ?? 0) > 0.01, "\(screenshot)")
        let brightness = (screenshot["corner"] as? [Int] ?? []).reduce(0, +)
        #expect(dark ? brightness < 150 : brightness > 600, "\(screenshot)")
    }
}
