import Foundation
import Testing
import TraceTooling
import TransduceTestSupport
import TransduceTrace

@testable import TraceInputs
@testable import trace_view

/// `export --otlp-endpoint`/`--send` beside the OpenTelemetry Python SDK's own exporter
/// (`scripts/otlp-reference-export.py`): each against a fresh stand-in collector
/// (`scripts/otlp-receiver.py`, which decodes every body with opentelemetry-proto) in the same
/// mode, and what each sent and when compared — the path, content type and encoding, how many
/// POSTs, the answers they got, the spacing of the retries, and whether the export succeeded.
@Suite struct OTLPSendingTests {
    static let root = Repository.root
    static let python = PerfettoProtoReader.python
    static let referenceAvailable =
        PerfettoProtoReader.readersAvailable
        && (try? Subprocess.run(
            python, ["-c", "import opentelemetry.exporter.otlp.proto.http.trace_exporter"], output: .captureSeparately,
            timeout: 60))?.status == 0

    struct Mode: Sendable, CustomTestStringConvertible {
        var name: String
        var compression = "none"
        var timeout = "10"
        /// trace-view's exit status (the reference exporter succeeds where it is 0).
        var status: Int32
        var posts: ClosedRange<Int>
        var testDescription: String { "\(name) (\(compression), \(timeout) s)" }
    }

    static let modes: [Mode] = [
        Mode(name: "ok", status: 0, posts: 1...1),
        Mode(name: "ok", compression: "gzip", status: 0, posts: 1...1),
        // The reference exporter counts a partial success as a success; trace-view says the
        // spans are lost (77), as its --allow-partial documents.
        Mode(name: "partial", status: 77, posts: 1...1),
        Mode(name: "bad-request", status: 76, posts: 1...1),
        Mode(name: "fail", status: 76, posts: 1...1),
        Mode(name: "throttle", status: 0, posts: 3...3),
        Mode(name: "throttle-date", status: 0, posts: 2...2),
        Mode(name: "unavailable", status: 0, posts: 3...3),
        // 503 throughout: attempts at 0, 1, 3 (and 7) s; the next backoff is past the limit.
        Mode(name: "down", timeout: "6", status: 76, posts: 3...4),
        Mode(name: "slow", timeout: "2", status: 76, posts: 1...1),
        Mode(name: "gzip-required", status: 76, posts: 1...1),
        Mode(name: "gzip-required", compression: "gzip", status: 0, posts: 1...1),
    ]

    /// One POST as the collector logged it.
    struct Post: Equatable {
        var at: Double
        var path: String
        var contentType: String
        var contentEncoding: String?
        var status: Int
        var decoded: Bool
    }

    static func posts(_ log: String) throws -> [Post] {
        try OTLPReader.received(log).map {
            Post(
                at: $0["at"] as? Double ?? 0, path: $0["path"] as? String ?? "", contentType: $0["content_type"] as? String ?? "",
                contentEncoding: $0["content_encoding"] as? String, status: $0["status"] as? Int ?? 0,
                decoded: $0["traces_data"] != nil)
        }
    }

    /// The gaps between POSTs: each retry's wait.
    static func gaps(_ posts: [Post]) -> [Double] { zip(posts.dropFirst(), posts).map { $0.at - $1.at } }

