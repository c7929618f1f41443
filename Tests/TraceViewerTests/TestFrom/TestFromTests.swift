import Foundation
import Testing
import TraceTooling
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

/// `trace-view test-from`, judged by the Swift compiler and Swift Testing: windows of a recorded
/// run become test files, compiled in a package of their own beside the feature (as a user's
/// tests would be), and run there; then the feature is changed (one state update) and every test
/// whose window holds that update must fail, and the others pass; then it is restored and all
/// pass again.
@Suite(.serialized) struct TestFromTests {
    /// Shelf names that a written source must carry through escaping: quotes and hashes that
    /// would end a raw string, an interpolation, a newline, a right-to-left override, a
    /// combining mark.
    static let items = ["tea", "rice \"#salt\"#", "oil\\#(x)\n", "\u{202E}evil", "cafe\u{301}", "jam"]

    /// Runtimes of `Pantry` (two unless told) recorded into one trace with their events' values
    /// and states; returns the trace's path.
    static func record(
        in dir: TemporaryDirectory, operations: Int, seed: UInt64, states: PayloadCapture.States? = .snapshots,
        runtimes count: Int = 2, items: [String] = items
    ) async throws -> String {
        let recorder = TraceRecorder(
            capacity: 1 << 17, mode: .overwriteOldest, lttng: false,
            payloads: states.map { .codable(capacity: 1 << 18, states: $0) }, ringEnabled: true, slowRequests: nil, lanes: 2,
            dumpWriter: { try TraceFileWriter.write($0, to: $1) })
        let runtimes = (0..<count).map { _ in BaseRuntime(of: Pantry.self, instrument: recorder) }
        var random = SeededRandom(seed: seed)
        for _ in 0..<operations {
            for runtime in runtimes {
                let item = items[Int(random.next(below: UInt64(items.count)))]
                let amount = Int(random.next(below: 6)) + 1
                switch random.next(below: 10) {
                case 0..<5: try await runtime.input.send(.stock(item, amount))
                case 5..<9: try await runtime.input.send(.take(item, amount))
                default: _ = try await runtime.input.request(.count)
                }
            }
        }
        let path = dir.file("pantry-\(states.map { "\($0)" } ?? "bare").tdtrace")
        try recorder.write(to: path, format: .binary)
        return path
    }

    /// One window: its runtime, its cycles, and whether it holds a step the mutation changes.
    struct Window {
        var runtime: RuntimeKey
        var cycles: ClosedRange<UInt64>
        var stocks: Bool
    }

    /// `count` windows of 1–25 cycles of either runtime, from a seeded generator; the first of
    /// each runtime starts at its start, every fourth is one cycle that stocks nothing. Read from the trace's raw events: which cycles each
    /// runtime has whole, and which hold a `stock` step.
    static func windows(of trace: Trace, count: Int, seed: UInt64) -> [Window] {
        var stocked: [RuntimeKey: Set<UInt64>] = [:]
        var left: [RuntimeKey: UInt64] = [:]
        for e in trace.events {
            if e.kind == .transduce, e.label == "stock" { stocked[e.runtimeKey, default: []].insert(e.cycle) }
            if e.kind == .cycleLeave { left[e.runtimeKey] = max(left[e.runtimeKey] ?? 0, e.cycle) }
        }
        let keys = left.keys.sorted()
        var random = SeededRandom(seed: seed)
        return (0..<count).map { n in
            let key = keys[n % keys.count]
            var length = UInt64(random.next(below: 25)) + 1
            var first = n < keys.count ? 1 : UInt64(random.next(below: left[key]! - length)) + 1
            // Every fourth window a cycle that stocks nothing, which the changed feature must pass.
            if n % 4 == 3 {
                length = 1
                while stocked[key, default: []].contains(first) && first < left[key]! { first += 1 }
            }
            let cycles = first...(first + length - 1)
            return Window(
                runtime: key, cycles: cycles, stocks: cycles.contains { stocked[key, default: []].contains($0) })
        }
    }

    /// The package the written tests are compiled in, kept under `.build` (between runs only the
    /// tests and the feature change, so only they are built again).
    static let package = Repository.root + "/.build/test-from/package"
    static let scratch = Repository.root + "/.build/test-from/scratch"

    /// A new package with `feature` as its feature and no tests yet.
    static func writePackage(feature: String) throws {
        let fm = FileManager.default
        try? fm.removeItem(atPath: package)
        try fm.createDirectory(atPath: package + "/Sources/Feature", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: package + "/Tests/FeatureTests", withIntermediateDirectories: true)
        // The package as scripts/test-from-package.sh makes it (CI builds it before the tests).
        let template = try String(
            contentsOfFile: Repository.root + "/Tests/Fixtures/test-from/Package.swift", encoding: .utf8)
        try template.replacingOccurrences(of: "@ROOT@", with: Repository.root)
            .write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
        try write(feature: feature)
    }

