import Foundation
import PackagePlugin

/// Makes the README's "Testing a feature" examples a source file of the test target that uses
/// this plugin, at every build: the tests run what the README shows, extracted, never copied.
@main struct ReadmeExamples: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let readme = context.package.directoryURL.appending(path: "README.md")
        let output = context.pluginWorkDirectoryURL.appending(path: "ReadmeExamples.swift")
        return [
            .buildCommand(
                displayName: "Extracting the README's examples for \(target.name)",
                executable: try context.tool(named: "readme-extract").url,
                arguments: [readme.path(), "## Testing a feature", output.path()],
                inputFiles: [readme],
                outputFiles: [output])
        ]
    }
}
