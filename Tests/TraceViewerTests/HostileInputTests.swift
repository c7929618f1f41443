import Foundation
import Testing
import TransduceTestSupport

@testable import TransduceTrace

/// The smaller ways an input used to be lost or mangled on the way in.
@Suite struct HostileInputTests {
    static let demo = fixtures + "/demo.jsonl"

    /// Standard input, a pipe and a named FIFO are streamed from their first byte (a pipe used to
    /// lose the bytes read to tell its kind; a FIFO was opened twice and hung).
    @Test func pipesAndFIFOsLoseNothing() async throws {
        let tool = try #require(builtProduct("trace-view"))
        for script in [
            "\"$0\" summary - < \"$1\"",
            "cat \"$1\" | \"$0\" summary -",
            "\"$0\" summary <(cat \"$1\")",
            "rm -f \"$2\"; mkfifo \"$2\"; cat \"$1\" > \"$2\" & \"$0\" summary \"$2\"",
        ] {
            let dir = TemporaryDirectory()
            let (status, output) = try await run("/bin/bash", ["-c", script, tool, Self.demo, dir.file("fifo")])
            #expect(status == 0, "\(script): \(output)")
            #expect(output.contains("events      128"), "\(script): \(output)")
        }
    }

    /// A large non-trace on standard input is refused at its first bytes, not read whole.
    @Test func standardInputIsRefusedEarly() async throws {
        let tool = try #require(builtProduct("trace-view"))
        // 4 GiB of zeros: reading it whole would take far longer than the limit.
        let (status, output) = try await run(
            "/bin/bash", ["-c", "head -c 4294967296 /dev/zero | \"$0\" summary -; echo \"status ${PIPESTATUS[1]}\"", tool])
        #expect(status == 0)
        #expect(output.contains("status 65"), "\(output)")
        #expect(output.contains("bad magic"), "\(output)")
    }

    /// A line over 1 MiB is noted and skipped; every later event is still read.
    @Test func overlongJSONLinesLineIsSkipped() throws {
        var bytes =
            Array(#"{"kind":"dispatch","time":1,"thread":1,"runtime":1,"dispatch":1,"style":"post","event":"a"}"#.utf8) + [0x0A]
        bytes += Array(#"{"kind":"dispatch","time":2,"thread":1,"runtime":1,"dispatch":2,"style":"post","event":""#.utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: 3 << 20)
        bytes += Array("\"}\n".utf8)
        for i in 3...5 {
            bytes += Array(
                #"{"kind":"dispatch","time":\#(i),"thread":1,"runtime":1,"dispatch":\#(i),"style":"post","event":"b"}"#.utf8)
            bytes.append(0x0A)
        }
        let trace = JSONLinesReader(bytes: bytes).readAll()
        #expect(trace.events.map(\.dispatch) == [1, 3, 4, 5])
        #expect(trace.notes.count == 1)
        #expect(trace.notes.first?.contains("line 2: longer than") == true, "\(trace.notes)")
    }

    /// Escaped UTF-16 surrogate pairs are one character.
    @Test func surrogatePairsDecode() throws {
        let line =
            #"{"kind":"dispatch","time":1,"thread":1,"runtime":1,"dispatch":1,"style":"post","event":"a\ud83d\ude00b\u00e9\ud800"}"#
        let trace = JSONLinesReader(bytes: Array(line.utf8)).readAll()
        #expect(trace.events.first?.label == "a😀bé\u{FFFD}")
    }

    /// A code this version has no name for exports as `unknown(N)` and reads back as N.
    @Test func unknownCodesRoundTrip() throws {
        var e = TraceEvent(kind: .dispatch, time: 5, thread: 1, runtime: 1)
        e.code = 200
        var r = TraceEvent(kind: .dispatchRejected, time: 6, thread: 1, runtime: 1)
        r.code2 = 99
        let trace = Trace(events: [e, r])
        let back = JSONLinesReader(bytes: trace.jsonLinesBytes()).readAll()
        #expect(back.notes.isEmpty, "\(back.notes)")
        #expect(back.events == trace.events)
    }

    /// Header flags and reserved bytes must be zero in version 1.
    @Test func headerFlagsAndReservedBytesAreChecked() throws {
        let bytes = Trace(events: sampleEvents()).binaryBytes()
        for offset in [10, 11, 12, 15] {
            var damaged = bytes
            damaged[offset] = 1
            #expect(throws: TraceFileError.self, "offset \(offset)") { try TraceFileReader(bytes: damaged) }
        }
    }

    /// Labels cannot drive the terminal: control characters print as escapes.
    @Test func controlCharactersAreEscaped() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("evil.jsonl")
        let line =
            #"{"kind":"dispatch","time":100,"thread":1,"runtime":1,"dispatch":1,"style":"post","event":"evil\u001b]0;pwned\u0007\u001b[2J\u009bX"}"#
        try (line + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        for command in [["sequence"], ["contention"], ["summary"], ["export", "--format", "mermaid"]] {
            let result = try await traceView(command + [path])
            #expect(
                !result.out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) },
                "\(command)")
        }
        #expect(try await traceView(["sequence", path]).out.contains(#"evil\x1b]0;pwned\x07\x1b[2J\u{9b}X"#))
    }

    /// A million runtimes do not make a million rows of state.
    @Test func runtimeStateIsBounded() {
        var summary = SummaryReport()
        for i in 1...(SummaryReport.maxRuntimes + 500) {
            summary.consume(TraceEvent(kind: .dispatch, time: UInt64(i), thread: 1, runtime: UInt64(i)))
        }
        #expect(summary.runtimes.count == SummaryReport.maxRuntimes)
        #expect(summary.unlistedEvents == 500)
        #expect(summary.total == SummaryReport.maxRuntimes + 500)
    }
}
