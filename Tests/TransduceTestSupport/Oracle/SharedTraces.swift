import Foundation
import Testing
import TraceTooling
import Transduce

@testable import TransduceTrace

/// Traces every export's tests read, made once per test process from oracle runs (in a child
/// process: ``OracleTraces``) and the demo.
package enum SharedTraces {
    /// ``mixedTrace()`` and ``processesTrace()``, made once for every test that reads them: their
    /// oracle runs are not free on a busy machine, and each test exports them its own way.
    package static let mixed = Task { try await mixedTrace() }
    package static let processes = Task { try await processesTrace() }

    /// The oracle runs both traces are made of (``OracleTraces``: in a child process), run once.
    package static let oracleRuns = Task { try await OracleTraces.record(seeds: Array(1...40) + Array(201...206)) }

    /// The demo, and 40 oracle runs side by side (one runtime each), for a trace with every
    /// dispatch style, replacements, joins, re-entries and requests made inside tasks.
    package static func mixedTrace() async throws -> [TraceEvent] {
        var events = JSONLinesReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: fixtures + "/demo.jsonl"))))
            .readAll().events
        let runs = try await oracleRuns.value
        for seed in UInt64(1)...40 {
            let trace = try #require(runs[seed])
            events += trace.events.map {
                var e = $0; e.runtime = 100 + seed; return e
            }
        }
        return events
    }

    /// Three processes of two runtimes each, run at the same moments (oracle runs, their times
    /// laid over each other): the same runtime ids, dispatch ids and labels in every process;
    /// in recording order, with each process's host.
    package static func processesTrace() async throws -> (events: [TraceEvent], hosts: [UInt32: String]) {
        var events: [TraceEvent] = []
        var hosts: [UInt32: String] = [:]
        let runs = try await oracleRuns.value
        for process in UInt32(0)..<3 {
            hosts[4001 + process] = "host-\(process)"
            for runtime in UInt64(1)...2 {
                let trace = try #require(runs[200 + UInt64(process) * 2 + runtime])
                let start = trace.start ?? 0
                events += trace.events.map {
                    var e = $0
                    e.process = 4001 + process
                    e.runtime = runtime
                    e.time = 1_000_000_000 + (e.time - start) + UInt64(process) * 7 + runtime * 3
                    return e
                }
            }
        }
        // Recording order: by time (a stable sort keeps each runtime's own order).
        events = events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        return (events, hosts)
    }
}
