import Foundation

/// Every file the vocabulary generates, by path in the package, and the trace contract's table,
/// which is spliced between two markers of a hand-written article.
public struct Outputs {
    public let vocabulary: Vocabulary

    public init(_ vocabulary: Vocabulary) { self.vocabulary = vocabulary }

    /// The definition's path in the package.
    public static let definition = "Vocabulary/events.json"
    /// The article whose event table is generated.
    public static let contract = "Sources/TransduceTrace/TransduceTrace.docc/TheTraceContract.md"
    static let tableStart = "<!-- The table below is generated from Vocabulary/events.json by scripts/vocabulary.sh. -->"
    static let tableEnd = "<!-- End of the generated table. -->"

    /// The generated files: package path → content.
    public var files: [(path: String, content: String)] {
        let c = CProvider(vocabulary: vocabulary)
        let swift = SwiftSources(vocabulary: vocabulary)
        return [
            ("Sources/CLTTng/include/\(vocabulary.provider)_tp.h", c.tracepointHeader),
            ("Sources/CLTTng/include/clttng_events.h", c.wrapperHeader),
            ("Sources/CLTTng/clttng_events.c", c.wrappers),
            ("Sources/CTraceRing/include/clttng_kinds.h", c.kindConstants),
            ("Sources/CTraceRing/clttng_codes.c", c.codeTables),
            ("Sources/Transduce/Instrumentation/RuntimeEvent+Kind.swift", swift.kinds),
            ("Sources/TransduceTrace/Model/TraceSchema+Fields.swift", swift.schemaFields),
            ("Sources/TransduceTrace/Model/TraceNames+Codes.swift", swift.codeTables),
            ("Sources/TransduceTrace/Recorder/LTTngSink.swift", swift.lttngSink),
        ]
    }

    /// The trace contract's event table (Markdown).
    public var contractTable: String {
        var out =
            "| Kind (``TraceEvent/Kind``) | LTTng event | Fields beyond the common ones | Emitted when |\n|---|---|---|---|\n"
        for kind in vocabulary.kinds {
            let fields = kind.schemaFields.map { field -> String in
                guard let set = vocabulary.codeSet(field.codes) else { return field.about }
                return "\(field.about) (\(set.names.joined(separator: ", ")))"
            }.joined(separator: ", ")
            out += "| `\(kind.name)` | `\(vocabulary.provider):\(kind.lttngName)` | \(fields) | \(kind.emitted) |\n"
        }
        return out
    }

    /// `article` with the text between its markers replaced by ``contractTable``.
    public func splicingTable(into article: String) throws -> String {
        guard let start = article.range(of: Self.tableStart), let end = article.range(of: Self.tableEnd),
            start.upperBound <= end.lowerBound
        else {
            throw Vocabulary.Invalid(description: "\(Self.contract) lacks the generated table's markers")
        }
        return String(article[..<start.upperBound]) + "\n" + contractTable + String(article[end.lowerBound...])
    }

    /// What differs between the package at `root` and what the definition generates: the stale
    /// paths, and every file's wanted content (the contract with its table spliced in).
    public func compare(root: URL) throws -> (stale: [String], wanted: [(path: String, content: String)]) {
        let article = try String(contentsOf: root.appending(path: Self.contract), encoding: .utf8)
        let wanted = files + [(Self.contract, try splicingTable(into: article))]
        let stale = wanted.filter { file in
            (try? String(contentsOf: root.appending(path: file.path), encoding: .utf8)) != file.content
        }.map(\.path)
        return (stale, wanted)
    }
}
