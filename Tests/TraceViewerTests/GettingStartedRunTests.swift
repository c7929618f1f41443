import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

/// Getting started, followed as a newcomer follows it, in order, in a scratch directory: the
/// package cloned beside a new app (`transduce`, this repository), the app's manifest made with
/// the guide's own lines, its Swift as the app's test, `swift test` run in the app, then every
/// command of "Look at it" on the file that test left. Nothing is copied in for it: a guide whose
/// step reads a file an earlier step deleted, or names a package that is not there, fails here.
@Suite struct GettingStartedRunTests {
    static let guide = Repository.root + "/Sources/TransduceTrace/TransduceTrace.docc/GettingStarted.md"

    /// The guide's fenced blocks in order: their info string (`swift`, `shell`, or "") and lines.
    static func blocks() throws -> [(kind: String, lines: [String])] {
        var blocks: [(kind: String, lines: [String])] = []
        var open: (kind: String, lines: [String])?
        for line in try String(contentsOfFile: guide, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if let block = open {
                    blocks.append(block)
                    open = nil
                } else {
                    open = (String(line.dropFirst(3)), [])
                }
            } else if open != nil {
                open!.lines.append(String(line))
            }
        }
        return blocks
    }

    @Test(.timeLimit(.minutes(Patience.minutes(15))))
    func aNewcomerFollowsTheGuideInOrder() async throws {
        let swift = try #require(Subprocess.which("swift"))
        let blocks = try Self.blocks()
        // The manifest's lines: a dependency on the package and the app target's products.
        let manifest = try #require(blocks.first { $0.kind.isEmpty && $0.lines.contains { $0.contains(".package(") } })
        let dependency = try #require(manifest.lines.first { $0.contains(".package(") })
        let target = manifest.lines.drop { !$0.contains(".target(") }.joined(separator: "\n")
        let code = try #require(blocks.first { $0.kind == "swift" }).lines.joined(separator: "\n")
        let commands = blocks.filter { $0.kind == "shell" }.flatMap(\.lines).filter { $0.hasPrefix("trace-view ") }
        #expect(commands.count >= 5, "\(commands)")

        let dir = TemporaryDirectory()
        let app = dir.file("app")
        // "clone it beside your app": the repository, as `transduce`.
        try FileManager.default.createSymbolicLink(atPath: dir.file("transduce"), withDestinationPath: Repository.root)
        try FileManager.default.createDirectory(atPath: app + "/Sources/App", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: app + "/Tests/AppTests", withIntermediateDirectories: true)
        try """
        // swift-tools-version: 6.2
        import PackageDescription

        let package = Package(
            name: "App",
            dependencies: [
                \(dependency)
            ],
            targets: [
                \(target)
                .testTarget(name: "AppTests", dependencies: [
                    "App", .product(name: "Transduce", package: "transduce"),
                    .product(name: "TransduceTrace", package: "transduce"),
                ]),
            ]
        )
        """.write(toFile: app + "/Package.swift", atomically: true, encoding: .utf8)
        try "public let appName = \"App\"\n".write(toFile: app + "/Sources/App/App.swift", atomically: true, encoding: .utf8)
        try code.write(toFile: app + "/Tests/AppTests/FirstTracedFeature.swift", atomically: true, encoding: .utf8)

        // `swift test` in the app's directory, where its test writes the trace.
        let built = try await offThePool {
            try Subprocess.run(
                "/bin/sh", ["-c", "cd '\(app)' && '\(swift)' test 2>&1"], output: .capture,
                timeout: 900 * Patience.factor)
        }
        #expect(built.status == 0, "swift test in the guide's app:\n\(built.output.suffix(3_000))")
        #expect(built.output.contains("aFirstTracedFeature() passed"), "\(built.output.suffix(2_000))")
        #expect(FileManager.default.fileExists(atPath: app + "/prices.tdtrace"), "the guide's test left no trace")

        // "Look at it": each command as written, its files in the app's directory.
        for command in commands {
            let words = (command.range(of: "  #").map { String(command[..<$0.lowerBound]) } ?? command)
                .split(separator: " ").map(String.init)
            let arguments = words.dropFirst().map { word in
                !word.hasPrefix("-") && word.contains(".") && !word.contains("/") ? app + "/" + word : word
            }
            let run = try await traceView(Array(arguments))
            #expect(run.status == 0, "\(command): \(run.err)")
            if let output = words.firstIndex(of: "--output").map({ words[$0 + 1] }) {
                let size = (try? FileManager.default.attributesOfItem(atPath: app + "/" + output)[.size] as? Int) ?? 0
                #expect(size > 0, "\(command) wrote nothing")
            } else {
                #expect(!run.out.isEmpty, "\(command) printed nothing")
            }
            // The trace holds what the guide's test did: two requests, each answered.
            if words[1] == "summary" { #expect(run.out.contains(/requestResume +2\n/), "\(run.out)") }
        }
    }
}
