import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

/// The command lines the guides show (their `shell` blocks) run as written, on the demo's trace:
/// each exits 0 and prints something or writes the file it names. (Their Swift runs in
/// TransduceTestingTests, extracted by the ReadmeExamples plugin.)
@Suite struct GuideCommandsTests {
    static let catalogue = Repository.root + "/Sources/TransduceTrace/TransduceTrace.docc/"

    /// The command lines of `guide`'s `shell` blocks, each as its words (a comment cut off).
    static func commands(in guide: String) throws -> [[String]] {
        let text = try String(contentsOfFile: catalogue + guide, encoding: .utf8)
        var inBlock = false
        var commands: [[String]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "```shell" {
                inBlock = true
            } else if line.hasPrefix("```") {
                inBlock = false
            } else if inBlock, line.hasPrefix("trace-view ") {
                let command = line.range(of: "  #").map { line[..<$0.lowerBound] } ?? line
                commands.append(command.split(separator: " ").map(String.init))
            }
        }
        return commands
    }

    @Test(arguments: [
        "GettingStarted.md", "WhyWasThisRequestSlow.md", "ProfilingGateContention.md", "VisualizingARequestsLifecycle.md",
        "SendingSpansToOpenTelemetry.md", "CatchingARegressionInCI.md",
    ])
    func theGuidesCommandsRun(_ guide: String) async throws {
        let commands = try Self.commands(in: guide)
        #expect(commands.count >= 2, "\(guide) shows no commands")
        let dir = TemporaryDirectory()
        // The demo's trace, under every trace name a guide uses.
        let saved = try await traceView(["demo", "--save", dir.file("demo.tdtrace")])
        #expect(saved.status == 0, "\(saved.err)")
        for word in Set(commands.joined()) where word.hasSuffix(".tdtrace") && word != "demo.tdtrace" {
            try FileManager.default.copyItem(atPath: dir.file("demo.tdtrace"), toPath: dir.file(word))
        }
        let receiver = PerfettoProtoReader.readersAvailable
        for command in commands {
            // A collector's address is the test's own receiver (skipped without the readers).
            if command.contains(where: { $0.hasPrefix("http://") }) && !receiver { continue }
            let run = { (port: Int?) async throws in
                let arguments = command.dropFirst().map { word -> String in
                    if word.hasPrefix("http://"), let port { return "http://127.0.0.1:\(port)" }
                    return !word.hasPrefix("-") && word.contains(".") && !word.contains("/") ? dir.file(word) : word
                }
                let result = try await traceView(Array(arguments))
                #expect(result.status == 0, "\(guide): \(command.joined(separator: " ")): \(result.err)")
                if let output = command.firstIndex(of: "--output").map({ command[$0 + 1] }) {
                    let size = (try? FileManager.default.attributesOfItem(atPath: dir.file(output))[.size] as? Int) ?? 0
                    #expect(size > 0, "\(guide): \(command.joined(separator: " ")) wrote nothing")
                } else if command.contains(where: { $0.hasPrefix("http://") }) {
                    #expect(result.err.contains("sent the spans of"), "\(result.err)")
                } else if command[1] != "demo" {
                    #expect(!result.out.isEmpty, "\(guide): \(command.joined(separator: " ")) printed nothing")
                }
            }
            if command.contains(where: { $0.hasPrefix("http://") }) {
                try await OTLPReader.withReceiver("ok") { port, _ in try await run(port) }
            } else {
                try await run(nil)
            }
        }
    }

    /// Read in order, each guide only reads what an earlier step of its own wrote: a trace a
    /// `shell` step names was saved by an earlier command (`--save`, `--output`) or written by its
    /// Swift (`write(to: "…")`), not a file its own test deleted; and no guide names a placeholder
    /// for the reader to fill in (an organization, a host) where it means a real one.
    @Test(arguments: [
        "GettingStarted.md", "WhyWasThisRequestSlow.md", "ProfilingGateContention.md", "VisualizingARequestsLifecycle.md",
        "SendingSpansToOpenTelemetry.md", "RecordingTraces.md", "TestingWithTraces.md",
        "RunningTheRecorderInProduction.md", "CatchingARegressionInCI.md",
    ])
    func eachGuideReadsOnlyWhatItWrote(_ guide: String) throws {
        let text = try String(contentsOfFile: Self.catalogue + guide, encoding: .utf8)
        var written = Set<String>()
        var block: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                block = block == nil ? String(line.dropFirst(3)) : nil
                continue
            }
            if block == "swift" {
                for match in line.matches(of: /write\(to: "([^"]+)"/) { written.insert(String(match.1)) }
            } else if block == "shell", line.hasPrefix("trace-view ") {
                let words = (line.range(of: "  #").map { String(line[..<$0.lowerBound]) } ?? line).split(separator: " ")
                    .map(String.init)
                for (i, word) in words.enumerated().dropFirst(2) where word.hasSuffix(".tdtrace") || word.hasSuffix(".jsonl") {
                    if ["--save", "--output"].contains(words[i - 1]) { continue }
                    #expect(written.contains(word), "\(guide): `\(line)` reads \(word), which no step before it wrote")
                }
                for (i, word) in words.enumerated().dropFirst() where ["--save", "--output"].contains(words[i - 1]) {
                    written.insert(word)
                }
            }
        }
        for placeholder in ["ORGANIZATION", "YOUR-", "YOUR_", "example.com/", "<your"] {
            #expect(!text.contains(placeholder), "\(guide) names a placeholder: \(placeholder)")
        }
    }
}
