import Foundation
import VocabularyGenerator

// vocabulary-gen [--check] [PACKAGE-ROOT]: writes what Vocabulary/events.json generates (C provider,
// wrappers, Swift tables, the trace contract's table), or with --check only says which files are
// stale. Exit 0 done or up to date, 1 stale (--check), 2 a definition it refuses, 64 usage.

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: vocabulary-gen [--check] [PACKAGE-ROOT]  (scripts/vocabulary.sh runs it)")
    exit(0)
}
let check = arguments.contains("--check")
let rest = arguments.filter { $0 != "--check" }
guard rest.count <= 1, !(rest.first?.hasPrefix("-") ?? false) else {
    FileHandle.standardError.write(Data("vocabulary-gen: unknown argument \(rest.joined(separator: " "))\n".utf8))
    exit(64)
}
let root = URL(fileURLWithPath: rest.first ?? FileManager.default.currentDirectoryPath)
do {
    let vocabulary = try Vocabulary.load(root.appending(path: Outputs.definition))
    let (stale, wanted) = try Outputs(vocabulary).compare(root: root)
    if check {
        for path in stale { print("stale: \(path) (run scripts/vocabulary.sh)") }
        if stale.isEmpty { print("up to date") }
        exit(stale.isEmpty ? 0 : 1)
    }
    for file in wanted where stale.contains(file.path) {
        try Data(file.content.utf8).write(to: root.appending(path: file.path), options: .atomic)
        print("wrote \(file.path)")
    }
    if stale.isEmpty { print("up to date") }
} catch {
    FileHandle.standardError.write(Data("vocabulary-gen: \(error)\n".utf8))
    exit(2)
}
