import Foundation
import Testing
import TraceTooling
import Transduce

@testable import TransduceTrace

/// OTLP exports read by the OpenTelemetry project's protobuf definitions (scripts/otlp-check.py),
/// and a stand-in collector (scripts/otlp-receiver.py).
package enum OTLPReader {
    /// What `scripts/otlp-check.py` read in `path`.
    package static func read(_ path: String) async throws -> [String: Any] {
        let python = PerfettoProtoReader.python
        let result = try await offThePool {
            try Subprocess.run(
                python, [Repository.root + "/scripts/otlp-check.py", path], output: .captureSeparately, timeout: 300)
        }
        #expect(result.status == 0, "\(result.errors)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    /// Expects the OTLP export at `path` of `events` read clean by OpenTelemetry's definitions:
    /// nothing refused, every parent and link target there, the parts tiling each request, and
    /// one root span per resumed request lasting exactly from its dispatch to its resume, each
    /// placed on the wall clock by the same offset (`offset`, where the trace says it), an error
    /// resume's with status ERROR.
    package static func expectClean(_ path: String, of events: [TraceEvent], offset: Int64? = nil) async throws {
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
    package static func export(_ events: [TraceEvent], hosts: [UInt32: String] = [:], in dir: TemporaryDirectory) async throws
        -> (input: String, path: String)
    {
        let (input, path, err) = try await exportTrace(events, hosts: hosts, format: "otlp", in: dir)
        #expect(err.contains("no wall-clock anchor"), "\(err)")
        return (input, path)
    }

    /// A forged anchor whose offset is `Int64.min` (monotonic origin 2^63 + 1, realtime 1) is an
    /// absurd time, not a trap: before, negating the offset crashed the export (exit 132).
    /// Every span of the OTLP file at `path`, as JSON objects.
    package static func spans(_ path: String) throws -> [[String: Any]] {
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
    /// A stand-in collector (`scripts/otlp-receiver.py`, decoding with OpenTelemetry's
    /// definitions, or another `script` that takes a mode and a log), started, its port read, and
    /// stopped when `body` returns; `body` gets the port and the receiver's log. `extra` follows
    /// the mode and the log (a certificate and its key, for https). `python` runs it: the readers'
    /// (`.build/py`, with OpenTelemetry's definitions) unless a script needs only the standard
    /// library.
    package static func withReceiver<T>(
        _ mode: String, script: String = Repository.root + "/scripts/otlp-receiver.py", extra: [String] = [],
        python: String = PerfettoProtoReader.python, _ body: (Int, String) async throws -> T
    ) async throws -> T {
        let dir = TemporaryDirectory()
        let log = dir.file("received.jsonl")
        let child = try Subprocess.start(
            python, [script, mode, log] + extra,
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
    package static func received(_ log: String) throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// Spans POSTed to a collector as OTLP/HTTP JSON, in batches: every batch decoded by
    /// OpenTelemetry's definitions, every resumed request there; a collector answering 500 and
    /// one that is down each stop the export with status 76 and say why.
}