    @Test(.enabled(if: referenceAvailable), .timeLimit(.minutes(Patience.minutes(3))), arguments: modes)
    func sendsAsTheReferenceExporterDoes(_ mode: Mode) async throws {
        // Each exporter is timed where it runs: the wait to resume this test's task on a busy
        // concurrency pool is neither's.
        async let reference = OTLPReader.withReceiver(mode.name) { port, log in
            let (run, took) = try await timedOffThePool {
                try Subprocess.run(
                    Self.python,
                    [
                        Self.root + "/scripts/otlp-reference-export.py", "http://127.0.0.1:\(port)/v1/traces", mode.compression,
                        mode.timeout,
                    ], output: .captureSeparately, timeout: 120)
            }
            let result = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
            return (success: result?["success"] as? Bool, posts: try Self.posts(log), errors: run.errors, took: took)
        }
        async let ours = OTLPReader.withReceiver(mode.name) { port, log in
            let (run, took) = try await timedOffThePool {
                try traceViewBlocking([
                    "export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:\(port)", "--compression",
                    mode.compression, "--timeout", mode.timeout, fixtures + "/demo.jsonl",
                ])
            }
            return (status: run.status, posts: try Self.posts(log), errors: run.err, took: took)
        }
        let (theirs, mine) = try await (reference, ours)
        // Both within their time limit (at most 10 s) and a margin for a loaded machine.
        #expect(
            theirs.took < .seconds(60 * Patience.factor) && mine.took < .seconds(60 * Patience.factor),
            "\(theirs.took) \(mine.took)")
        guard let success = theirs.success else {
            Issue.record("the reference exporter did not run: \(theirs.errors)")
            return
        }
        #expect(mine.status == mode.status, "\(mine.errors)")
        #expect(success == (mode.status == 0 || mode.status == 77), "the reference exporter: \(success)")
        // The same requests: path, content type, encoding; the same answers in the same order.
        #expect(mode.posts.contains(theirs.posts.count) && mode.posts.contains(mine.posts.count), "\(theirs.posts) \(mine.posts)")
        #expect(mine.posts.map(\.status) == theirs.posts.map(\.status) || mode.name == "down", "\(mine.posts) \(theirs.posts)")
        for post in theirs.posts + mine.posts {
            #expect(post.path == "/v1/traces" && post.contentType == "application/x-protobuf")
            #expect(post.contentEncoding == (mode.compression == "gzip" ? "gzip" : nil))
            // Every body decoded by opentelemetry-proto (a 415 is answered before decoding).
            #expect(post.decoded || post.status == 415, "\(post)")
        }
        // The retries' spacing: Retry-After where the collector gave one (1 s, or a date 2 s
        // ahead, which is whole seconds), else 1, 2, 4… s each ×0.8…1.2; a margin for a loaded
        // machine above, none below.
        for (who, posts) in [("reference", theirs.posts), ("trace-view", mine.posts)] {
            for (i, gap) in Self.gaps(posts).enumerated() {
                let (low, high): (Double, Double)
                switch mode.name {
                case "throttle": (low, high) = (0.95, 2.5)
                case "throttle-date": (low, high) = (0.9, 3.5)
                default: (low, high) = (0.8 * Double(1 << i) - 0.05, 1.2 * Double(1 << i) + 1.5)
                }
                #expect(gap >= low && gap <= high, "\(who) \(mode.name): retry \(i + 1) after \(gap) s")
            }
        }
    }

    /// Nothing listens: both give up within the time limit, having retried (the reference
    /// exporter retries a refused connection at once and then backs off; trace-view backs off).
    @Test(.enabled(if: referenceAvailable), .timeLimit(.minutes(Patience.minutes(2))))
    func aRefusedConnectionIsRetriedThenGivenUp() async throws {
        let port = try Loopback.freePorts(1)[0]
        let url = "http://127.0.0.1:\(port)/v1/traces"
        async let reference = offThePool {
            try Subprocess.run(
                Self.python, [Self.root + "/scripts/otlp-reference-export.py", url, "none", "4"], output: .captureSeparately,
                timeout: 60)
        }
        // Timed where it runs (``timedOffThePool``), not across the await.
        let (mine, took) = try await timedOffThePool {
            try traceViewBlocking([
                "export", "--format", "otlp", "--otlp-endpoint", url, "--timeout", "4", fixtures + "/demo.jsonl",
            ])
        }
        let theirs = try JSONSerialization.jsonObject(with: Data(try await reference.output.utf8)) as? [String: Any]
        #expect(theirs?["success"] as? Bool == false)
        #expect(mine.status == 76)
        #expect(mine.err.contains("no answer from the collector") && mine.err.contains("retrying in"), "\(mine.err)")
        #expect(mine.err.contains("would be past the time limit"), "\(mine.err)")
        // Backoff 1 then 2 s (×0.8…1.2): at least 2.4 s, and within the 4 s limit and a margin.
        #expect(took >= .milliseconds(2400) && took < .seconds(20 * Patience.factor), "\(took)")
    }

    /// http/protobuf and http/json carry the same spans: over a trace of many batches, each
    /// POST's body decoded by opentelemetry-proto from either encoding is the same message.
    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func bothEncodingsCarryTheSameSpans() async throws {
        let dir = TemporaryDirectory()
        // Anchored to a wall clock of its own, so that every run places the spans alike.
        let events = try await SharedTraces.mixed.value
        var trace = Trace(events: events)
        trace.counts = TraceCounts(
            events: UInt64(events.count), monotonicOrigin: 1_000_000_000, realtimeOrigin: 1_767_225_600_000_000_000)
        let input = dir.file("anchored.tdtrace")
        try TraceFileWriter.write(trace, to: input)
        var decoded: [String: [String]] = [:]
        for (proto, compression) in [("http/protobuf", "gzip"), ("http/json", "none"), ("http/json", "gzip")] {
            decoded[proto + compression] = try await OTLPReader.withReceiver("ok") { port, log in
                let run = try await traceView([
                    "export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:\(port)", "--otlp-protocol", proto,
                    "--compression", compression, input,
                ])
                #expect(run.status == 0, "\(run.err)")
                let posts = try OTLPReader.received(log)
                #expect(posts.allSatisfy { $0["error"] == nil }, "\(posts.compactMap { $0["error"] })")
                return posts.compactMap { $0["traces_data"] as? String }
            }
        }
        let protobuf = try #require(decoded["http/protobufgzip"])
        #expect(protobuf.count > 1, "one batch would not test batching")
        for other in ["http/jsonnone", "http/jsongzip"] {
            let json = decoded[other] ?? []
            let differing = zip(json, protobuf).enumerated().filter { $1.0 != $1.1 }.map(\.offset)
            #expect(json.count == protobuf.count && differing.isEmpty, "\(other): batches \(differing) differ")
        }
    }

    /// A collector that fails part-way: the message says how far it got and the --resume-at
    /// that sends the rest; sending with it sends exactly the rest.
    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func aStoppedExportResumes() async throws {
        let dir = TemporaryDirectory()
        let (input, _) = try await OTLPReader.export(try await SharedTraces.mixed.value, in: dir)
        let total = try await OTLPReader.withReceiver("ok") { port, log in
            _ = try await traceView(["export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:\(port)", input])
            return try OTLPReader.received(log).map { $0["requests"] as? Int ?? 0 }.reduce(0, +)
        }
        let perBatch = OTLPTraceExport.requestsPerLine
        #expect(total > 2 * perBatch, "the test needs three batches")
        let stopped = try await OTLPReader.withReceiver("fail-third") { port, _ in
            try await traceView(["export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:\(port)", input])
        }
        #expect(stopped.status == 76)
        #expect(
            stopped.err.contains("took \(2 * perBatch) of \(total) requests; to send the rest, add --resume-at \(2 * perBatch)"),
            "\(stopped.err)")
        let rest = try await OTLPReader.withReceiver("ok") { port, log in
            let run = try await traceView([
                "export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:\(port)", "--resume-at", "\(2 * perBatch)",
                input,
            ])
            #expect(run.status == 0, "\(run.err)")
            return try OTLPReader.received(log).map { $0["requests"] as? Int ?? 0 }.reduce(0, +)
        }
        #expect(rest == total - 2 * perBatch)
        let past = try await traceView([
            "export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:9", "--resume-at", "\(total + 1)", input,
        ])
        #expect(past.status == 64 && past.err.contains("is past the export's \(total) requests"), "\(past.err)")
    }

    /// `--send` with OpenTelemetry's variables only: the base endpoint gets /v1/traces, the
    /// headers arrive, the protocol and compression are the variables'.
    @Test(.enabled(if: PerfettoProtoReader.readersAvailable)) func theVariablesConfigureSending() async throws {
        try await OTLPReader.withReceiver("ok") { port, log in
            let run = try await traceView(
                ["export", "--format", "otlp", "--send", fixtures + "/demo.jsonl"],
                environment: [
                    "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(port)/",
                    "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20secret%2C1, x-team = core",
                    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
                    "OTEL_EXPORTER_OTLP_TIMEOUT": "5000",
                ])
            #expect(run.status == 0, "\(run.err)")
            let post = try #require(try OTLPReader.received(log).first)
            #expect(post["path"] as? String == "/v1/traces")
            #expect(post["authorization"] as? String == "Bearer secret,1")
            #expect(post["content_type"] as? String == "application/json")
            #expect(post["content_encoding"] as? String == "gzip")
            #expect(post["traces_data"] != nil, "\(post)")
        }
        let grpc = try await traceView(
            ["export", "--format", "otlp", "--send", fixtures + "/demo.jsonl"],
            environment: ["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"])
        #expect(grpc.status == 64 && grpc.err.contains("OTEL_EXPORTER_OTLP_PROTOCOL=grpc"), "\(grpc.err)")
        let injected = try await traceView(
            ["export", "--format", "otlp", "--send", fixtures + "/demo.jsonl"],
            environment: ["OTEL_EXPORTER_OTLP_HEADERS": "x=a%0D%0AHost: evil"])
        #expect(injected.status == 64 && injected.err.contains("without control characters"), "\(injected.err)")
    }

    /// https with the collector's own CA (`--certificate`); without it, the system's CA store
    /// refuses the self-signed certificate and nothing is retried.
    @Test(.enabled(if: PerfettoProtoReader.readersAvailable && Subprocess.which("openssl") != nil))
    func httpsTrustsTheGivenCertificate() async throws {
        let dir = TemporaryDirectory()
        let (cert, key) = (dir.file("cert.pem"), dir.file("key.pem"))
        let made = try await offThePool {
            try Subprocess.run(
                Subprocess.which("openssl")!,
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj",
                    "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                ], output: .captureSeparately, timeout: 60)
        }
        try #require(made.status == 0, "\(made.errors)")
        let script = Self.root + "/scripts/otlp-receiver.py"
        try await OTLPReader.withReceiver("ok", script: script, extra: [cert, key]) { port, log in
            let url = "https://127.0.0.1:\(port)"
            let trusted = try await traceView([
                "export", "--format", "otlp", "--otlp-endpoint", url, "--certificate", cert, fixtures + "/demo.jsonl",
            ])
            #expect(trusted.status == 0, "\(trusted.err)")
            let untrusted = try await traceView([
                "export", "--format", "otlp", "--otlp-endpoint", url, fixtures + "/demo.jsonl",
            ])
            #expect(untrusted.status == 76 && untrusted.err.contains("certificate"), "\(untrusted.err)")
            #expect(!untrusted.err.contains("retrying"), "\(untrusted.err)")
            #expect(try OTLPReader.received(log).count == 1, "only the trusted export reached the collector")
        }
    }
}

