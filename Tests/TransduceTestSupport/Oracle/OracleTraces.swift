import Foundation
import Testing
import TraceTooling

@testable import TransduceTrace

/// Oracle runs for the tests that only read their traces (the exports' checks), made in a child
/// process of this test bundle.
///
/// Why a child: a run waits on its runtime's tasks and polls its trace, every step a hop on the
/// concurrency pool. In the suite, with both cores busy, the pool's two threads are often held by
/// tests that wait on a subprocess, and a run that takes 40 ms alone once passed its 90 s hang
/// detector there. A child has a pool of its own, and the OS shares the cores fairly between it
/// and everything else. Under ThreadSanitizer, where a child bundle takes minutes to start and
/// the suite does not run beside busy loops, the runs stay in this process.
package enum OracleTraces {
    package static let variable = "TRANSDUCE_ORACLE_TRACES"

    /// The seeds and directory a child was asked for (`SEED,SEED:DIRECTORY`), or `nil` in a
    /// process that is not such a child.
    package static var request: (seeds: [UInt64], directory: String)? {
        guard let value = ProcessInfo.processInfo.environment[variable], let colon = value.firstIndex(of: ":") else {
            return nil
        }
        return (value[..<colon].split(separator: ",").compactMap { UInt64($0) }, String(value[value.index(after: colon)...]))
    }

    /// The file a child writes the trace of `seed` to.
    package static func path(of seed: UInt64, in directory: String) -> String { directory + "/oracle-\(seed).tdtrace" }

    /// Runs `seed`, one run at a time, as ``OracleRun`` does; a hang detector bounds each.
    package static func run(_ seed: UInt64) async throws -> Trace {
        let run = OracleRun(seed: seed)
        return try await withTimeout(90, "oracle seed \(seed)") { try await run.run() }
    }

    /// The trace of each of `seeds`' runs.
    package static func record(seeds: [UInt64]) async throws -> [UInt64: Trace] {
        var traces: [UInt64: Trace] = [:]
        if underThreadSanitizer {
            for seed in seeds { traces[seed] = try await run(seed) }
            return traces
        }
        let dir = TemporaryDirectory()
        let exe = try #require(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let value = seeds.map(String.init).joined(separator: ",") + ":" + dir.path
        // Waited for off the pool, which is what the child is there to spare.
        let child = try await offThePool {
            try Subprocess.run(
                exe, ["--testing-library", "swift-testing", "--filter", "OracleTraceChild/recordTheSeeds"],
                environment: [variable: value], output: .capture, timeout: 600)
        }
        guard child.status == 0 else {
            throw OracleTracesFailure(status: child.status, output: String(child.output.suffix(4_000)))
        }
        for seed in seeds {
            traces[seed] = try TraceFileReader(path: path(of: seed, in: dir.path)).readAll()
        }
        return traces
    }
}

/// A child of ``OracleTraces/record(seeds:)`` that did not write every trace.
package struct OracleTracesFailure: Error, CustomStringConvertible {
    package var status: Int32
    package var output: String
    package var description: String { "the oracle's child exited with status \(status):\n\(output)" }
}
