import Foundation
import Testing

@testable import VocabularyGenerator

/// The event vocabulary is one definition (Vocabulary/events.json); these tests hold the package to
/// it: every generated file as checked in is what the definition generates, a definition with a
/// mistake is refused with the mistake's place, and a new kind reaches every generated file and
/// compiles against LTTng-UST's own headers.
@Suite struct VocabularyGeneratorTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func definition() throws -> Vocabulary { try Vocabulary.load(root.appending(path: Outputs.definition)) }

    /// The definition with a kind added that has `taskJoin`'s layout (a task and a dispatch), as a
    /// contributor would add one.
    static func definitionWithANewKind() throws -> Vocabulary {
        var vocabulary = try definition()
        vocabulary.kinds.append(
            .init(
                name: "taskHandOff", emitted: "a task hands its waiters to another", note: nil,
                fields: [
                    .init(name: "task", slot: .task, about: "task"),
                    .init(name: "dispatch", slot: .dispatch, about: "dispatch of the waiter handed over"),
                ]))
        try vocabulary.validate()
        return vocabulary
    }

    @Test func theCheckedInFilesAreWhatTheDefinitionGenerates() throws {
        let (stale, wanted) = try Outputs(Self.definition()).compare(root: Self.root)
        #expect(stale.isEmpty, "stale (run scripts/vocabulary.sh): \(stale)")
        #expect(wanted.count == 10)
    }

    @Test func everyKindIsInEveryFileInCodeOrder() throws {
        let vocabulary = try Self.definition()
        let outputs = Outputs(vocabulary)
        let files = Dictionary(uniqueKeysWithValues: outputs.files.map { ($0.path, $0.content) })
        func positions(_ file: String, _ needle: (Vocabulary.Kind) -> String) -> [String.Index] {
            vocabulary.kinds.compactMap { files[file]?.range(of: needle($0))?.lowerBound }
        }
        let checks: [(String, (Vocabulary.Kind) -> String)] = [
            ("Sources/CLTTng/include/transduce_tp.h", { "transduce, \($0.lttngName)," }),
            ("Sources/CLTTng/include/clttng_events.h", { "void clttng_\($0.lttngName)(uint64_t runtime" }),
            ("Sources/CTraceRing/include/clttng_kinds.h", { "CLTTNG_KIND_\($0.constant)" }),
            ("Sources/Transduce/Instrumentation/RuntimeEvent+Kind.swift", { "case \($0.name)\n" }),
            ("Sources/TransduceTrace/Model/TraceSchema+Fields.swift", { "// \($0.name)\n" }),
            ("Sources/TransduceTrace/Recorder/LTTngSink.swift", { "case .\($0.name):" }),
        ]
        for (file, needle) in checks {
            let found = positions(file, needle)
            #expect(found.count == vocabulary.kinds.count, "\(file) names every kind")
            #expect(found == found.sorted(), "\(file) in code order")
        }
        #expect(outputs.contractTable.split(separator: "\n").count == vocabulary.kinds.count + 2)
    }

    @Test func aNewKindReachesEveryGeneratedFileAndSharesALayout() throws {
        let vocabulary = try Self.definitionWithANewKind()
        let outputs = Outputs(vocabulary)
        let files = Dictionary(uniqueKeysWithValues: outputs.files.map { ($0.path, $0.content) })
        let header = try #require(files["Sources/CLTTng/include/transduce_tp.h"])
        // taskJoin and the new kind coincide: one event class, two instances.
        #expect(header.contains("LTTNG_UST_TRACEPOINT_EVENT_CLASS(transduce, task_join_layout,"))
        #expect(header.contains("LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(transduce, task_join_layout, transduce, task_join,"))
        #expect(header.contains("LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(transduce, task_join_layout, transduce, task_hand_off,"))
        #expect(!header.contains("LTTNG_UST_TRACEPOINT_EVENT(transduce, task_join,"))
        #expect(
            files["Sources/CLTTng/include/clttng_events.h"]?.contains(
                "void clttng_task_hand_off(uint64_t runtime, uint64_t task, uint64_t dispatch);") == true)
        #expect(
            files["Sources/CTraceRing/include/clttng_kinds.h"]?.contains("CLTTNG_KIND_TASK_HAND_OFF,\n    CLTTNG_KIND_COUNT")
                == true)
        #expect(
            files["Sources/TransduceTrace/Recorder/LTTngSink.swift"]?.contains(
                "case .taskHandOff:\n            clttng_task_hand_off(runtime, e.task, e.dispatch)") == true)
        #expect(
            files["Sources/TransduceTrace/Model/TraceSchema+Fields.swift"]?.contains(
                "[.init(\"task\", .task), .init(\"dispatch\", .dispatch)],  // taskHandOff") == true)
        #expect(files["Sources/TransduceTrace/Model/TraceNames+Codes.swift"]?.contains(".taskHandOff") == true)
        #expect(
            outputs.contractTable.contains(
                "| `taskHandOff` | `transduce:task_hand_off` | task, dispatch of the waiter handed over |"))
    }

    /// Mistakes a contributor makes, each refused with the place of the mistake.
    @Test(arguments: [
        (#""name": "cycleEnter","#, #""name": "cycle_enter2","#, "kind \"cycle_enter2\" must be a lower camel case"),
        (
            #"{ "name": "waited_ns", "slot": "nanos""#, #"{ "name": "waited_ns", "slot": "cycle""#,
            "field cycleEnter.waited_ns reuses slot cycle"
        ),
        (
            #""codes": "styles", "about": "style" },"#, #""about": "style" },"#,
            "field dispatch.style is a code and must name a code set"
        ),
        (#""codes": "dropReasons""#, #""codes": "dropReason""#, "field eventDropped.reason is a code and must name a code set"),
        (
            #"{ "name": "step", "slot": "step", "about": "step" },"#, #"{ "name": "step", "slot": "steps", "about": "step" },"#,
            "kinds[5].fields[1].slot"
        ),
        (
            #"{ "name": "cycle", "slot": "cycle", "about": "cycle" },"#,
            #"{ "name": "cycle", "slot": "cycle", "about": "cycle", "hex": true, "codes": "styles" },"#,
            "not a code slot but names a code set"
        ),
        (#""name": "transduce","#, #""name": "effect","#, "kind \"effect\" is defined twice"),
        (#""about": "queue depth left" }"#, #""slot": "count" }"#, "kinds[4].fields[3].about is missing"),
    ])
    func aMistakeIsRefusedWithItsPlace(_ original: String, _ replacement: String, _ message: String) throws {
        let text = try String(contentsOf: Self.root.appending(path: Outputs.definition), encoding: .utf8)
        let range = try #require(text.range(of: original), "the definition has \(original)")
        let broken = text.replacingCharacters(in: range, with: replacement)
        #expect {
            _ = try Vocabulary.decode(Data(broken.utf8))
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func theContractArticleMustKeepItsMarkers() throws {
        #expect(throws: Vocabulary.Invalid.self) { try Outputs(Self.definition()).splicingTable(into: "# No table here\n") }
    }

    /// The generated provider (with the new kind, so an event class is among it) compiled as the
    /// package compiles it, against the system's LTTng-UST headers: the wrappers, the tracepoint
    /// definitions and the probes (`LTTNG_UST_TRACEPOINT_CREATE_PROBES`, where a field whose
    /// argument does not exist or whose type is wrong fails).
    @Test(.timeLimit(.minutes(5))) func theGeneratedProviderCompilesAgainstLTTngUST() async throws {
        let headers = [
            "/usr/include/x86_64-linux-gnu/lttng/tracepoint.h", "/usr/include/aarch64-linux-gnu/lttng/tracepoint.h",
            "/usr/include/lttng/tracepoint.h",
        ]
        try #require(
            headers.contains { FileManager.default.fileExists(atPath: $0) },
            "LTTng-UST's headers (liblttng-ust-dev; scripts/bootstrap.sh installs them)")
        let scratch = FileManager.default.temporaryDirectory.appending(path: "vocabulary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        for directory in ["Sources/CLTTng/include", "Sources/CTraceRing/include"] {
            try FileManager.default.createDirectory(at: scratch.appending(path: directory), withIntermediateDirectories: true)
        }
        for path in [
            "Sources/CLTTng/include/clttng.h", "Sources/CLTTng/clttng_probes.c", "Sources/CTraceRing/include/clttng_format.h",
        ] {
            try FileManager.default.copyItem(at: Self.root.appending(path: path), to: scratch.appending(path: path))
        }
        for file in Outputs(try Self.definitionWithANewKind()).files where !file.path.hasSuffix(".swift") {
            try Data(file.content.utf8).write(to: scratch.appending(path: file.path))
        }
        for source in ["Sources/CLTTng/clttng_events.c", "Sources/CLTTng/clttng_probes.c", "Sources/CTraceRing/clttng_codes.c"] {
            let (status, output) = try await Self.run(
                "clang",
                [
                    "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I", "Sources/CLTTng/include",
                    "-I", "Sources/CTraceRing/include", source,
                ],
                in: scratch)
            #expect(status == 0, "\(source): \(output)")
        }
    }

    /// Runs `tool` (found on PATH) and waits for it without holding a thread of the pool.
    static func run(_ tool: String, _ arguments: [String], in directory: URL) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (status, text)
    }
}
