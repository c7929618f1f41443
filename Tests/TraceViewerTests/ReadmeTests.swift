import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace
@testable import trace_view

/// The README's Swift, extracted from README.md itself: every block but those marked
/// `<!-- readme: fragment … -->` type-checks together, as one module, against this build's
/// Transduce and TransduceTrace; and the two blocks that ReadmeExampleTests.swift runs stand
/// there word for word.
@Suite(.disabled(if: underThreadSanitizer, "it type-checks source; nothing to race")) struct ReadmeTests {
    static let root = Repository.root

    /// The README's Swift blocks, each with whether it is marked a fragment.
    static func blocks() throws -> [(code: String, fragment: Bool)] {
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        var blocks: [(String, Bool)] = []
        var current: [String]?
        var fragment = false
        var previous = ""
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil, line == "```swift" {
                current = []
                fragment = previous.hasPrefix("<!-- readme: fragment")
            } else if current != nil, line == "```" {
                blocks.append((current!.joined(separator: "\n") + "\n", fragment))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
            previous = line
        }
        return blocks
    }

    /// A block as source of one module's file: its imports and top-level declarations as they
    /// are, its statements (top-level code, which only a main file may hold) in a function.
    static func source(of code: String, number: Int) -> String {
        var declarations: [String] = []
        var statements: [String] = []
        var inDeclaration = false
        let starts = [
            "import ", "nonisolated ", "enum ", "struct ", "protocol ", "final class ", "class ", "actor ",
            "extension ", "func ", "@",
        ]
        for line in code.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let first = line.first, !first.isWhitespace, line != "}" {
                inDeclaration = starts.contains { line.hasPrefix($0) }
            }
            if inDeclaration {
                declarations.append(line)
            } else {
                statements.append(line)
            }
        }
        let body = statements.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        return declarations.joined(separator: "\n")
            + (body.isEmpty ? "" : "\n\nfunc readmeBlock\(number)() async throws {\n" + body.joined(separator: "\n") + "\n}\n")
    }

    @Test func everySwiftBlockCompilesTogether() throws {
        let swiftc = try #require(Subprocess.which("swiftc"), "swiftc is not on PATH")
        let product = try #require(builtProduct("trace-view"), "trace-view was not built")
        let modules = URL(fileURLWithPath: product).deletingLastPathComponent().path + "/Modules"
        let blocks = try Self.blocks()
        #expect(blocks.count >= 6 && blocks.filter(\.fragment).count <= 2, "\(blocks.count) blocks")
        let dir = TemporaryDirectory()
        // A block without imports goes on from the block before it (a reader reads it so), in
        // the same file.
        var sources: [String] = []
        for (n, block) in blocks.enumerated() where !block.fragment {
            let source = Self.source(of: block.code, number: n)
            if block.code.contains("import ") || sources.isEmpty {
                sources.append(source)
            } else {
                sources[sources.count - 1] += "\n" + source
            }
        }
        var files: [String] = []
        for (n, source) in sources.enumerated() {
            let file = dir.file("block\(n).swift")
            try source.write(toFile: file, atomically: true, encoding: .utf8)
            files.append(file)
        }
        let includes = ["CTransduceClock", "CTraceRing", "CLTTng"].map { Self.root + "/Sources/\($0)/include" }
        let result = try Subprocess.run(
            swiftc,
            [
                "-typecheck", "-swift-version", "6", "-module-name", "ReadmeBlocks", "-I", modules,
            ] + includes.flatMap { ["-Xcc", "-I", "-Xcc", $0, "-Xcc", "-fmodule-map-file=\($0)/module.modulemap"] } + files,
            output: .capture, timeout: 300)
        #expect(result.status == 0, "the README's Swift does not compile together:\n\(result.output)")
    }

    @Test func theRunExampleIsTheReadmesWordForWord() throws {
        let blocks = try Self.blocks()
        let loader = try #require(blocks.first { $0.code.contains("enum Loader") }).code
        let declarations = try #require(loader.range(of: "\nlet runtime")).lowerBound
        let test = try #require(blocks.first { $0.code.contains("@Test") }).code
        try Self.expect(
            [String(loader[..<declarations]), test], in: "Tests/TraceAnalysisTests/ReadmeExampleTests.swift")
        // "Testing a feature" needs no copy: the ReadmeExamples plugin extracts it from README.md
        // into TransduceTestingTests at every build.
    }

    /// `file` holds each of `blocks`, all but its imports word for word.
    static func expect(_ blocks: [String], in path: String) throws {
        let file = try String(contentsOfFile: Self.root + "/" + path, encoding: .utf8)
        for block in blocks {
            // The imports stand together at the file's top; the rest word for word.
            let body = block.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("import ") }
                .joined(separator: "\n").trimmingCharacters(in: .newlines)
            #expect(file.contains(body), "\(path) does not hold the README's block:\n\(body)")
        }
    }

    /// The synopsis of every command, as `trace-view --help` gives it (made from each command's
    /// options), is what the README and the DocC manual show: one source, checked here as
    /// tokio-console checks its README against its help.
    @Test(arguments: [
        ("README.md", "## trace-view\n"),
        ("Sources/TransduceTrace/TransduceTrace.docc/TraceViewManual.md", "## Overview\n"),
    ])
    func theDocumentedSynopsisIsTheHelps(file: String, heading: String) async throws {
        let (status, out, err) = try await traceView(["--help"], columns: nil)
        #expect(status == 0, "\(err)")
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "SYNOPSIS:"), "--help has no SYNOPSIS section")
        let end = lines[start...].firstIndex(of: "") ?? lines.endIndex
        let synopsis = lines[(start + 1)..<end].joined(separator: "\n")
        #expect(synopsis.split(separator: "\n").filter { $0.hasPrefix("trace-view ") }.count == Registry.commands.count)
        let text = try String(contentsOfFile: Self.root + "/" + file, encoding: .utf8)
        let section = try #require(text.range(of: heading), "\(file) has no \(heading)")
        let open = try #require(text.range(of: "```\n", range: section.upperBound..<text.endIndex))
        let close = try #require(text.range(of: "```", range: open.upperBound..<text.endIndex))
        let block = text[open.upperBound..<close.lowerBound].trimmingCharacters(in: .newlines)
        #expect(block == synopsis, "\(file)'s synopsis is not --help's; copy it from `trace-view --help`")
    }
}
