import Foundation
import Testing
import TraceTooling
import Transduce
import TransduceDemo
import TransduceTestSupport

@testable import TransduceTrace

extension LTTngTests.Trust {
    /// Two processes under one session, each under the trace context its TRACEPARENT gives it:
    /// LTTng carries each context (babeltrace2 prints them), and the OTLP export of the session
    /// puts each process's requests under its own caller's span — as its own ring recorded them.
    @Test(.enabled(if: LTTngTools.available && PerfettoProtoReader.readersAvailable))
    func traceContextsCrossProcessesThroughLTTng() async throws {
        let example = try #require(builtProduct("TracedExample"))
        let babeltrace = try #require(LTTngTools.babeltrace)
        let dir = TemporaryDirectory()
        let (a, b) = (dir.file("a.tdtrace"), dir.file("b.tdtrace"))
        let ctf = dir.file("ctf")
        let (server, worker) = (TraceContexts.server, TraceContexts.worker)
        let script = #"TRACEPARENT="$3" "$0" "$1" & TRACEPARENT="$4" "$0" "$2"; wait"#
        let (status, output) = try await offThePool {
            try traceViewRecordBlocking(
                ["--output", ctf, "--", "/bin/sh", "-c", script, example, a, b, server.traceparent, worker.traceparent])
        }
        #expect(status == 0, "\(output)")
        // Each ring is the oracle of its process: its requests, under its context.
        var expected: [String] = []
        var recorded = 0
        for (ring, context) in [(a, server), (b, worker)] {
            let events = try TraceFileReader(path: ring).readAll().events
            let contexts = events.compactMap(\.traceContext)
            #expect(!contexts.isEmpty && contexts.allSatisfy { $0 == context })
            recorded += contexts.count
            expected += TraceContexts.expectedParents(events)
        }
        #expect(expected.contains { $0.contains(server.traceID) } && expected.contains { $0.contains(worker.traceID) })
        let printed = try await offThePool {
            try Subprocess.run(babeltrace, [ctf], output: .captureSeparately, timeout: 120)
        }
        let lines = printed.output.split(separator: "\n").filter { $0.contains("transduce:trace_context") }
        #expect(lines.count == recorded, "\(printed.errors)")
        #expect(lines.contains { $0.lowercased().contains("trace_id_high = 0x4bf92f3577b34da6") }, "\(lines.prefix(2))")
        let otlp = dir.file("ctf.otlp.jsonl")
        let export = try await traceView(["export", "--format", "otlp", "--output", otlp, ctf])
        #expect(export.status == 0, "\(export.err)")
        let read = try await OTLPReader.read(otlp)
        #expect(read["problem_count"] as? Int == 0, "\(read["problems"] ?? "")")
        let parents = try #require(read["external_parents"] as? [[Any]])
        #expect(parents.map { $0.map { "\($0)" }.joined(separator: " ") }.sorted() == expected.sorted())
    }
}
