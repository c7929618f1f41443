import Foundation
import Testing
import TraceTooling
import TransduceTestSupport
import TransduceTrace

/// Labels that try to drive the terminal (OSC, CSI, SGR, C1), reorder text (bidi overrides and
/// isolates), or take other than one column each (CJK, emoji, ZWJ sequences, combining marks,
/// zero-width space), through every command and stream. Checked by an oracle apart from
/// trace-view (`terminal_safety.py`, Python's Unicode database): no raw escape or control, no
/// bidi control, no line wider than `--width` in display columns, and pure ASCII with `--ascii`.
@Suite(.serialized) struct LabelCorpusTests {
    static let corpus = fixtures + "/regressions/hostile-labels.jsonl"
    static let script = fixtures + "/scripts/terminal_safety.py"

    static var available: Bool { Subprocess.which("python3") != nil }

    /// Views laid out to a width: each at --width 80 and with --ascii.
    static let views: [[String]] = [
        ["sequence"], ["sequence", "--request", "4", "--runtime", "1"], ["contention"], ["tasks"], ["slow"], ["summary"],
        ["check"], ["diff", fixtures + "/demo.jsonl"],
    ]

    /// Outputs that are data (no width), still safe to print.
    static let data: [[String]] = [
        ["export", "--format", "mermaid"], ["export", "--format", "plantuml"], ["export", "--format", "svg"],
        ["export", "--format", "jsonl"],
        ["export", "--format", "chrome"], ["slow", "--format", "json"], ["tasks", "--format", "json"], ["tui"],
        ["diff", fixtures + "/demo.jsonl", "--format", "json"],
    ]

    struct Verdict: Decodable {
        var lines: Int
        var widest: Int
        var problems: [String]
    }

    static func checkAsync(_ text: String, width: Int? = nil, ascii: Bool = false) async throws -> Verdict {
        try await offThePool { try check(text, width: width, ascii: ascii) }
    }

    static func check(_ text: String, width: Int? = nil, ascii: Bool = false) throws -> Verdict {
        let dir = TemporaryDirectory()
        try text.write(toFile: dir.file("out"), atomically: true, encoding: .utf8)
        let run = try Subprocess.run(
            "/usr/bin/env",
            ["python3", script, dir.file("out")] + (width.map { ["--width=\($0)"] } ?? []) + (ascii ? ["--ascii"] : []),
            output: .captureSeparately, timeout: 60)
        return try JSONDecoder().decode(Verdict.self, from: Data(run.output.utf8))
    }

    @Test(.enabled(if: available), arguments: views)
    func viewsKeepToTheWidthAndEscapeEverything(_ command: [String]) async throws {
        for extra in [["--width", "80"], ["--width", "80", "--ascii"], ["--width", "40"]] {
            let run = try await traceView(command + extra + [Self.corpus])
            let what = (command + extra).joined(separator: " ")
            #expect(run.status == 0, "\(what): \(run.err)")
            let out = try await Self.checkAsync(run.out, width: Int(extra[1]), ascii: extra.contains("--ascii"))
            #expect(out.problems.isEmpty, "\(what): \(out.problems)")
            #expect(out.lines > 3, "\(what): \(run.out)")
            let err = try await Self.checkAsync(run.err)
            #expect(err.problems.isEmpty, "\(what) (standard error): \(err.problems)")
        }
        // The labels are shown, escaped, not dropped: the wide ones in full where there is room.
        let wide = try await traceView(command + ["--width", "1000", Self.corpus])
        if command == ["tasks"] { #expect(wide.out.contains("注文を読み込む注文を読み込む"), "\(wide.out)") }
        if command == ["sequence"] { #expect(wide.out.contains("transduce(\\x1b]0;pwned\\x07ping)"), "\(wide.out)") }
    }

    /// The browser's panes, printed without a terminal at `COLUMNS` (the rows the terminal UI
    /// draws; 160 in a pipe without COLUMNS): every row within it, the label column cut by columns.
    @Test(.enabled(if: available), arguments: [60, 80, 160, 200])
    func theBrowserRowsKeepToTheWidth(_ columns: Int) async throws {
        for ascii in [false, true] {
            let run = try await traceView(["tui"] + (ascii ? ["--ascii"] : []) + [Self.corpus], columns: columns)
            #expect(run.status == 0, "\(run.err)")
            let verdict = try await Self.checkAsync(run.out, width: columns, ascii: ascii)
            #expect(verdict.problems.isEmpty, "\(columns) columns\(ascii ? ", --ascii" : ""): \(verdict.problems)")
        }
    }

    @Test(.enabled(if: available), arguments: data)
    func dataOutputsEscapeEverything(_ command: [String]) async throws {
        let run = try await traceView(command + [Self.corpus], columns: nil)
        #expect(run.status == 0, "\(command): \(run.err)")
        let out = try await Self.checkAsync(run.out.replacingOccurrences(of: "\t", with: " "))
        #expect(out.problems.isEmpty, "\(command): \(out.problems)")
        let err = try await Self.checkAsync(run.err)
        #expect(err.problems.isEmpty, "\(command) (standard error): \(err.problems)")
    }

    /// JSON keeps the very labels (escaped as JSON, not altered): its reader reads them back.
    @Test func jsonKeepsTheLabelsExactly() async throws {
        let run = try await traceView(["export", "--format", "jsonl", Self.corpus], columns: nil)
        let original = try String(contentsOfFile: Self.corpus, encoding: .utf8)
        func labels(_ text: String) throws -> [String] {
            try text.split(separator: "\n").compactMap { line -> String? in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["event"] as? String
            }
        }
        let read = try labels(run.out)
        #expect(!read.isEmpty)
        #expect(read == (try labels(original)))
        #expect(read.contains("abc\u{202E}evil\u{2066}x"))
    }

    /// Values quoted in error messages (a wrong option value, an unknown label) are escaped too.
    @Test func errorsQuoteValuesEscaped() async throws {
        let cases: [[String]] = [
            ["sequence", "--style", "bogus\u{1B}]0;X\u{7}", Self.corpus],
            ["export", "--format", "x\u{1B}[2J", Self.corpus],
            ["slow", "--event", "nosuch\u{1B}[8m", Self.corpus],
            ["tasks", "/nonexistent/\u{1B}[2J\u{202E}"],
        ]
        for arguments in cases {
            let run = try await traceView(arguments)
            #expect(run.status != 0, "\(arguments)")
            #expect(!run.err.isEmpty, "\(arguments)")
            let err = try await Self.checkAsync(run.err)
            #expect(err.problems.isEmpty, "\(arguments): \(err.problems)")
        }
        // The list of labels `slow --event` offers holds the hostile ones, escaped.
        let slow = try await traceView(["slow", "--event", "nosuch", Self.corpus])
        #expect(slow.err.contains("\\x1b[8mhidden"), "\(slow.err)")
    }
}
