import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace

/// The exports write nothing outside their published registry (``ExportAttribute``,
/// ``ExportName``), and the documentation's tables are the registry's own.
@Suite struct ExportVocabularyTests {
    /// `<n>` a number, any other `<…>` any text, the rest as it is.
    static func regex(_ pattern: String) throws -> NSRegularExpression {
        var expression = "^"
        var rest = Substring(pattern)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            expression += NSRegularExpression.escapedPattern(for: String(rest[..<open]))
            expression += rest[open...close] == "<n>" ? "[0-9]+" : ".*"
            rest = rest[rest.index(after: close)...]
        }
        return try NSRegularExpression(pattern: expression + NSRegularExpression.escapedPattern(for: String(rest)) + "$")
    }

    static func unregistered(_ names: some Sequence<String>, export: String) throws -> [String] {
        let patterns = try ExportName.allCases.filter { $0.entry.export.contains(export) }.map { try regex($0.entry.pattern) }
        return names.filter { name in
            !patterns.contains { $0.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil }
        }
    }

    /// Every key, span name and event name of an OTLP export of `events`.
    static func otlpVocabulary(_ events: [TraceEvent]) throws -> (keys: Set<String>, names: Set<String>) {
        let export = OTLPTraceExport(index: TraceIndex(events), hosts: [1: "host"], wallClockOffset: 0)
        var keys: Set<String> = []
        var names: Set<String> = []
        func attributes(_ object: [String: Any]?) {
            for a in object?["attributes"] as? [[String: Any]] ?? [] { keys.insert(a["key"] as? String ?? "?") }
        }
        var failure: Error?
        export.write(.json) { body, _ in
            do {
                let data = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
                for rs in data["resourceSpans"] as? [[String: Any]] ?? [] {
                    attributes(rs["resource"] as? [String: Any])
                    for ss in rs["scopeSpans"] as? [[String: Any]] ?? [] {
                        for span in ss["spans"] as? [[String: Any]] ?? [] {
                            names.insert(span["name"] as? String ?? "?")
                            attributes(span)
                            for e in span["events"] as? [[String: Any]] ?? [] {
                                names.insert(e["name"] as? String ?? "?")
                                attributes(e)
                            }
                            for l in span["links"] as? [[String: Any]] ?? [] { attributes(l) }
                        }
                    }
                }
            } catch { failure = error }
            return failure == nil
        }
        if let failure { throw failure }
        return (keys, names)
    }

    @Test func theOTLPExportWritesOnlyRegisteredNames() async throws {
        var events = try await SharedTraces.mixed.value
        events += try await TraceContexts.recorded.value.trace.events.map {
            var e = $0
            e.process = 7
            return e
        }
        let (keys, names) = try Self.otlpVocabulary(events)
        let registered = Set(ExportAttribute.allCases.filter { $0.export == "OTLP" }.map(\.rawValue))
        #expect(keys.isSubset(of: registered), "unregistered: \(keys.subtracting(registered))")
        // The traces use (nearly) all of it: a registry that lists what nothing writes is wrong too.
        #expect(registered.subtracting(keys).isSubset(of: ["host.name"]), "never written: \(registered.subtracting(keys))")
        #expect(names.count > 20)
        let stray = try Self.unregistered(names, export: "OTLP")
        #expect(stray.isEmpty, "\(stray.prefix(5))")
    }

    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func thePerfettoExportWritesOnlyRegisteredNames() async throws {
        let dir = TemporaryDirectory()
        let events = try await SharedTraces.mixed.value
        let (_, path, _) = try await exportTrace(events, format: "perfetto", in: dir)
        let read = try await PerfettoProtoReader.read(path)
        let arguments = Set(read["argument_names"] as? [String] ?? [])
        let registered = Set(ExportAttribute.allCases.filter { $0.export == "Perfetto" }.map(\.rawValue))
        #expect(!arguments.isEmpty && arguments.isSubset(of: registered), "unregistered: \(arguments.subtracting(registered))")
        let names = read["names"] as? [String] ?? []
        #expect(names.count > 20)
        let stray = try Self.unregistered(names, export: "Perfetto")
        #expect(stray.isEmpty, "\(stray.prefix(5))")
    }

    /// The article's tables are the registry's (one source: the code).
    @Test func theDocumentationListsTheRegistry() throws {
        let article = try String(
            contentsOfFile: Repository.root + "/Sources/TransduceTrace/TransduceTrace.docc/SendingSpansToOpenTelemetry.md",
            encoding: .utf8)
        #expect(
            article.contains(ExportAttribute.markdownTable),
            "the attribute table differs from ExportAttribute:\n\(ExportAttribute.markdownTable)")
        #expect(
            article.contains(ExportName.markdownTable), "the name table differs from ExportName:\n\(ExportName.markdownTable)")
    }
}
