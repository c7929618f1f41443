import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace
@testable import trace_view

/// Every output language's escaping (``Escaping``) against labels whose markup and delimiters
/// share a grapheme cluster with a neighbour (`<` + U+0301 is one `Character`, not equal to `<`):
/// each escaping function on its own, then every export of the scalar label corpus
/// (`scalar_labels.py`) read by the format's own reader (expat, Python's csv and json) against the
/// same trace with plain labels, and the report opened in headless Chromium, where no script but
/// the page's own runs.
@Suite struct EscapingTests {
    static let scripts = fixtures + "/scripts"
    static let python = Subprocess.which("python3")

    /// Markup and delimiters beside the scalars that join them to a neighbour.
    static let labels: [String] = {
        let specials = ["<", ">", "&", "\"", "'", ",", ";", ":", "#", "\t", "\n", "\r", "\r\n", "\\", "*", "~"]
        let neighbours = ["\u{301}", "\u{600}", "\u{200D}", "\u{FE0F}", "\u{1F1FA}", "\r\n", "\0", "\u{2028}", "\u{202E}"]
        return specials.flatMap { s in neighbours.flatMap { n in [n + s, s + n, n + s + n] } }
    }()

    /// The label's scalars with every well-formed entity reference taken out.
    static func outsideEntities(_ text: String) -> String {
        text.replacingOccurrences(of: "&(amp|lt|gt|quot|apos);", with: "", options: .regularExpression)
    }

    @Test func xmlLeavesNoMarkupScalar() {
        for label in Self.labels {
            let escaped = Escaping.xml(label)
            let bare = Self.outsideEntities(escaped)
            #expect(!bare.unicodeScalars.contains { "<>&\"'\n\r\0".unicodeScalars.contains($0) }, "\(label.debugDescription)")
        }
    }

