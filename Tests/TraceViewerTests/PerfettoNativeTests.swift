import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace

/// `export --format perfetto` read by the Perfetto project's own protobuf definitions (PyPI's
/// `perfetto`, in .build/py from scripts/python-readers.sh: scripts/perfetto-proto-check.py) and
/// opened in Perfetto's own UI (as the Chrome export is, ``PerfettoTests``), each checked against
/// what the trace's events say happened. Skipped where the readers are missing (they come from a
/// package index, which a machine may not reach).
@Suite(.serialized, .disabled(if: underThreadSanitizer)) struct PerfettoNativeTests {

    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func theDemoReadsCleanAndOpensInPerfetto() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("demo.pftrace")
        let (status, _, err) = try await traceView([
            "export", "--format", "perfetto", "--output", path, fixtures + "/demo.jsonl",
        ])
        #expect(status == 0, "\(err)")
        let events = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let read = try await PerfettoProtoReader.expectClean(path, of: events, hosts: [:])
        // Every awaited request's flow runs from its dispatch through a cycle to its resume.
        #expect((read["links"] as? Int ?? 0) >= 2 * PerfettoProtoReader.Expected(events).resumed.count)
    }

    /// Every dispatch style, replacements, joins, re-entries and requests made inside tasks, in
    /// 41 runtimes.
    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func oracleRunsReadCleanAndOpenInPerfetto() async throws {
        let dir = TemporaryDirectory()
        let events = try await SharedTraces.mixed.value
        let path = try await exportTrace(events, format: "perfetto", in: dir).path
        try await PerfettoProtoReader.expectClean(path, of: events, hosts: [:])
    }

    /// Three processes of two runtimes each, with the same runtime ids, dispatch ids and labels.
    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func severalProcessesAndRuntimesReadClean() async throws {
        let dir = TemporaryDirectory()
        let (events, hosts) = try await SharedTraces.processes.value
        let path = try await exportTrace(events, hosts: hosts, format: "perfetto", in: dir).path
        let read = try await PerfettoProtoReader.expectClean(path, of: events, hosts: hosts)
        // Each process's track lists its runtimes.
        let processes = try #require(read["processes"] as? [[Any]])
        #expect(processes.allSatisfy { ($0[2] as? [String])?.count == 2 }, "\(processes)")
    }

    /// Standard output (not a terminal) gets the same bytes as --output; what selects a
    /// diagram is refused with the usage status.
    @Test func standardOutputAndWrongFlags() async throws {
        let dir = TemporaryDirectory()
        let binary = try #require(builtProduct("trace-view"))
        let file = dir.file("file.pftrace")
        let piped = dir.file("piped.pftrace")
        let demo = fixtures + "/demo.jsonl"
        #expect(try await traceView(["export", "--format", "perfetto", "--output", file, demo]).status == 0)
        let shell = try await offThePool {
            try Subprocess.run(
                "/bin/sh", ["-c", "\"$0\" export --format perfetto \"$1\" > \"$2\"", binary, demo, piped],
                output: .capture, timeout: 120)
        }
        #expect(shell.status == 0, "\(shell.output)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let pipedBytes = try Data(contentsOf: URL(fileURLWithPath: piped))
        #expect(bytes.count > 1000 && bytes == pipedBytes)
        let request = try await traceView(["export", "--format", "perfetto", "--request", "3", demo])
        #expect(request.status == 64 && request.err.contains("--request"), "\(request.err)")
        let unknown = try await traceView(["export", "--format", "protobuf", demo])
        #expect(unknown.status == 64 && unknown.err.contains("perfetto"), "\(unknown.err)")
    }
}