    static func write(feature: String) throws {
        try feature.write(toFile: package + "/Sources/Feature/Pantry.swift", atomically: true, encoding: .utf8)
    }

    /// Builds the package and runs its tests: each suite's name and whether its test passed.
    static func buildAndRun() async throws -> [String: Bool] {
        let swift = try #require(Subprocess.which("swift"))
        let build = try await offThePool {
            try Subprocess.run(
                swift, ["build", "--build-tests", "--package-path", package, "--scratch-path", scratch],
                output: .capture, timeout: 900)
        }
        try #require(build.status == 0, "the written tests do not compile:\n\(build.output.suffix(4000))")
        let report = package + "/results.xml"
        let run = try await offThePool {
            try Subprocess.run(
                swift,
                ["test", "--skip-build", "--package-path", package, "--scratch-path", scratch, "--xunit-output", report],
                output: .capture, timeout: 600)
        }
        let xml = try String(contentsOfFile: package + "/results-swift-testing.xml", encoding: .utf8)
        var results: [String: Bool] = [:]
        // <testcase classname="FeatureTests.Window3" name="replaysRecordedCycles()" …/> or
        // <testcase …>…<failure …>…</testcase>.
        for chunk in xml.components(separatedBy: "<testcase ").dropFirst() {
            guard let start = chunk.range(of: "classname=\""), let end = chunk[start.upperBound...].firstIndex(of: "\"")
            else { continue }
            let suite = String(chunk[start.upperBound..<end]).split(separator: ".").last.map(String.init) ?? ""
            let body = chunk.components(separatedBy: "</testcase>")[0]
            results[suite] = !body.contains("<failure")
        }
        #expect(!results.isEmpty, "no results from the written tests: \(run.output.suffix(3000))")
        return results
    }

    @Test(.enabled(if: Subprocess.which("swift") != nil)) func writtenTestsCompilePassAndCatchAChange() async throws {
        let count = ProcessInfo.processInfo.environment["TRANSDUCE_TEST_FROM_WINDOWS"].flatMap(Int.init) ?? 20
        let dir = TemporaryDirectory()
        let tracePath = try await Self.record(in: dir, operations: 150, seed: 47)
        let trace = try TraceFileReader(path: tracePath).readAll()
        #expect(trace.counts.overwritten == 0)
        let windows = Self.windows(of: trace, count: count, seed: 11)
        #expect(windows.contains { !$0.stocks } && windows.contains(where: \.stocks), "the windows should include both kinds")

        let feature = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Pantry.swift",
            encoding: .utf8)
        try Self.writePackage(feature: feature)
        // Every other window from the trace's JSON Lines export, which carries the values too.
        let jsonl = dir.file("pantry.jsonl")
        let exported = try await traceView(["export", "--format", "jsonl", "--output", jsonl, tracePath])
        #expect(exported.status == 0, "\(exported.err)")
        for (n, window) in windows.enumerated() {
            let (status, _, err) = try await traceView([
                "test-from", n % 2 == 0 ? tracePath : jsonl, "--runtime", "\(window.runtime.runtime)", "--pid",
                "\(window.runtime.process)",
                "--from", "\(window.cycles.lowerBound)", "--to", "\(window.cycles.upperBound)", "--suite", "Window\(n)",
                "--module", "Feature",
                "--output", Self.package + "/Tests/FeatureTests/Window\(n).swift",
            ])
            try #require(status == 0, "window \(n) (\(window.cycles) of \(window.runtime.name)): \(err)")
        }
        let names = (0..<windows.count).map { "Window\($0)" }

        let unchanged = try await Self.buildAndRun()
        #expect(names.filter { unchanged[$0] != true }.isEmpty, "failed or missing on the recorded feature: \(unchanged)")