/// ``ExportRetry`` and ``OTLPSettings`` as values: the policy and the precedence, without a peer.
@Suite struct OTLPPolicyTests {
    @Test func retriesFollowTheSpecification() {
        let second: UInt64 = 1_000_000_000
        var retry = ExportRetry(deadline: 100 * second)
        #expect(retry.next(after: .answered(status: 503, retryAfter: nil), now: 0, jitter: 1) == .retry(afterNanos: second))
        #expect(retry.next(after: .connectionFailed("reset"), now: second, jitter: 1.2) == .retry(afterNanos: 2_400_000_000))
        #expect(
            retry.next(after: .answered(status: 429, retryAfter: 7), now: 2 * second, jitter: 1) == .retry(afterNanos: 7 * second)
        )
        #expect(
            retry.next(after: .answered(status: 504, retryAfter: nil), now: 3 * second, jitter: 0.5)
                == .retry(afterNanos: 6_400_000_000))
        #expect(
            retry.next(after: .answered(status: 502, retryAfter: nil), now: 4 * second, jitter: 1)
                == .retry(afterNanos: 16 * second))
        #expect(
            retry.next(after: .answered(status: 503, retryAfter: nil), now: 5 * second, jitter: 1)
                == .giveUp(why: "after 6 attempts"))
        // What is not retried.
        for outcome in [
            ExportRetry.Outcome.answered(status: 400, retryAfter: 1), .answered(status: 500, retryAfter: nil), .failed("x"),
        ] {
            var once = ExportRetry(deadline: 100 * second)
            #expect(once.next(after: outcome, now: 0, jitter: 1) == .giveUp(why: ""))
        }
        var ok = ExportRetry(deadline: second)
        #expect(ok.next(after: .answered(status: 202, retryAfter: nil), now: 0, jitter: 1) == .sent)
        // Never past the deadline: a Retry-After beyond it, or one that is absurd, ends it.
        var late = ExportRetry(deadline: 10 * second)
        guard case .giveUp(let why) = late.next(after: .answered(status: 429, retryAfter: 11), now: 0, jitter: 1) else {
            Issue.record("waited past the deadline")
            return
        }
        #expect(why.contains("past the time limit"))
        var absurd = ExportRetry(deadline: 10 * second)
        #expect(absurd.next(after: .answered(status: 429, retryAfter: 1e300), now: 0, jitter: 1) != .retry(afterNanos: .max))
    }

    @Test func retryAfterIsSecondsOrADate() {
        let date: (String) -> Double? = { $0 == "Wed, 21 Oct 2015 07:28:00 GMT" ? 1_445_412_480 : nil }
        #expect(ExportRetry.retryAfter("3", nowUnix: 0, date: date) == 3)
        #expect(ExportRetry.retryAfter(" -4 ", nowUnix: 0, date: date) == 0)
        #expect(ExportRetry.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", nowUnix: 1_445_412_470, date: date) == 10)
        #expect(ExportRetry.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", nowUnix: 1_445_412_490, date: date) == 0)
        #expect(ExportRetry.retryAfter("soon", nowUnix: 0, date: date) == nil)
        #expect(ExportRetry.retryAfter("nan", nowUnix: 0, date: date) == nil)
        #expect(ExportRetry.retryAfter("", nowUnix: 0, date: date) == nil)
    }

    @Test func settingsFollowFlagThenSignalThenGeneral() throws {
        func resolve(_ options: [String: String], _ env: [String: String]) throws -> OTLPSettings {
            try OTLPSettings.resolve(options: options, environment: env)
        }
        #expect(try resolve([:], [:]) == OTLPSettings(endpoint: "http://localhost:4318/v1/traces"))
        #expect(
            try resolve([:], ["OTEL_EXPORTER_OTLP_ENDPOINT": "https://otlp.example.com:443/base/"]).endpoint
                == "https://otlp.example.com:443/base/v1/traces")
        #expect(
            try resolve([:], ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:1", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:2/x"])
                .endpoint == "http://b:2/x")
        #expect(
            try resolve(["otlp-endpoint": "http://c:3"], ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:2/x"]).endpoint
                == "http://c:3/v1/traces")
        let s = try resolve(
            ["compression": "gzip"],
            [
                "OTEL_EXPORTER_OTLP_COMPRESSION": "none", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
                "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "2500", "OTEL_EXPORTER_OTLP_TIMEOUT": "9000",
                "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%3Db, Other=1",
            ])
        #expect(s.compression == .gzip && s.encoding == .json && s.timeout == 2.5)
        #expect(s.headers == [.init(name: "api-key", value: "a=b"), .init(name: "other", value: "1")])
        #expect(try resolve(["timeout": "3"], ["OTEL_EXPORTER_OTLP_TIMEOUT": "9000"]).timeout == 3)
        for (options, env) in [
            ([:], ["OTEL_EXPORTER_OTLP_PROTOCOL": "http/xml"]), (["compression": "zstd"], [:]),
            ([:], ["OTEL_EXPORTER_OTLP_TIMEOUT": "-1"]), (["otlp-headers": "no pair"], [:]),
            (["otlp-headers": "bad name=1"], [:]), (["otlp-endpoint": "localhost:4318"], [:]),
            (["otlp-endpoint": "http://"], [:]), (["otlp-endpoint": "http://a b"], [:]),
        ] as [([String: String], [String: String])] {
            #expect(throws: CLIError.self, "\(options) \(env)") { try resolve(options, env) }
        }
    }
}
