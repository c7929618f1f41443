import Foundation
import PackagePlugin

/// Makes the README's "Testing a feature" examples, and the Swift of every guide in the DocC
/// catalogues, source files of the test target that uses this plugin, at every build: the tests
/// run what the README and the guides show, extracted, never copied.
@main struct ReadmeExamples: BuildToolPlugin {
    /// The guides whose Swift blocks are compiled and run: each article's path in the package
    /// and its title (the whole article is its section).
    static let guides = [
        ("Sources/TransduceTrace/TransduceTrace.docc/GettingStarted.md", "# Getting started"),
        ("Sources/TransduceTrace/TransduceTrace.docc/SendingSpansToOpenTelemetry.md", "# Sending request spans to OpenTelemetry"),
        ("Sources/TransduceTrace/TransduceTrace.docc/TestingWithTraces.md", "# Testing with traces"),
        ("Sources/TransduceTrace/TransduceTrace.docc/RunningTheRecorderInProduction.md", "# Running the recorder in production"),
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let tool = try context.tool(named: "readme-extract").url
        let readme = context.package.directoryURL.appending(path: "README.md")
        let output = context.pluginWorkDirectoryURL.appending(path: "ReadmeExamples.swift")
        var commands: [Command] = [
            .buildCommand(
                displayName: "Extracting the README's examples for \(target.name)",
                executable: tool,
                arguments: [readme.path(), "## Testing a feature", output.path()],
                inputFiles: [readme],
                outputFiles: [output])
        ]
        for (path, title) in Self.guides {
            let article = context.package.directoryURL.appending(path: path)
            let name = article.deletingPathExtension().lastPathComponent
            let source = context.pluginWorkDirectoryURL.appending(path: "Guide\(name).swift")
            commands.append(
                .buildCommand(
                    displayName: "Extracting the guide \(name)'s Swift for \(target.name)",
                    executable: tool,
                    arguments: [article.path(), title, source.path()],
                    inputFiles: [article],
                    outputFiles: [source]))
        }
        return commands
    }
}
