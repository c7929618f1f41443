import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import trace_view

/// `export --otlp-endpoint` against a collector that lies (`hostile_collector.py`, on loopback):
/// whatever it answers, or does not, the export ends within its `--timeout` and a margin, with
/// the stated exit status and a message that names what the peer did (libcurl's words), in
/// bounded memory, and retries only what OTLP/HTTP says to retry (a connection closed without an
/// answer), never a lie. Before, a Content-Length of 2^63-1 trapped (exit 132), a negative one
/// was taken as complete, a drip held a POST for up to 18 hours, and a partial success was
/// reported as a full one.
@Suite struct HostileCollectorTests {
    static let script = fixtures + "/scripts/hostile_collector.py"

    struct Case: Sendable, CustomTestStringConvertible {
        var mode: String
        var status: Int32
        var says: String
        var extra: [String] = []
        /// How many POSTs the collector may see: one, but for what is retried.
        var posts: ClosedRange<Int> = 1...1
        var testDescription: String { mode + (extra.isEmpty ? "" : " " + extra.joined(separator: " ")) }
    }

    static let cases: [Case] = [
        Case(mode: "huge-length", status: 76, says: "gave no usable answer: transfer closed with"),
        Case(mode: "negative-length", status: 76, says: "gave no usable answer: Invalid Content-Length"),
        Case(mode: "garbage-length", status: 76, says: "gave no usable answer: transfer closed with"),
        Case(mode: "two-lengths", status: 76, says: "gave no usable answer: transfer closed with"),
        Case(mode: "huge-chunk", status: 76, says: "gave no usable answer: Too long hexadecimal number"),
        Case(mode: "drip", status: 76, says: "no whole answer within the time limit", extra: ["--timeout", "3"]),
        Case(mode: "silent", status: 76, says: "no whole answer within the time limit", extra: ["--timeout", "3"]),
        Case(mode: "redirect", status: 76, says: "answered 307"),
        Case(mode: "not-http", status: 76, says: "gave no usable answer: Received HTTP/0.9"),
        // Closed without an answer: a failed connection, retried with backoff until the time is up.
        Case(mode: "close", status: 76, says: "Empty reply from server", extra: ["--timeout", "4"], posts: 2...4),
        Case(mode: "partial", status: 77, says: "but rejected 7 spans: spans too old"),
        Case(mode: "partial", status: 0, says: "warning: the collector at", extra: ["--allow-partial"]),
        // A 200 whose body is a gigabyte: its first MiB is read, the rest is not waited for.
        Case(mode: "gigabyte", status: 0, says: "sent the spans of"),
    ]

    @Test(.enabled(if: Subprocess.which("python3") != nil), .timeLimit(.minutes(Patience.minutes(3))), arguments: cases)
    func theExportEndsAsStated(_ c: Case) async throws {
        let binary = try #require(builtProduct("trace-view"))
        // The hostile collector needs only Python's standard library: the system's Python runs it,
        // so the test runs where the readers of `.build/py` are not installed (a plain `swift test`).
        let python = try #require(Subprocess.which("python3"))
        try await OTLPReader.withReceiver(c.mode, script: Self.script, python: python) { port, log in
            let dir = TemporaryDirectory()
            let measured = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
            let arguments =
                ["export", "--format", "otlp", "--otlp-endpoint", "http://127.0.0.1:\(port)"] + c.extra
                + [fixtures + "/demo.jsonl"]
            let timeFile = dir.file("time")
            let started = ContinuousClock.now
            let run = try await offThePool {
                try Subprocess.run(
                    measured ? "/usr/bin/time" : binary,
                    (measured ? ["-f", "peak-kb %M", "-o", timeFile, binary] : []) + arguments,
                    output: .captureSeparately, timeout: 120)
            }
            let took = ContinuousClock.now - started
            #expect(run.status == c.status, "\(c.mode): \(run.errors)")
            #expect(run.errors.contains(c.says), "\(c.mode): \(run.errors)")
            // No raw control character of the peer's reaches the terminal.
            #expect(!run.errors.unicodeScalars.contains("\u{1B}"), "\(run.errors)")
            // Within the deadline (3 s for the modes that hold it, else 10) and a generous margin
            // for a loaded machine: before, the drip held the export for hours.
            #expect(took < .seconds(40 * Patience.factor), "\(c.mode) took \(took)")
            let posts = try OTLPReader.received(log).count
            #expect(c.posts.contains(posts), "\(c.mode): \(posts) POSTs")
            if measured {
                let text = try String(contentsOfFile: timeFile, encoding: .utf8)
                let kb = Int(text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
                #expect(kb > 0 && kb < 96 << 10, "\(c.mode): peak \(kb) KiB")
            }
        }
    }
}

/// ``PartialSuccess`` on the shapes OTLP JSON and protobuf allow, and ``ProtobufReader`` on
/// damaged bytes.
@Suite struct PartialSuccessTests {
    @Test func partialSuccessesAreRead() {
        func read(_ json: String) -> PartialSuccess? { PartialSuccess(Array(json.utf8)) }
        #expect(read("{}") == nil)
        #expect(read("") == nil)
        #expect(read(#"{"partialSuccess":{}}"#) == nil)
        #expect(read(#"{"partialSuccess":{"rejectedSpans":"3"}}"#) == PartialSuccess(rejectedSpans: 3, message: ""))
        #expect(
            read(#"{"partialSuccess":{"rejectedSpans":4,"errorMessage":"old"}}"#)
                == PartialSuccess(rejectedSpans: 4, message: "old"))
        // A count that is not one still says spans were lost.
        #expect(read(#"{"partialSuccess":{"rejectedSpans":"-2"}}"#)?.rejectedSpans == 1)
        #expect(read(#"{"partialSuccess":{"rejectedSpans":"99999999999999999999999"}}"#)?.rejectedSpans == 1)
        #expect(read(#"{"partialSuccess":{"errorMessage":"line\nbreak"}}"#)?.message == "line break")
    }

    /// ExportTraceServiceResponse { partial_success (1) { rejected_spans (1), error_message (2) } }.
    @Test func protobufPartialSuccessesAreRead() {
        func read(_ bytes: [UInt8]) -> PartialSuccess? { PartialSuccess(bytes, protobuf: true) }
        #expect(read([]) == nil)
        #expect(read([0x0A, 0x00]) == nil, "an empty partial success is a full one")
        #expect(read([0x0A, 0x02, 0x08, 0x07]) == PartialSuccess(rejectedSpans: 7, message: ""))
        #expect(read([0x0A, 0x05, 0x12, 0x03] + Array("old".utf8)) == PartialSuccess(rejectedSpans: 0, message: "old"))
        // -1 as an int64 (ten bytes): a count that is not one still says spans were lost.
        #expect(read([0x0A, 0x0B, 0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x01])?.rejectedSpans == 1)
        // Damage: a length past the end, a varint that never ends, a wire type 7.
        #expect(read([0x0A, 0x7F, 0x08]) == nil)
        #expect(read([UInt8](repeating: 0xFF, count: 20)) == nil)
        #expect(read([0x0F]) == nil)
    }
}
