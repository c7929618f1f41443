import Foundation
import Testing
import TraceTooling

@testable import trace_view

/// `export --otlp-endpoint` against a collector that lies (`hostile_collector.py`, on loopback):
/// whatever it answers, or does not, the export ends within its `--timeout` and a margin, with
/// the stated exit status and a message that names what the peer did, in bounded memory. Before,
/// a Content-Length of 2^63-1 trapped (exit 132), a negative one was taken as complete, a drip
/// held a POST for up to 18 hours, and a partial success was reported as a full one.
@Suite struct HostileCollectorTests {
    static let script = fixtures + "/scripts/hostile_collector.py"

    struct Case: Sendable, CustomTestStringConvertible {
        var mode: String
        var status: Int32
        var says: String
        var extra: [String] = []
        var testDescription: String { mode + (extra.isEmpty ? "" : " " + extra.joined(separator: " ")) }
    }

    static let cases: [Case] = [
        Case(mode: "huge-length", status: 76, says: "sent a Content-Length that is not a length"),
        Case(mode: "negative-length", status: 76, says: "sent a Content-Length that is not a length"),
        Case(mode: "garbage-length", status: 76, says: "sent a Content-Length that is not a length"),
        Case(mode: "two-lengths", status: 76, says: "sent two different Content-Lengths"),
        Case(mode: "huge-chunk", status: 76, says: "sent a chunk size that is not one"),
        Case(mode: "drip", status: 76, says: "no whole answer from 127.0.0.1:", extra: ["--timeout", "3"]),
        Case(mode: "silent", status: 76, says: "no whole answer from 127.0.0.1:", extra: ["--timeout", "3"]),
        Case(mode: "redirect", status: 76, says: "answered 307"),
        Case(mode: "not-http", status: 76, says: "did not answer in HTTP"),
        Case(mode: "close", status: 76, says: "closed the connection without an answer"),
        Case(mode: "partial", status: 77, says: "but rejected 7 spans: spans too old"),
        Case(mode: "partial", status: 0, says: "warning: the collector at", extra: ["--allow-partial"]),
        // A 200 whose body is a gigabyte: its first MiB is read, the rest is not waited for.
        Case(mode: "gigabyte", status: 0, says: "sent the spans of"),
    ]

    @Test(.enabled(if: Subprocess.which("python3") != nil), .timeLimit(.minutes(3)), arguments: cases)
    func theExportEndsAsStated(_ c: Case) async throws {
        let binary = try #require(builtProduct("trace-view"))
        try await OTLPExportTests.withReceiver(c.mode, script: Self.script) { port, log in
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
            #expect(took < .seconds(40), "\(c.mode) took \(took)")
            #expect(try OTLPExportTests.received(log).count == 1, "one POST, no retry of a lie")
            if measured {
                let text = try String(contentsOfFile: timeFile, encoding: .utf8)
                let kb = Int(text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
                #expect(kb > 0 && kb < 96 << 10, "\(c.mode): peak \(kb) KiB")
            }
        }
    }
}

/// ``HTTPAnswer`` on well-formed answers, fed a byte at a time (as a slow peer sends them) and
/// whole, and ``PartialSuccess`` on the shapes OTLP JSON allows.
@Suite struct HTTPAnswerTests {
    static func read(_ text: String, byteByByte: Bool) -> HTTPAnswer.State {
        var answer = HTTPAnswer()
        let bytes = Array(text.utf8)
        if byteByByte {
            for b in bytes where answer.state == .reading { answer.consume([b]) }
        } else {
            answer.consume(bytes)
        }
        return answer.state == .reading ? answer.close() : answer.state
    }

    @Test(arguments: [false, true]) func wellFormedAnswersAreRead(_ byteByByte: Bool) {
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5;x=y\r\npedia\r\n0\r\n\r\n"
        #expect(Self.read(chunked, byteByByte: byteByByte) == .complete(status: 200, body: Array("Wikipedia".utf8), cut: false))
        let sized = "HTTP/1.1 400 Bad Request\r\nContent-Length:  5 \r\n\r\nhello and more"
        #expect(Self.read(sized, byteByByte: byteByByte) == .complete(status: 400, body: Array("hello".utf8), cut: false))
        let untilClose = "HTTP/1.0 200 OK\r\n\r\n{}"
        #expect(Self.read(untilClose, byteByByte: byteByByte) == .complete(status: 200, body: Array("{}".utf8), cut: false))
        let truncated = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"
        guard case .malformed = Self.read(truncated, byteByByte: byteByByte) else {
            Issue.record("a body short of its length is not an answer")
            return
        }
    }

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
}