        let marked = "state.shelves[item, default: 0] += amount  // MUTATION"
        #expect(feature.contains(marked))
        try Self.write(feature: feature.replacingOccurrences(of: marked, with: "state.shelves[item, default: 0] += amount + 1"))
        let mutated = try await Self.buildAndRun()
        for (n, window) in windows.enumerated() {
            #expect(
                mutated["Window\(n)"] == !window.stocks,
                "window \(n) (cycles \(window.cycles) of \(window.runtime.name), stocks: \(window.stocks)) with the changed feature"
            )
        }

        try Self.write(feature: feature)
        let restored = try await Self.buildAndRun()
        #expect(names.filter { restored[$0] != true }.isEmpty, "failed or missing on the restored feature: \(restored)")
    }

    /// What a test cannot be written from is refused with the status of its kind and a message
    /// that says what to record or ask instead; nothing is written.
    @Test func refusesWhatATestCannotBeWrittenFrom() async throws {
        let dir = TemporaryDirectory()
        let snapshots = try await Self.record(in: dir, operations: 10, seed: 3)
        let fingerprints = try await Self.record(in: dir, operations: 10, seed: 3, states: .fingerprints)
        let bare = try await Self.record(in: dir, operations: 10, seed: 3, states: nil)
        let output = dir.file("written.swift")
        let cases: [(args: [String], status: Int32, says: String)] = [
            (["--from", "2", "--to", "4", fingerprints], 65, "only a fingerprint of cycle 2's committed state"),
            (["--from", "2", "--to", "4", bare], 65, "PayloadCapture.codable(states: .snapshots)"),
            (["--from", "900", "--to", "910", snapshots], 66, "cycle 900 of runtime "),
            (["--from", "4", "--to", "2", snapshots], 64, "--from 4 comes after --to 2"),
            (["--from", "1", "--to", "9000", snapshots], 64, "at most 5000"),
            (["--to", "3", snapshots], 64, "--from"),
            (["--from", "1", "--to", "3", "--runtime", "999", snapshots], 66, "no events of runtime 999"),
            (["--from", "1", "--to", "3", "--type", "Pantry\u{202E}", snapshots], 64, "is not a Swift type name"),
            (["--from", "1", "--to", "3", "--suite", "struct", snapshots], 64, "is not a Swift identifier"),
            (["--from", "1", "--to", "3", dir.file("absent.tdtrace")], 66, "absent.tdtrace"),
        ]
        for c in cases {
            // Both runtimes are in each trace: all but the runtime's own refusals name the first.
            let trace = c.args.last!
            let first = (try? TraceFileReader(path: trace).readAll().events.first { $0.kind == .runtimeStart })?.runtime
            let args = c.args.contains("--runtime") ? c.args : ["--runtime", "\(first ?? 1)"] + c.args
            let run = try await traceView(["test-from", "--output", output] + args)
            #expect(run.status == c.status, "\(args): \(run.err)")
            #expect(run.err.contains(c.says), "\(args): \(run.err)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(args) wrote a file")
        }
        let both = try await traceView(["test-from", "--from", "1", "--to", "3", snapshots])
        #expect(both.status == 64 && both.err.contains("several runtimes"), "\(both.err)")
    }

    /// The guide's commands run as written on a recorded pantry (one runtime, as in the guide),
    /// and its test-from writes the test the guide shows.
    @Test func theGuidesCommandsRun() async throws {
        let guide = "FromAProductionDumpToATest.md"
        let commands = try GuideCommandsTests.commands(in: guide)
        #expect(commands.count >= 2, "\(guide) shows no commands")
        let dir = TemporaryDirectory()
        let recorded = try await Self.record(in: dir, operations: 8, seed: 5, runtimes: 1, items: ["tea", "rice", "jam"])
        for word in Set(commands.joined()) where word.hasSuffix(".tdtrace") {
            try FileManager.default.copyItem(atPath: recorded, toPath: dir.file(word))
        }
        for command in commands {
            let arguments = command.dropFirst().map {
                !$0.hasPrefix("-") && $0.contains(".") && !$0.contains("/") ? dir.file($0) : $0
            }
            let run = try await traceView(Array(arguments))
            #expect(run.status == 0, "\(command.joined(separator: " ")): \(run.err)")
            if let output = command.firstIndex(of: "--output").map({ command[$0 + 1] }) {
                let written = try String(contentsOfFile: dir.file(output), encoding: .utf8)
                if ProcessInfo.processInfo.environment["TRANSDUCE_SHOW_GUIDE"] != nil { print(written) }
                // The guide shows this file as it is, but for the runtime's id and process.
                let shown = try Self.swiftBlocks(in: guide).first { $0.hasPrefix("// Written by") }
                #expect(
                    shown.map(Self.anonymous) == Self.anonymous(written),
                    "the guide's test is not what test-from writes:\n\(written)")
            } else {
                #expect(!run.out.isEmpty, "\(command.joined(separator: " ")) printed nothing")
                if ProcessInfo.processInfo.environment["TRANSDUCE_SHOW_GUIDE"] != nil { print(run.out) }
            }
        }
    }

    /// The `swift` blocks of a guide, each as its text.
    static func swiftBlocks(in guide: String) throws -> [String] {
        let text = try String(contentsOfFile: GuideCommandsTests.catalogue + guide, encoding: .utf8)
        return text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
    }

    /// `text` with each `runtime N (pid P)` made `runtime R (pid P)`.
    static func anonymous(_ text: String) -> String {
        text.replacing(/runtime \d+ \(pid \d+\)/, with: "runtime R (pid P)")
    }
}