    @Test func csvQuotesWhatEverScalarItHolds() {
        for label in Self.labels {
            let field = Escaping.csv(label)
            let delimiters = label.unicodeScalars.contains { ",\"\n\r".unicodeScalars.contains($0) }
            #expect(
                field.unicodeScalars.first == "\"" && field.unicodeScalars.last == "\"" || !delimiters,
                "\(label.debugDescription)")
            // Inside the quotes every quote is doubled: each run of quotes is of even length.
            if delimiters {
                var run = 0
                for s in field.unicodeScalars.dropFirst().dropLast() + [" "] {
                    if s == "\"" {
                        run += 1
                    } else {
                        #expect(run % 2 == 0, "\(label.debugDescription) → \(field.debugDescription)")
                        run = 0
                    }
                }
            }
        }
    }

    @Test func tsvAndDiagramTextsStayOnOneLine() {
        for label in Self.labels {
            for text in [
                Escaping.tsv(label), Escaping.mermaid(label), Escaping.plantUML(label, quoted: true), Escaping.oneLine(label),
            ] {
                #expect(
                    !text.unicodeScalars.contains { $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\0" },
                    "\(label.debugDescription) → \(text.debugDescription)")
            }
            let mermaid = Escaping.mermaid(label).replacingOccurrences(of: "#[0-9]+;", with: "", options: .regularExpression)
            #expect(!mermaid.unicodeScalars.contains { "#;:<>&".unicodeScalars.contains($0) }, "\(label.debugDescription)")
            #expect(!Escaping.plantUML(label, quoted: true).unicodeScalars.contains("\""), "\(label.debugDescription)")
        }
    }

    /// No writer escapes by itself: the characters the escapings treat are matched (`case "<"`)
    /// only in `Render/Escaping/`, where every function reads scalars.
    @Test func noWriterEscapesOnItsOwn() throws {
        let sources = URL(fileURLWithPath: Repository.root).appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(
            pattern: #"case "(<|>|&|,|#|;|:|\\"|'|\\t|\\n|\\r|\\\\)"|replacingOccurrences\(of: "(\\"|<|&|,)""#)
        var found: [String] = []
        let files = FileManager.default.enumerator(atPath: sources.path)!.compactMap { $0 as? String }
        for file in files where file.hasSuffix(".swift") && !file.contains("Render/Escaping/") {
            let text = try String(contentsOfFile: sources.path + "/" + file, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    found.append("\(file):\(n + 1): \(line)")
                }
            }
        }
        #expect(found.isEmpty, "escape through Escaping: \(found)")
    }

    /// The scalar label corpus and its plain twin, written by `scalar_labels.py` into `directory`;
    /// the labels as trace-view reads them.
    static func corpus(in directory: TemporaryDirectory) async throws -> [String] {
        let script = scripts + "/scalar_labels.py"
        let (hostile, plain, labels) = (
            directory.file("hostile.jsonl"), directory.file("plain.jsonl"), directory.file("labels.json")
        )
        let (status, output) = try await offThePool { try runBlocking(python!, [script, hostile, "--labels", labels]) }
        #expect(status == 0, "\(output)")
        let (plainStatus, said) = try await offThePool { try runBlocking(python!, [script, plain, "--plain"]) }
        #expect(plainStatus == 0, "\(said)")
        return try JSONDecoder().decode([String].self, from: Data(contentsOf: URL(fileURLWithPath: labels)))
    }

    struct Verdict: Decodable {
        var problems: [String]
        var read: Int
    }

    /// Each export of the corpus parses with its format's reader, has its twin's structure, and
    /// keeps the labels where the format holds them.
    @Test(.enabled(if: python != nil), .timeLimit(.minutes(Patience.minutes(5))))
    func everyExportParsesWithItsOwnReader() async throws {
        let directory = TemporaryDirectory()
        let labels = try await Self.corpus(in: directory)
        #expect(labels.count > 900)
        let exports: [(name: String, arguments: [String])] = [
            ("svg", ["--format", "svg"]), ("mermaid", ["--format", "mermaid"]), ("plantuml", ["--format", "plantuml"]),
            ("jsonl", ["--format", "jsonl"]), ("chrome", ["--format", "chrome"]), ("otlp", ["--format", "otlp"]),
            ("csv", ["--format", "csv", "--table", "events"]),
        ]
        for export in exports {
            for twin in ["hostile", "plain"] {
                let run = try await traceView(
                    ["export"] + export.arguments + [
                        "--output", directory.file("\(twin).\(export.name)"), directory.file("\(twin).jsonl"),
                    ])
                #expect(run.status == 0, "\(export.name): \(run.err)")
            }
            let arguments = [
                Self.scripts + "/check_exports.py", export.name, directory.file("hostile.\(export.name)"),
                directory.file("plain.\(export.name)"), directory.file("labels.json"),
            ]
            let checked = try await offThePool {
                try Subprocess.run(Self.python!, arguments, output: .captureSeparately, timeout: 120)
            }
            #expect(checked.status == 0, "\(export.name): \(checked.output)")
            let verdict = try JSONDecoder().decode(Verdict.self, from: Data(checked.output.utf8))
            #expect(verdict.problems.isEmpty, "\(export.name): \(verdict.problems)")
            #expect(verdict.read == labels.count, "\(export.name): read \(verdict.read) of \(labels.count) labels")
        }
    }

    /// The report of the corpus in headless Chromium: each script payload's request opened (its
    /// diagram drawn) runs nothing: no handler, no script but the page's own, the title kept, no
    /// request made and no console line (``browserCheck(_:eval:fragment:screenshot:width:height:dark:sourceLocation:)``
    /// fails on an error or a request).
    @Test(.enabled(if: browserAvailable), .timeLimit(.minutes(Patience.minutes(5))))
    func theReportRunsNoScriptOfALabel() async throws {
        let directory = TemporaryDirectory()
        let labels = try await Self.corpus(in: directory)
        let page = directory.file("report.html")
        let run = try await traceView(["report", "--output", page, directory.file("hostile.jsonl")])
        #expect(run.status == 0, "\(run.err)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("script-src 'sha256-"), "the policy names the page's script by its hash")
        #expect(!html.contains("'unsafe-inline'; img-src") && !html.contains("script-src 'unsafe-inline'"))
        // The payloads are the slowest requests: the report embeds their diagrams.
        let payloadLabels = labels.filter { $0.contains("pwned") }
        let payloads = labels.indices.filter { labels[$0].contains("pwned") }.map { 2 * $0 + 1 }
        let texts = String(decoding: try JSONEncoder().encode(payloadLabels.map(Escaping.oneLine)), as: UTF8.self)
        #expect(payloads.count >= 5)
        let steps = """
            (async () => {
              const seen = [];
              const title = document.title;
              const labels = \(texts);
              for (const [i, d] of \(payloads).entries()) {
                await new Promise(r => { addEventListener('hashchange', r, {once: true}); location.hash = 'request=0.' + d; });
                await new Promise(r => setTimeout(r, 50));
                const host = document.querySelector('#detail .diagram');
                const root = host && host.shadowRoot;
                const all = [...document.querySelectorAll('*'), ...(root ? root.querySelectorAll('*') : [])];
                seen.push({
                  request: document.getElementById('detail').dataset.request,
                  diagram: root ? root.querySelectorAll('svg').length : 0,
                  labelIsText: root ? root.textContent.includes(labels[i]) : false,
                  handlers: all.filter(e => [...e.attributes].some(a => /^on/i.test(a.name))).length,
                  scripts: all.filter(e => e.localName === 'script').length,
                  images: all.filter(e => e.localName === 'img').length,
                });
              }
              return JSON.stringify({seen, pwned: window.pwned === undefined ? null : window.pwned,
                                     titleKept: document.title === title && !document.title.includes('PWNED')});
            })()
            """
        let opened = try await browserCheck(page, eval: steps)
        let text = try #require(opened.value as? String, "\(opened.raw)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(result["pwned"] is NSNull, "a label's script ran: \(result)")
        #expect(result["titleKept"] as? Bool == true)
        let seen = try #require(result["seen"] as? [[String: Any]])
        #expect(seen.count == payloads.count)
        for (row, dispatch) in zip(seen, payloads) {
            #expect(row["request"] as? String == "0.\(dispatch)", "\(row)")
            #expect(row["diagram"] as? Int == 1, "the diagram of request \(dispatch) is drawn: \(row)")
            #expect(row["labelIsText"] as? Bool == true, "the label is the diagram's text, not markup: \(row)")
            #expect(row["handlers"] as? Int == 0, "\(row)")
            #expect(row["scripts"] as? Int == 2, "the page's model and its script only: \(row)")
            #expect(row["images"] as? Int == 0, "\(row)")
        }
    }
}

