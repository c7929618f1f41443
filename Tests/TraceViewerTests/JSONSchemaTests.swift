import Foundation
import Testing
import TraceTooling
import TransduceTestSupport
import TransduceTrace

@testable import trace_view

/// One documented shape per command: each table command's `--format json` rows (JSON Lines, a
/// `schema_version` in each) are described by `docs/schemas/COMMAND.schema.json`, made from the
/// command's own ``TableSchema`` (so the help, the rows and the schema cannot drift apart), and
/// real output of each, on several traces, is validated against it by PyPI's `jsonschema`.
@Suite struct JSONSchemaTests {
    static let commands: [(name: String, table: TableSchema)] = [
        ("slow", SlowCommand.table), ("tasks", TasksCommand.table), ("summary", SummaryCommand.table),
        ("contention", ContentionCommand.table), ("check", CheckCommand.table), ("diff", DiffCommand.table),
    ]
    static let schemas = Repository.root + "/docs/schemas"

    /// The committed schema files are what the commands' tables say (`UPDATE_GOLDENS=1`
    /// rewrites them), and no other schema file lies beside them.
    @Test func theSchemaFilesAreTheCommandsOwn() throws {
        for (name, table) in Self.commands {
            let path = Self.schemas + "/\(name).schema.json"
            let made = table.jsonSchema(command: name)
            if ProcessInfo.processInfo.environment["UPDATE_GOLDENS"] != nil {
                try FileManager.default.createDirectory(atPath: Self.schemas, withIntermediateDirectories: true)
                try made.write(toFile: path, atomically: true, encoding: .utf8)
                continue
            }
            let committed = try String(contentsOfFile: path, encoding: .utf8)
            #expect(committed == made, "\(path) is not what `\(name)`'s table says: run UPDATE_GOLDENS=1")
            // Valid JSON, naming every column.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(committed.utf8)) as? [String: Any])
            #expect((object["required"] as? [String])?.count == table.columns.count + 1)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.schemas).filter { $0.hasSuffix(".schema.json") }
        #expect(Set(files) == Set(Self.commands.map { "\($0.name).schema.json" }))
    }

    /// A trace whose check finds violations: the demo with a second cycle entered in its first.
    static func brokenTrace(in dir: TemporaryDirectory) throws -> String {
        var lines: [String] = []
        var done = false
        for line in try String(contentsOfFile: fixtures + "/demo.jsonl", encoding: .utf8).split(separator: "\n") {
            lines.append(String(line))
            if !done, line.contains(#""kind":"cycleEnter""#) {
                lines.append(line.replacingOccurrences(of: #""cycle":1,"#, with: #""cycle":999,"#))
                done = true
            }
        }
        let path = dir.file("broken.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(.enabled(if: PerfettoProtoReader.readersAvailable), .timeLimit(.minutes(Patience.minutes(5))))
    func everyCommandsRowsMatchItsSchema() async throws {
        let dir = TemporaryDirectory()
        let mixed = try await OTLPReader.export(try await SharedTraces.mixed.value, in: dir).input
        let traces = [fixtures + "/demo.jsonl", fixtures + "/two-runtimes.jsonl", mixed, try Self.brokenTrace(in: dir)]
        for (name, _) in Self.commands {
            var rows = 0
            for (i, trace) in traces.enumerated() {
                // `diff` compares two: each trace against the demo, with a rule that holds (the
                // trace's runs against the demo's differ) and one that does not, for rule rows too.
                let run = try await traceView(
                    name == "diff"
                        ? [
                            name, "--format", "json", fixtures + "/demo.jsonl", trace, "--fail-on", "count(request(*)) > +0%",
                            "--fail-on", "new-warnings",
                        ]
                        : [name, "--format", "json", trace])
                #expect(run.status == 0 || (["check", "diff"].contains(name) && run.status == 1), "\(name) \(trace): \(run.err)")
                let output = dir.file("\(name)-\(i).jsonl")
                try run.out.write(toFile: output, atomically: true, encoding: .utf8)
                let checked = try await offThePool {
                    try Subprocess.run(
                        PerfettoProtoReader.python,
                        [Repository.root + "/scripts/schema-check.py", Self.schemas + "/\(name).schema.json", output],
                        output: .captureSeparately, timeout: 120)
                }
                #expect(checked.status == 0, "\(checked.errors)")
                let result = try #require(try JSONSerialization.jsonObject(with: Data(checked.output.utf8)) as? [String: Any])
                #expect(result["error_count"] as? Int == 0, "\(name) on \(trace): \(result["errors"] ?? "")")
                rows += result["rows"] as? Int ?? 0
            }
            #expect(rows > 0, "\(name) wrote no rows to check")
        }
        // slow --json is --format json.
        let alias = try await traceView(["slow", "--json", traces[0]])
        let long = try await traceView(["slow", "--format", "json", traces[0]])
        #expect(alias.status == 0 && alias.out == long.out && !alias.out.isEmpty)
        let both = try await traceView(["slow", "--json", "--format", "tsv", traces[0]])
        #expect(both.status == 64, "\(both.err)")
    }
}
