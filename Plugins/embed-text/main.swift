// embed-text INPUT OUTPUT TYPE PROPERTY: writes OUTPUT, a Swift file declaring
// `extension TYPE { static let PROPERTY: String }` whose value is INPUT's text exactly (less one
// final newline), in a raw string literal whose delimiter the text cannot close. The EmbedText
// plugin runs it at every build, so a resource such as the report's script is edited, linted and
// diffed as its own file and still compiled into the binary (no bundle to find beside it).
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: embed-text INPUT OUTPUT TYPE PROPERTY\n".utf8))
    exit(64)
}
let (input, output, type, property) = (arguments[1], arguments[2], arguments[3], arguments[4])
guard var text = try? String(contentsOfFile: input, encoding: .utf8) else {
    FileHandle.standardError.write(Data("embed-text: cannot read \(input) as UTF-8\n".utf8))
    exit(66)
}
if text.hasSuffix("\n") { text.removeLast() }
guard !text.contains("\r") else {
    FileHandle.standardError.write(
        Data("embed-text: \(input) has carriage returns, which a multi-line string literal would not keep\n".utf8))
    exit(65)
}
// The fewest `#`s such that neither the closing delimiter nor an escape with them occurs.
var hashes = "#"
while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
let name = URL(fileURLWithPath: input).lastPathComponent
let source = """
    // Generated at build time from \(name) by the EmbedText plugin (embed-text): edit \(name).
    extension \(type) {
        static let \(property) = \(hashes)\"\"\"
    \(text)
    \"\"\"\(hashes)
    }

    """
do {
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("embed-text: cannot write \(output): \(error)\n".utf8))
    exit(73)
}
