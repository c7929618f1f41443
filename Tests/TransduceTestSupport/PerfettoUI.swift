import Foundation
import Testing
import TraceTooling
import Transduce

@testable import TransduceTrace

/// The Chrome export opened in Perfetto itself: the offline Perfetto UI (scripts/perfetto-ui.sh)
/// in headless Chromium (scripts/bootstrap.sh), queried through Perfetto's own trace processor
/// (scripts/perfetto-check.py). ``available`` is false where either is missing: the UI comes
/// from a package index, which a machine may not reach.
package enum PerfettoUI {
    package static let root = Repository.root
    package static let ui = root + "/.build/perfetto-ui"
    /// Whether the UI, Chromium and Python are here; when not, the log says which is missing.
    package static var available: Bool {
        let missing = [
            FileManager.default.fileExists(atPath: ui + "/index.html") ? nil : "the offline Perfetto UI (scripts/perfetto-ui.sh)",
            Subprocess.which("chromium") == nil ? "chromium (scripts/bootstrap.sh)" : nil,
            Subprocess.which("python3") == nil ? "python3 (scripts/bootstrap.sh)" : nil,
        ].compactMap { $0 }
        if !missing.isEmpty { print("Perfetto tests skipped: missing \(missing.joined(separator: ", "))") }
        return missing.isEmpty
    }

    /// What Perfetto made of `path`: its counts, its import errors, each request slice's start
    /// and duration (ns, sorted), and each thread's process and name. Waits for Chromium off the
    /// concurrency pool: a minute or more on a busy machine, and two such waits held both of the
    /// pool's threads while another test's oracle runs needed them (they timed out).
    package static func perfetto(_ path: String) async throws -> (
        counts: [String: Int], errors: [String: Int], requests: [[Int]], threads: [[String]]
    ) {
        let object = try await perfettoObject(path)
        let threads = (object["threads"] as? [[Any]] ?? []).map { $0.map { $0 as? String ?? "" } }
        return (
            object.compactMapValues { $0 as? Int }, object["errors"] as? [String: Int] ?? [:],
            object["request_slices"] as? [[Int]] ?? [], threads
        )
    }

    /// Everything `scripts/perfetto-check.py` printed of what Perfetto made of `path` (a Chrome
    /// or a Perfetto trace), waited for off the concurrency pool, for `seconds` at most.
    package static func perfettoObject(_ path: String, seconds: Int = 90) async throws -> [String: Any] {
        let python = try #require(Subprocess.which("python3"))
        let ui = ui
        let result = try await offThePool {
            try Subprocess.run(
                python, [root + "/scripts/perfetto-check.py", ui, path, "\(seconds)"], output: .capture,
                timeout: Double(seconds + 60))
        }
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(result.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// What the export holds: slices (complete, instant and async), requests, flow links.
    package static func counts(_ path: String) throws -> (slices: Int, requests: Int, links: Int, tracks: Int) {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        var points: [Int: Int] = [:]
        var slices = 0
        var requests = 0
        var tracks = Set<String>()
        for e in events {
            switch e["ph"] as? String {
            case "X" where e["cat"] as? String == "request":
                slices += 1
                requests += 1
            case "X", "i": slices += 1
            case "s", "t", "f": points[e["id"] as? Int ?? -1, default: 0] += 1
            case "M" where e["name"] as? String == "thread_name": tracks.insert("\(e["pid"]!)/\(e["tid"]!)")
            default: break
            }
        }
        return (slices, requests, points.values.reduce(0) { $0 + $1 - 1 }, tracks.count)
    }

    /// Checks the Chrome export at `path` of `events` in Perfetto: nothing refused or lost, every
    /// request one finished slice lasting exactly from its dispatch to its resume (by the trace's
    /// timestamps, the time base of the export), every flow and track there, and each process
    /// named with its pid and host.
    package static func expectClean(_ path: String, of events: [TraceEvent], hosts: [UInt32: String]) async throws {
        let expected = try Self.counts(path)
        let (seen, errors, requests, threads) = try await Self.perfetto(path)
        #expect(errors.isEmpty, "Perfetto's importer: \(errors)")
        #expect(seen["unfinished"] == 0)
        #expect(seen["slices"] == expected.slices)
        #expect(seen["flows"] == expected.links && expected.links > 0)
        #expect(seen["thread_tracks"] == expected.tracks)
        let origin = try #require(events.first).time
        var dispatched: [TraceIndex.Key: UInt64] = [:]
        var latencies: [[Int]] = []
        for e in events {
            if e.kind == .dispatch { dispatched[TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)] = e.time }
            if e.kind == .requestResume, let start = dispatched[TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)] {
                latencies.append([Int(start - origin), Int(e.time - start)])
            }
        }
        latencies.sort { ($0[0], $0[1]) < ($1[0], $1[1]) }
        #expect(requests.count == latencies.count && latencies.count > 50)
        let wrong = zip(requests, latencies).filter { abs($0[0] - $1[0]) > 2 || abs($0[1] - $1[1]) > 2 }
        #expect(wrong.isEmpty, "\(wrong.count) request slices differ from their latencies, first: \(wrong.prefix(3))")
        // Processes by pid and host; every track says whose runtime it is.
        let processes = Set(threads.map { $0[0] })
        let pids = Set(events.map(\.process))
        #expect(processes == Set(pids.map { "pid \($0)" + (hosts[$0].map { " on \($0)" } ?? "") }))
        #expect(threads.allSatisfy { $0[1].hasPrefix("runtime ") && $0[1].contains(" · ") }, "\(threads.prefix(5))")
    }
}
