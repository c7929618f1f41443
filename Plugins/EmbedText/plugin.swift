import Foundation
import PackagePlugin

/// Compiles text resources into the target that uses this plugin, as string constants: each
/// file of ``resources`` (excluded from the target's sources in Package.swift) becomes
/// `extension TYPE { static let PROPERTY: String }` at every build. The report's script is so a
/// JavaScript file of its own, which `scripts/lint.sh` lints with ESLint, and trace-view still
/// needs nothing beside its binary.
@main struct EmbedText: BuildToolPlugin {
    /// Each resource's path in the target, and the type and property that hold its text.
    static let resources = [
        (path: "Report/report.js", type: "ReportScript", property: "js")
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let tool = try context.tool(named: "embed-text").url
        return Self.resources.map { resource in
            let input = target.directoryURL.appending(path: resource.path)
            let name = input.deletingPathExtension().lastPathComponent
            let output = context.pluginWorkDirectoryURL.appending(path: "Embedded-\(name).swift")
            return .buildCommand(
                displayName: "Embedding \(resource.path) in \(target.name)",
                executable: tool,
                arguments: [input.path(), output.path(), resource.type, resource.property],
                inputFiles: [input],
                outputFiles: [output])
        }
    }
}
