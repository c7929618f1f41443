/// A ``TestWindow`` written as a Swift Testing source file: a `TestStore` test that sends what
/// the runtime was sent, receives what its tasks and chains fed back, and asserts each cycle's
/// committed state as the trace recorded it.
///
/// Events and states are written as the recorder's codable capture encoded them (JSON) and
/// decoded at run time, so the file compiles against the feature unchanged when its `Event` and
/// `State` are `Decodable` and `Equatable`. Every text from the trace reaches the source escaped:
/// values inside raw string literals whose delimiters they cannot close, with anything but
/// printable ASCII as `\u{…}`; labels in comments likewise.
package struct TestWindowSource {
    /// The feature's type as the test names it (`Checkout`, `App.Checkout`).
    package var type: String
    /// The module to `@testable import`, or `nil` when the test is compiled with the feature.
    package var module: String?
    /// The `env:` argument's Swift expression, or `nil` for a feature without `Env`.
    package var env: String?
    /// The suite's type name and the test's function name.
    package var suite: String
    package var test: String
    /// What the header says the test was written from (the trace's name).
    package var origin: String

    /// Checks the names a caller gives (they become source); each error says which is wrong.
    package init(type: String, module: String?, env: String?, suite: String?, test: String?, origin: String) throws {
        guard Self.isTypeName(type) else {
            throw TestWindowError(
                .usage, "\(Self.comment(type)) is not a Swift type name: give the feature's type with --type")
        }
        if let module, !Self.isIdentifier(module) {
            throw TestWindowError(.usage, "--module \(Self.comment(module)) is not a module name")
        }
        if let env, env.isEmpty || env.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw TestWindowError(.usage, "--env must be a Swift expression on one line")
        }
        for (flag, name) in [("--suite", suite), ("--test", test)] {
            if let name, !Self.isIdentifier(name) {
                throw TestWindowError(.usage, "\(flag) \(Self.comment(name)) is not a Swift identifier")
            }
        }
        self.type = type
        self.module = module
        self.env = env
        self.suite = suite ?? Self.identifier(from: type) + "FromTrace"
        self.test = test ?? "replaysRecordedCycles"
        self.origin = origin
    }

    /// The file's lines.
    package func render(_ window: TestWindow) -> [String] {
        let first = window.cycles.first!.cycle
        let last = window.cycles.last!.cycle
        let received = window.cycles.reduce(0) { $0 + $1.steps.filter { !$0.isSent }.count }
        let whose = window.transducer.isEmpty ? "runtime" : "\(Self.comment(window.transducer))'s runtime"
        var lines = [
            "// Written by `trace-view test-from` from \(Self.comment(origin)): cycles \(first)–\(last) of",
            "// \(whose) \(window.runtime.name), \(window.stepCount) steps: \(window.stepCount - received) sent, "
                + "\(received) received.",
            "//",
            "// It sends what the runtime was sent, receives what its tasks and chains fed back, in the",
            "// recorded order, and asserts each cycle's committed state as recorded. Events and states",
            "// are the recorder's JSON, decoded when the test runs: \(type)'s Event and State must be",
            "// Decodable and Equatable. The tasks run as the feature starts them, with the store's Env.",
        ]
        var notes: [String] = []
        if !window.racing.isEmpty {
            notes.append(
                (window.racing.count == 1 ? "Cycle \(window.racing[0])" : "Cycles \(Self.list(window.racing))")
                    + " received a task's result after a later send: the test holds only "
                    + "while the task is slower than that send, as it was in the recorded run (an Env with a "
                    + "TestClock makes it certain).")
        }
        let early = window.cycles.filter { if case .taskBeforeWindow = $0.steps[0].origin { true } else { false } }
        if !early.isEmpty {
            notes.append(
                (early.count == 1 ? "Cycle \(early[0].cycle) was" : "Cycles \(Self.list(early.map(\.cycle))) were")
                    + " fed back by tasks started before the window: the test sends their events.")
        }
        if !window.outliving.isEmpty {
            notes.append(
                "Tasks \(Self.names(window.outliving)) ended after the window: what they feed back is passed over.")
        }
        if !window.unended.isEmpty {
            notes.append(
                "Tasks \(Self.names(window.unended)) never ended in the trace: the test does not wait for them.")
        }
        if !notes.isEmpty {
            lines.append("//")
            for note in notes { lines += Self.wrapped(note, width: 96).map { "// " + $0 } }
        }
        lines += ["", "import Foundation", "import Testing", "import TransduceTesting"]
        if let module { lines.append("@testable import \(module)") }
        lines += ["", "@Suite struct \(suite) {", "    @Test func \(test)() async throws {"]
        let env = self.env.map { ", env: \($0)" } ?? ""
        if let start = window.startState {
            lines.append("        // The state cycle \(first - 1) committed.")
            lines.append(
                "        let store = TestStore(of: \(type).self, initialState: try recorded(\(type).State.self, \(Self.literal(start)))\(env))"
            )
        } else {
            lines.append("        let store = TestStore(of: \(type).self, initialState: \(type).initialState\(env))")
        }
        for cycle in window.cycles {
            let many = cycle.steps.count > 1
            for (index, step) in cycle.steps.enumerated() {
                let isLast = index == cycle.steps.count - 1
                lines.append(
                    "        // cycle \(cycle.cycle)" + (many ? " step \(index)" : "")
                        + ": \(Self.comment(step.label)), \(Self.describe(step.origin))")
                if many && index == 0 {
                    lines.append("        store.exhaustivity = .off  // its state is recorded at the cycle's end only")
                }
                let call =
                    "        await store.\(step.isSent ? "send" : "receive")(try recorded(\(type).Event.self, \(Self.literal(step.json))))"
                if isLast {
                    if many { lines.append("        store.exhaustivity = .on") }
                    lines.append(call + " {")
                    lines.append("            $0 = try recorded(\(type).State.self, \(Self.literal(cycle.state)))")
                    lines.append("        }")
                } else {
                    lines.append(call)
                }
            }
        }
        if !window.unended.isEmpty {
            lines.append("        // Not finished: tasks of the window never ended in the recorded run.")
        } else {
            if !window.outliving.isEmpty { lines.append("        await store.skipReceivedEvents()") }
            lines.append("        await store.finish()")
        }
        lines += [
            "    }", "}", "",
            "/// A value of `type` as the recorder wrote it: its JSON encoding.",
            "private func recorded<Value: Decodable>(_ type: Value.Type, _ json: String) throws -> Value {",
            "    try JSONDecoder().decode(type, from: Data(json.utf8))", "}",
        ]
        return lines
    }

    // MARK: Source text

    /// `text` as a raw string literal that it cannot end early: enough `#`s that neither a quote
    /// nor a backslash followed by them occurs in it, and every scalar outside printable ASCII
    /// escaped (control characters cannot stand in a one-line literal; bidirectional controls
    /// would show the reader other source than the compiler sees).
    package static func literal(_ text: String) -> String {
        var hashes = "#"
        while text.contains("\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
        var body = ""
        for scalar in text.unicodeScalars {
            if scalar.value >= 0x20 && scalar.value < 0x7F {
                body.unicodeScalars.append(scalar)
            } else {
                body += "\\" + hashes + "u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return hashes + "\"" + body + "\"" + hashes
    }

    /// `text` for a `//` comment: printable ASCII kept, the rest as `\u{…}`, at most 120 scalars.
    package static func comment(_ text: String) -> String {
        var out = ""
        for (n, scalar) in text.unicodeScalars.enumerated() {
            if n == 120 { return out + "…" }
            if scalar.value >= 0x20 && scalar.value < 0x7F {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }

    private static func describe(_ origin: TestWindow.Origin) -> String {
        switch origin {
        case .outside: "sent"
        case .task(let id, let name): "received from task #\(id)" + (name.isEmpty ? "" : " \(comment(name))")
        case .taskBeforeWindow(let id): "sent (fed back by task #\(id), started before the window)"
        case .chain: "received (chained)"
        }
    }

    private static func isIdentifier(_ text: String) -> Bool {
        guard let head = text.unicodeScalars.first, head == "_" || head.properties.isAlphabetic && head.isASCII else {
            return false
        }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
            && !["class", "struct", "enum", "func", "let", "var", "import", "init", "self", "Self", "in", "is", "as"]
                .contains(text)
    }

    /// A (possibly qualified, possibly generic) type name: identifiers joined by `.`, with
    /// balanced `<…>` arguments of the same shape separated by `,`.
    private static func isTypeName(_ text: String) -> Bool {
        let punctuation: Set<Character> = [".", "<", ">", ",", " "]
        var depth = 0
        for c in text {
            guard c.isASCII, c.isLetter || c.isNumber || c == "_" || punctuation.contains(c) else { return false }
            if c == "<" { depth += 1 }
            if c == ">" { depth -= 1 }
            if depth < 0 { return false }
        }
        let words = text.split(whereSeparator: { punctuation.contains($0) }).map(String.init)
        return depth == 0 && !words.isEmpty && words.allSatisfy(isIdentifier) && !text.contains("..")
            && text.first != "." && text.last != "." && text.first != "<"
    }

    private static func identifier(from type: String) -> String {
        let last = type.split(separator: "<").first.map(String.init) ?? type
        return last.split(separator: ".").last.map(String.init) ?? last
    }

    private static func list(_ cycles: [UInt64]) -> String {
        cycles.prefix(8).map(String.init).joined(separator: ", ") + (cycles.count > 8 ? " (\(cycles.count) in all)" : "")
    }

    private static func names(_ names: [String]) -> String {
        let shown = names.prefix(8).map { $0.isEmpty ? "(anonymous)" : comment($0) }
        return shown.joined(separator: ", ") + (names.count > 8 ? " (\(names.count) in all)" : "")
    }

    private static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
