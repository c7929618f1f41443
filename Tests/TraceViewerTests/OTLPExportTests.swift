import Foundation
import Testing
import TraceTooling
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

/// `export --format otlp` read by the OpenTelemetry project's own protobuf definitions (PyPI's
/// `opentelemetry-proto`, in .build/py from scripts/python-readers.sh: scripts/otlp-check.py),
/// each request's spans checked against what the trace's events say happened. Skipped where the
/// readers are missing.
@Suite(.disabled(if: underThreadSanitizer)) struct OTLPExportTests {
    @Test func aForgedAnchorIsNotATrap() async throws {
        let dir = TemporaryDirectory()
        var lines = try String(contentsOfFile: fixtures + "/demo.jsonl", encoding: .utf8).split(separator: "\n")
            .filter { !$0.contains(#""kind":"counts""#) }.map(String.init)
        lines.append(
            #"{"kind":"counts","events":128,"overwritten":0,"discarded":0,"lost":0,"monotonic_origin":9223372036854775809,"realtime_origin":1}"#
        )
        let input = dir.file("forged.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let output = dir.file("spans.jsonl")
        let run = try await traceView(["export", "--format", "otlp", "--output", output, input])
        #expect(run.status == 0, "\(run.status): \(run.err.prefix(300))")
        let spans = try OTLPReader.spans(output)
        #expect(!spans.isEmpty)
        // Saturated at 0, not wrapped around.
        #expect(spans.allSatisfy { ($0["startTimeUnixNano"] as? String) == "0" }, "\(spans.first ?? [:])")
    }

    /// The demo carries its ring's wall-clock anchor: every span is placed by it.
    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func theDemoReadsClean() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("demo.otlp.jsonl")
        let (status, out, err) = try await traceView([
            "export", "--format", "otlp", "--output", path, fixtures + "/demo.jsonl",
        ])
        #expect(status == 0 && out.isEmpty && err.isEmpty, "\(err)")
        let trace = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll()
        let anchor = try #require(OTLPTraceExport.wallClockOffset(trace.counts))
        try await OTLPReader.expectClean(path, of: trace.events, offset: anchor)
        let read = try await OTLPReader.read(path)
        // The shared task's part links to the request whose cycle started it.
        #expect((read["links"] as? Int ?? 0) > 0)
        // Standard output gets the same lines.
        let piped = try await traceView(["export", "--format", "otlp", fixtures + "/demo.jsonl"])
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(piped.status == 0 && piped.out == written)
    }

    /// Every dispatch style, replacements, joins, re-entries and requests made inside tasks.
    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func oracleRunsReadClean() async throws {
        let dir = TemporaryDirectory()
        let events = try await SharedTraces.mixed.value
        let path = try await OTLPReader.export(events, in: dir).path
        try await OTLPReader.expectClean(path, of: events)
    }

    /// Three processes of two runtimes each, with the same runtime ids, dispatch ids and labels:
    /// each request its own trace, under a resource naming its process, host and runtime.
    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func severalProcessesAndRuntimesReadClean() async throws {
        let dir = TemporaryDirectory()
        let (events, hosts) = try await SharedTraces.processes.value
        let path = try await OTLPReader.export(events, hosts: hosts, in: dir).path
        try await OTLPReader.expectClean(path, of: events)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for host in hosts.values { #expect(text.contains(#"{"key":"host.name","value":{"stringValue":"\#(host)"}}"#)) }
    }

    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func aCancelledTaskIsAnEventAndItsErrorTheStatus()
        async throws
    {
        let recording = TraceRecording()
        let started = Latch("load started")
        let host = BaseRuntime(of: Abandoned.self, env: started, instrument: recording.instrument)
        let input = host.input
        let request = Task { try await input.request(.load) }
        try await started.waitForArrivals()
        try input.post(.stop)
        await #expect(throws: CancellationError.self) { try await withTimeout { try await request.value } }
        let events = recording.trace().events
        let dir = TemporaryDirectory()
        let path = try await OTLPReader.export(events, in: dir).path
        let read = try await OTLPReader.read(path)
        #expect(read["problem_count"] as? Int == 0, "\(read["problems"] ?? "")")
        let spans = try OTLPReader.spans(path)
        let load = try #require(spans.first { $0["name"] as? String == "request(load)" })
        let status = try #require(load["status"] as? [String: Any])
        #expect(status["code"] as? Int == 2)
        #expect((status["message"] as? String)?.contains("CancellationError") == true, "\(status)")
        let attributes = load["attributes"] as? [[String: Any]] ?? []
        let errorType = attributes.first { $0["key"] as? String == "error.type" }?["value"] as? [String: Any]
        #expect((errorType?["stringValue"] as? String)?.contains("CancellationError") == true, "\(attributes)")
        let cancels = spans.flatMap { span in
            (span["events"] as? [[String: Any]] ?? []).filter { ($0["name"] as? String)?.hasPrefix("task cancelled") == true }
        }
        #expect(cancels.map { $0["name"] as? String } == ["task cancelled: cancelEffect"])
        withExtendedLifetime(host) {}
    }

    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func spansGoToACollector() async throws {
        let dir = TemporaryDirectory()
        let events = try await SharedTraces.mixed.value
        let (input, file) = try await OTLPReader.export(events, in: dir)
        let expected = try #require(try await OTLPReader.read(file)["roots"] as? [[Int]]).count
        #expect(expected > OTLPTraceExport.requestsPerLine, "one batch would not test batching")
        try await OTLPReader.withReceiver("ok") { port, log in
            let sent = try await traceView([
                "export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:\(port)", input,
            ])
            #expect(sent.status == 0 && sent.out.isEmpty, "\(sent.err)")
            #expect(
                sent.err.contains("sent the spans of \(expected) requests to http://127.0.0.1:\(port)/v1/traces"), "\(sent.err)")
            let posts = try OTLPReader.received(log)
            #expect(posts.count == (expected + OTLPTraceExport.requestsPerLine - 1) / OTLPTraceExport.requestsPerLine)
            #expect(posts.allSatisfy { $0["error"] == nil }, "\(posts)")
            #expect(posts.map { $0["requests"] as? Int ?? 0 }.reduce(0, +) == expected)
            // One kept-alive connection for every POST.
            #expect(Set(posts.compactMap { $0["peer_port"] as? Int }).count == 1, "\(posts.map { $0["peer_port"] ?? "" })")
        }
        try await OTLPReader.withReceiver("fail") { port, log in
            let refused = try await traceView([
                "export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:\(port)/v1/traces", input,
            ])
            #expect(refused.status == 76, "\(refused.err)")
            #expect(
                refused.err.contains("answered 500") && refused.err.contains("took 0 of \(expected) requests"), "\(refused.err)")
            #expect(try OTLPReader.received(log).count == 1, "it goes on after a refusal")
        }
        let down = try Loopback.freePorts(1)[0]
        let unreachable = try await traceView([
            "export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:\(down)", "--timeout", "2", input,
        ])
        #expect(
            unreachable.status == 76 && unreachable.err.contains("no answer from the collector")
                && unreachable.err.contains("retrying"), "\(unreachable.err)")
        let wrong = try await traceView(["export", "--format", "otlp", "--otlp-endpoint", "ftp://127.0.0.1:4318", input])
        #expect(wrong.status == 64 && wrong.err.contains("is not an http:// or https:// URL"), "\(wrong.err)")
    }
}

/// A request whose task waits until cancelled (`stop` cancels it), for the export of a
/// cancellation.
nonisolated enum Abandoned: Transducer {
    struct State: Sendable, Equatable {}
    enum Event: Sendable, Equatable { case load, stop, loaded }
    typealias Response = Int
    typealias Env = Latch

    static var initialState: State { State() }

    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .load:
            return .task(id: "load") { _, started in
                try await started.waitCooperatively()
                return .loaded
            }
        case .stop: return .cancel("load")
        case .loaded: return .none
        }
    }

    static func response(state: State, event: Event) -> Int { 1 }
}