/// The report's policy hash (``SHA256``) against Python's `hashlib`, on lengths around each
/// padding edge and on the page's own script.
@Suite struct SHA256Tests {
    @Test(.enabled(if: EscapingTests.python != nil)) func matchesHashlib() async throws {
        let inputs: [[UInt8]] =
            [0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 1000].map { n in (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) } }
            + [Array(ReportPage.script.utf8)]
        let directory = TemporaryDirectory()
        for (i, input) in inputs.enumerated() {
            try Data(input).write(to: URL(fileURLWithPath: directory.file("\(i)")))
        }
        let (status, output) = try await run(
            EscapingTests.python!,
            ["-c", "import hashlib,sys\nfor p in sys.argv[1:]: print(hashlib.sha256(open(p,'rb').read()).hexdigest())"]
                + inputs.indices.map { directory.file("\($0)") })
        #expect(status == 0, "\(output)")
        let expected = output.split(separator: "\n").map(String.init)
        let ours = inputs.map { SHA256.digest($0).map { String(format: "%02x", $0) }.joined() }
        #expect(ours == expected)
    }

    /// The index's signature (HMAC-SHA-256, read in place) against Python's `hmac`, with a key
    /// shorter than a block and one longer (hashed first); and a digest given in pieces of every
    /// size is the whole's.
    @Test(.enabled(if: EscapingTests.python != nil)) func hmacMatchesPythonAndPiecesMatchTheWhole() async throws {
        var numbers = SeededRandom(seed: 3)
        let message = (0..<100_003).map { _ in UInt8(truncatingIfNeeded: numbers.next()) }
        let keys = [32, 100].map { n in (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) } }
        let directory = TemporaryDirectory()
        try Data(message).write(to: URL(fileURLWithPath: directory.file("message")))
        for (i, key) in keys.enumerated() { try Data(key).write(to: URL(fileURLWithPath: directory.file("key\(i)"))) }
        let (status, output) = try await run(
            EscapingTests.python!,
            [
                "-c",
                "import hmac,hashlib,sys\nm=open(sys.argv[1],'rb').read()\n"
                    + "for k in sys.argv[2:]: print(hmac.new(open(k,'rb').read(),m,hashlib.sha256).hexdigest())",
                directory.file("message"),
            ] + keys.indices.map { directory.file("key\($0)") })
        #expect(status == 0, "\(output)")
        let ours = keys.map { key in
            message.withUnsafeBytes { SHA256.hmac(key: key, $0) }.map { String(format: "%02x", $0) }.joined()
        }
        #expect(ours == output.split(separator: "\n").map(String.init))
        let whole = SHA256.digest(message)
        for _ in 0..<20 {
            var hasher = SHA256.Hasher()
            var at = 0
            message.withUnsafeBytes { all in
                while at < all.count {
                    let n = min(all.count - at, Int(numbers.next(below: 200)))
                    hasher.update(UnsafeRawBufferPointer(rebasing: all[at..<(at + n)]))
                    at += n
                }
            }
            #expect(hasher.finish() == whole)
        }
    }
}
