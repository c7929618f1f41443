import Foundation
import Testing
import TransduceTestSupport

@testable import TransduceTrace

/// The Chrome export opened in Perfetto itself: the offline Perfetto UI (scripts/perfetto-ui.sh)
/// in headless Chromium (scripts/bootstrap.sh), queried through Perfetto's own trace processor
/// (scripts/perfetto-check.py). Skipped where either is missing: the UI comes from a package
/// index, which a machine may not reach.
/// Skipped under ThreadSanitizer: it checks a file format, and its browser run blocks a thread of
/// the test pool for as long as Chromium takes.
@Suite(.serialized, .disabled(if: underThreadSanitizer)) struct PerfettoTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let ui = root + "/.build/perfetto-ui"
    static var available: Bool {
        FileManager.default.fileExists(atPath: ui + "/index.html") && Subprocess.which("chromium") != nil
            && Subprocess.which("python3") != nil
    }

    /// What Perfetto made of `path`.
    static func perfetto(_ path: String) throws -> (counts: [String: Int], errors: [String: Int]) {
        let python = try #require(Subprocess.which("python3"))
        let result = try Subprocess.run(
            python, [root + "/scripts/perfetto-check.py", ui, path, "90"], output: .capture, timeout: 150)
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(result.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return (object.compactMapValues { $0 as? Int }, object["errors"] as? [String: Int] ?? [:])
    }

    /// What the export holds: slices (complete, instant and async), requests, flow links.
    static func counts(_ path: String) throws -> (slices: Int, requests: Int, links: Int, tracks: Int) {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        var points: [Int: Int] = [:]
        var slices = 0
        var requests = 0
        var tracks = Set<String>()
        for e in events {
            switch e["ph"] as? String {
            case "X", "i": slices += 1
            case "b":
                slices += 1
                requests += 1
            case "s", "t", "f": points[e["id"] as? Int ?? -1, default: 0] += 1
            case "M" where e["name"] as? String == "thread_name": tracks.insert("\(e["pid"]!)/\(e["tid"]!)")
            default: break
            }
        }
        return (slices, requests, points.values.reduce(0) { $0 + $1 - 1 }, tracks.count)
    }

    @Test(.enabled(if: PerfettoTests.available)) func perfettoEndsEveryRequestAndLinksEveryFlow() async throws {
        let dir = TemporaryDirectory()
        // The demo, and 40 oracle runs side by side (one runtime each), for a trace with every
        // dispatch style, replacements, joins, re-entries and requests made inside tasks.
        var events = JSONLinesReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: fixtures + "/demo.jsonl"))))
            .readAll().events
        for seed in UInt64(1)...40 {
            let run = OracleRun(seed: seed)
            let trace = try await withTimeout(30) { try await run.run() }
            events += trace.events.map {
                var e = $0; e.runtime = 100 + seed; return e
            }
        }
        let input = dir.file("mixed.tdtrace")
        try TraceFileWriter.write(Trace(events: events), to: input)
        let path = dir.file("mixed.json")
        let (status, _, err) = try traceView(["export", "--format", "chrome", "--output", path, input])
        #expect(status == 0, "\(err)")
        let expected = try Self.counts(path)
        let (seen, errors) = try Self.perfetto(path)
        #expect(errors.isEmpty, "Perfetto's importer: \(errors)")
        #expect(seen["requests"] == expected.requests && expected.requests > 100)
        #expect(seen["unfinished_requests"] == 0, "Perfetto could not end \(seen["unfinished_requests"] ?? -1) requests")
        #expect(seen["unfinished"] == 0)
        #expect(seen["slices"] == expected.slices)
        #expect(seen["flows"] == expected.links && expected.links > 100)
        #expect(seen["thread_tracks"] == expected.tracks)
    }
}
