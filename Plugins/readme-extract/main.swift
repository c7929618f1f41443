// readme-extract FILE SECTION OUTPUT: writes the Swift blocks of a Markdown FILE's section
// SECTION (a heading line, up to the next heading of its level; a title, the whole article) as
// one source file: their imports first, once each, then the rest of every block in order. What
// the ReadmeExamples plugin runs, on the README and on the DocC guides.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: readme-extract FILE SECTION OUTPUT\n".utf8))
    exit(2)
}
let (readmePath, heading, outputPath) = (arguments[1], arguments[2], arguments[3])
guard let readme = try? String(contentsOfFile: readmePath, encoding: .utf8) else {
    FileHandle.standardError.write(Data("readme-extract: cannot read \(readmePath)\n".utf8))
    exit(1)
}
let depth = heading.prefix { $0 == "#" }.count
var inSection = false
var block: [String]?
var imports: [String] = []
var bodies: [String] = []
for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
    if block == nil, line.hasPrefix("#") {
        if line == heading {
            inSection = true
        } else if inSection, line.prefix(while: { $0 == "#" }).count <= depth {
            break  // the next heading of the section's level or above
        }
        continue
    }
    guard inSection else { continue }
    if block == nil, line == "```swift" {
        block = []
    } else if block != nil, line == "```" {
        bodies.append(block!.joined(separator: "\n"))
        block = nil
    } else if block != nil {
        if line.hasPrefix("import ") {
            if !imports.contains(line) { imports.append(line) }
        } else {
            block!.append(line)
        }
    }
}
guard !bodies.isEmpty else {
    FileHandle.standardError.write(Data("readme-extract: no Swift block under \(heading) in \(readmePath)\n".utf8))
    exit(1)
}
let source =
    "// Generated from \(URL(fileURLWithPath: readmePath).lastPathComponent), \(heading.drop { $0 == "#" || $0 == " " }): edit that, not this.\n"
    + imports.sorted().joined(separator: "\n") + "\n\n"
    + bodies.map { $0.trimmingCharacters(in: .newlines) }.joined(separator: "\n\n") + "\n"
do {
    try source.write(toFile: outputPath, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("readme-extract: cannot write \(outputPath): \(error)\n".utf8))
    exit(1)
}
