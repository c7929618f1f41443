import Foundation
import Testing
import TraceTooling
import Transduce

@testable import TransduceTrace

/// The native Perfetto export read by Perfetto's own protobuf definitions and trace processor
/// (scripts/perfetto-proto-check.py, in .build/py from scripts/python-readers.sh).
package enum PerfettoProtoReader {
    package static let python = Repository.root + "/.build/py/bin/python"
    /// Whether the Python definitions are here; when not, the log says so.
    package static var readersAvailable: Bool {
        let here = FileManager.default.isExecutableFile(atPath: python)
        if !here { print("Perfetto protobuf tests skipped: missing .build/py (scripts/python-readers.sh)") }
        return here
    }

    /// What `scripts/perfetto-proto-check.py` read in `path`.
    package static func read(_ path: String) async throws -> [String: Any] {
        let python = python
        let result = try await offThePool {
            try Subprocess.run(
                python, [Repository.root + "/scripts/perfetto-proto-check.py", path], output: .captureSeparately,
                timeout: 600)
        }
        #expect(result.status == 0, "\(result.errors)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    /// What the events say the export must show: each awaited request resumed as [dispatch
    /// time, latency, dispatch], those never resumed, and each runtime's number of queue-depth
    /// values (one at each dispatch and each cycle's enter).
    package struct Expected: Sendable {
        package var resumed: [[Int]] = []
        package var notResumed = 0
        package var depthValues: [RuntimeKey: Int] = [:]

        package init(_ events: [TraceEvent]) {
            var awaited: [TraceIndex.Key: UInt64] = [:]
            for e in events {
                let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)
                switch e.kind {
                case .dispatch:
                    depthValues[e.runtimeKey, default: 0] += 1
                    if e.isAwaitedDispatch { awaited[key] = e.time }
                case .cycleEnter:
                    depthValues[e.runtimeKey, default: 0] += 1
                case .requestResume:
                    if let start = awaited.removeValue(forKey: key) {
                        resumed.append([Int(start), Int(e.time.minus(start)), Int(e.dispatch)])
                    }
                default: break
                }
            }
            notResumed = awaited.count
            resumed.sort { $0.lexicographicallyPrecedes($1) }
        }
    }

    /// Expects the Perfetto export at `path` of `events` read clean by Perfetto's definitions
    /// and, where the UI is here, by Perfetto's trace processor: nothing refused, every slice
    /// ended, every request one slice from its dispatch to its resume exactly, one flow per
    /// request, a queue-depth counter per runtime with a value at every dispatch and enter, each
    /// process named with its pid and host. Returns what the definitions read.
    @discardableResult
    package static func expectClean(
        _ path: String, of events: [TraceEvent], hosts: [UInt32: String], ui: Bool = true
    ) async throws -> [String: Any] {
        let expected = try await offThePool { Expected(events) }
        let read = try await read(path)
        #expect(read["problem_count"] as? Int == 0, "\(read["problems"] ?? "")")
        let requests = try #require(read["requests"] as? [[Any]])
        let resumed = requests.filter { $0[3] as? String != "not resumed" }.map { Array($0.prefix(3)).map { $0 as? Int ?? -1 } }
            .sorted { $0.lexicographicallyPrecedes($1) }
        #expect(resumed.count == expected.resumed.count && resumed.count > 10)
        let wrong = zip(resumed, expected.resumed).filter { $0 != $1 }
        #expect(wrong.isEmpty, "\(wrong.count) request slices differ from their requests, first: \(wrong.prefix(3))")
        #expect(requests.count - resumed.count == expected.notResumed)
        #expect(read["flows"] as? Int == expected.resumed.count + expected.notResumed)
        #expect(read["unterminated_flows"] as? Int == expected.notResumed)
        let counters = try #require(read["counter_tracks"] as? [[Any]])
        #expect(counters.map { $0[1] as? Int ?? -1 }.sorted() == expected.depthValues.values.sorted())
        let pids = Set(events.map(\.process))
        let names = Set(pids.map { ($0 == 0 ? "process" : "pid \($0)") + (hosts[$0].map { " on \($0)" } ?? "") })
        let processes = try #require(read["processes"] as? [[Any]])
        #expect(Set(processes.map { $0[1] as? String ?? "" }) == names)
        // The system's ids: each process descriptor's pid is the OS pid; each thread that
        // dispatched from outside the runtime's tasks has a thread descriptor with its tid, and
        // its dispatches sit on it.
        let osPids = pids.filter { $0 != 0 }
        #expect(osPids.isSubset(of: Set(processes.map { UInt32($0[0] as? Int ?? -1) })), "\(processes.map { $0[0] })")
        let outside = events.filter { $0.kind == .dispatch && $0.otherTask == 0 && $0.thread != 0 }
        let threads = Set(outside.map { [Int($0.process), Int($0.thread)] })
        let described = Set((read["threads"] as? [[Int]] ?? []).map { $0 }.filter { osPids.isEmpty || $0[0] != 0 })
        #expect(
            described == Set(threads.map { $0[0] == 0 ? [processes.first?[0] as? Int ?? -1, $0[1]] : $0 }),
            "thread descriptors \(described.prefix(4)) vs the trace's \(threads.prefix(4))")
        #expect((read["thread_instants"] as? Int ?? 0) >= outside.count && !outside.isEmpty)
        guard ui, PerfettoUI.available else { return read }
        let seen = try await PerfettoUI.perfettoObject(path, seconds: 300)
        #expect((seen["errors"] as? [String: Int] ?? ["no answer": 1]).isEmpty, "Perfetto's importer: \(seen["errors"] ?? "")")
        #expect(seen["unfinished"] as? Int == 0)
        #expect(seen["slices"] as? Int == read["slices"] as? Int)
        #expect(seen["flows"] as? Int == read["links"] as? Int)
        #expect(seen["requests"] as? Int == requests.count)
        #expect(seen["counter_tracks"] as? Int == expected.depthValues.count)
        #expect(seen["counter_values"] as? Int == expected.depthValues.values.reduce(0, +))
        // The trace processor's request slices are the ones read above (times: CLOCK_MONOTONIC,
        // the trace's own, through the export's clock snapshot).
        let slices = requests.map { [$0[0] as? Int ?? -1, $0[1] as? Int ?? -1] }.sorted { $0.lexicographicallyPrecedes($1) }
        let uiSlices = (seen["request_slices"] as? [[Int]] ?? []).sorted { $0.lexicographicallyPrecedes($1) }
        #expect(uiSlices == slices, "the UI's request slices differ from the requests: \(uiSlices.prefix(3)) \(slices.prefix(3))")
        let uiProcesses = (seen["processes"] as? [[Any]] ?? []).map { $0[0] as? String ?? "" }
        #expect(Set(uiProcesses) == names)
        // The trace processor's own thread table: `where pid = P and tid = T` finds each thread.
        let uiThreads = Set((seen["thread_ids"] as? [[Any]] ?? []).map { "\($0[0])/\($0[1])" })
        let wanted = Set(threads.filter { $0[0] != 0 }.map { "\($0[0])/\($0[1])" })
        #expect(
            wanted.isSubset(of: uiThreads),
            "the trace processor's threads \(uiThreads.prefix(6)) lack \(wanted.subtracting(uiThreads).prefix(6))")
        return read
    }
}
