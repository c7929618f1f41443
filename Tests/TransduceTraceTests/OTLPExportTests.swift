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
    /// What `scripts/otlp-check.py` read in `path`.
    static func read(_ path: String) async throws -> [String: Any] {
        let python = PerfettoNativeTests.python
        let result = try await offThePool {
            try Subprocess.run(
                python, [PerfettoTests.root + "/scripts/otlp-check.py", path], output: .captureSeparately, timeout: 300)
        }
        #expect(result.status == 0, "\(result.errors)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    /// Expects the OTLP export at `path` of `events` read clean by OpenTelemetry's definitions:
    /// nothing refused, every parent and link target there, the parts tiling each request, and
    /// one root span per resumed request lasting exactly from its dispatch to its resume, each
    /// placed on the wall clock by the same offset (`offset`, where the trace says it), an error
    /// resume's with status ERROR.
    static func expectClean(_ path: String, of events: [TraceEvent], offset: Int64? = nil) async throws {
        let read = try await read(path)
        #expect(read["problem_count"] as? Int == 0, "\(read["problems"] ?? "")")
        var expected: [[Int]] = []
        var dispatched: [TraceIndex.Key: UInt64] = [:]
        for e in events {
            let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)
            if e.kind == .dispatch, e.isAwaitedDispatch { dispatched[key] = e.time }
            if e.kind == .requestResume, let start = dispatched.removeValue(forKey: key) {
                let error = e.code == ResumeOutcome.error.rawValue ? 2 : 0
                expected.append([Int(e.process), Int(e.runtime), Int(e.dispatch), Int(start), Int(e.time - start), error])
            }
        }
        expected.sort { $0.lexicographicallyPrecedes($1) }
        let roots = try #require(read["roots"] as? [[Int]])
        #expect(roots.count == expected.count && roots.count > 10)
        var offsets = Set<Int>()
        var wrong: [([Int], [Int])] = []
        for (root, want) in zip(roots, expected) {
            offsets.insert(root[3] - want[3])
            if root[0..<3] != want[0..<3] || root[4] != want[4] || root[5] != want[5] || root[6] < 1 {
                wrong.append((root, want))
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) requests differ, first: \(wrong.prefix(3))")
        #expect(offsets.count == 1, "the requests are placed by \(offsets.count) different offsets")
        if let offset { #expect(offsets == [Int(offset)]) }
    }

    /// ``exportTrace(_:hosts:format:in:sourceLocation:)`` as OTLP: these traces have no wall-clock
    /// anchor, so their spans are placed by this machine's clocks, and trace-view says so.
    static func export(_ events: [TraceEvent], hosts: [UInt32: String] = [:], in dir: TemporaryDirectory) async throws
        -> (input: String, path: String)
    {
        let (input, path, err) = try await exportTrace(events, hosts: hosts, format: "otlp", in: dir)
        #expect(err.contains("no wall-clock anchor"), "\(err)")
        return (input, path)
    }

    /// A forged anchor whose offset is `Int64.min` (monotonic origin 2^63 + 1, realtime 1) is an
    /// absurd time, not a trap: before, negating the offset crashed the export (exit 132).
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
        let spans = try Self.spans(output)
        #expect(!spans.isEmpty)
        // Saturated at 0, not wrapped around.
        #expect(spans.allSatisfy { ($0["startTimeUnixNano"] as? String) == "0" }, "\(spans.first ?? [:])")
    }

    /// The demo carries its ring's wall-clock anchor: every span is placed by it.
    @Test(.enabled(if: PerfettoNativeTests.readersAvailable)) func theDemoReadsClean() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("demo.otlp.jsonl")
        let (status, out, err) = try await traceView([
            "export", "--format", "otlp", "--output", path, fixtures + "/demo.jsonl",
        ])
        #expect(status == 0 && out.isEmpty && err.isEmpty, "\(err)")
        let trace = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll()
        let anchor = try #require(OTLPTraceExport.wallClockOffset(trace.counts))
        try await Self.expectClean(path, of: trace.events, offset: anchor)
        let read = try await Self.read(path)
        // The shared task's part links to the request whose cycle started it.
        #expect((read["links"] as? Int ?? 0) > 0)
        // Standard output gets the same lines.
        let piped = try await traceView(["export", "--format", "otlp", fixtures + "/demo.jsonl"])
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(piped.status == 0 && piped.out == written)
    }

    /// Every dispatch style, replacements, joins, re-entries and requests made inside tasks.
    @Test(.enabled(if: PerfettoNativeTests.readersAvailable)) func oracleRunsReadClean() async throws {
        let dir = TemporaryDirectory()
        let events = try await PerfettoTests.mixed.value
        let path = try await Self.export(events, in: dir).path
        try await Self.expectClean(path, of: events)
    }

    /// Three processes of two runtimes each, with the same runtime ids, dispatch ids and labels:
    /// each request its own trace, under a resource naming its process, host and runtime.
    @Test(.enabled(if: PerfettoNativeTests.readersAvailable)) func severalProcessesAndRuntimesReadClean() async throws {
        let dir = TemporaryDirectory()
        let (events, hosts) = try await PerfettoTests.processes.value
        let path = try await Self.export(events, hosts: hosts, in: dir).path
        try await Self.expectClean(path, of: events)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for host in hosts.values { #expect(text.contains(#"{"key":"host.name","value":{"stringValue":"\#(host)"}}"#)) }
    }

    /// Every span of the OTLP file at `path`, as JSON objects.
    static func spans(_ path: String) throws -> [[String: Any]] {
        var spans: [[String: Any]] = []
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            let data = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for resource in data["resourceSpans"] as? [[String: Any]] ?? [] {
                for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                    spans += scope["spans"] as? [[String: Any]] ?? []
                }
            }
        }
        return spans
    }

    /// A request whose task is cancelled under it: the task's span has the cancellation as an
    /// event, with its reason, and the request's status is ERROR with the error it got.
    @Test(.enabled(if: PerfettoNativeTests.readersAvailable)) func aCancelledTaskIsAnEventAndItsErrorTheStatus()
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
        let path = try await Self.export(events, in: dir).path
        let read = try await Self.read(path)
        #expect(read["problem_count"] as? Int == 0, "\(read["problems"] ?? "")")
        let spans = try Self.spans(path)
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

    /// A stand-in collector (`scripts/otlp-receiver.py`, decoding with OpenTelemetry's
    /// definitions, or another `script` that takes a mode and a log), started, its port read, and
    /// stopped when `body` returns; `body` gets the port and the receiver's log. `extra` follows
    /// the mode and the log (a certificate and its key, for https).
    static func withReceiver<T>(
        _ mode: String, script: String = PerfettoTests.root + "/scripts/otlp-receiver.py", extra: [String] = [],
        _ body: (Int, String) async throws -> T
    ) async throws -> T {
        let dir = TemporaryDirectory()
        let log = dir.file("received.jsonl")
        let child = try Subprocess.start(
            PerfettoNativeTests.python, [script, mode, log] + extra,
            errors: dir.file("receiver.err"))
        defer {
            kill(child.pid, SIGTERM)
            _ = try? Subprocess.wait(child.pid, timeout: 30, name: "otlp-receiver")
            close(child.output)
        }
        // Its first line is its port: the signal that it listens (a minute at most), waited for
        // off the concurrency pool.
        let output = child.output
        let line = try await offThePool { () -> [UInt8] in
            var line: [UInt8] = []
            var byte: UInt8 = 0
            let deadline = ContinuousClock.now + .seconds(60)
            while !line.contains(0x0A), ContinuousClock.now < deadline {
                var ready = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 1000) >= 0 else { break }
                if ready.revents != 0 {
                    guard Glibc.read(output, &byte, 1) == 1 else { break }
                    line.append(byte)
                }
            }
            return line
        }
        let port = try #require(
            Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
            "the receiver did not start: \((try? String(contentsOfFile: dir.file("receiver.err"), encoding: .utf8)) ?? "")")
        return try await body(port, log)
    }

    /// What the receiver logged, a JSON object a POST.
    static func received(_ log: String) throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// Spans POSTed to a collector as OTLP/HTTP JSON, in batches: every batch decoded by
    /// OpenTelemetry's definitions, every resumed request there; a collector answering 500 and
    /// one that is down each stop the export with status 76 and say why.
    @Test(.enabled(if: PerfettoNativeTests.readersAvailable)) func spansGoToACollector() async throws {
        let dir = TemporaryDirectory()
        let events = try await PerfettoTests.mixed.value
        let (input, file) = try await Self.export(events, in: dir)
        let expected = try #require(try await Self.read(file)["roots"] as? [[Int]]).count
        #expect(expected > OTLPTraceExport.requestsPerLine, "one batch would not test batching")
        try await Self.withReceiver("ok") { port, log in
            let sent = try await traceView([
                "export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:\(port)", input,
            ])
            #expect(sent.status == 0 && sent.out.isEmpty, "\(sent.err)")
            #expect(
                sent.err.contains("sent the spans of \(expected) requests to http://127.0.0.1:\(port)/v1/traces"), "\(sent.err)")
            let posts = try Self.received(log)
            #expect(posts.count == (expected + OTLPTraceExport.requestsPerLine - 1) / OTLPTraceExport.requestsPerLine)
            #expect(posts.allSatisfy { $0["error"] == nil }, "\(posts)")
            #expect(posts.map { $0["requests"] as? Int ?? 0 }.reduce(0, +) == expected)
            // One kept-alive connection for every POST.
            #expect(Set(posts.compactMap { $0["peer_port"] as? Int }).count == 1, "\(posts.map { $0["peer_port"] ?? "" })")
        }
        try await Self.withReceiver("fail") { port, log in
            let refused = try await traceView([
                "export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:\(port)/v1/traces", input,
            ])
            #expect(refused.status == 76, "\(refused.err)")
            #expect(
                refused.err.contains("answered 500") && refused.err.contains("took 0 of \(expected) requests"), "\(refused.err)")
            #expect(try Self.received(log).count == 1, "it goes on after a refusal")
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
