import Foundation
import Testing
import TraceTooling
import TransduceTestSupport
import TransduceTrace

/// Spans are placed at the wall time the trace recorded, not at this machine's clocks now: an
/// LTTng trace by its own clock offset (what babeltrace2's `--clock-seconds` adds), a ring dump
/// and `demo --save` by their anchors. The oracle is babeltrace2 reading the same trace.
@Suite struct WallClockTests {
    /// Every root span's start, by (pid, runtime, dispatch), from an OTLP JSON export.
    static func starts(_ path: String) throws -> [String: UInt64] {
        var starts: [String: UInt64] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            let data = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for rs in data["resourceSpans"] as? [[String: Any]] ?? [] {
                let resource = (rs["resource"] as? [String: Any])?["attributes"] as? [[String: Any]] ?? []
                func value(_ attributes: [[String: Any]], _ key: String) -> String? {
                    (attributes.first { $0["key"] as? String == key }?["value"] as? [String: Any])?["intValue"] as? String
                }
                let pid = value(resource, "process.pid") ?? "", runtime = value(resource, "transduce.runtime") ?? ""
                for ss in rs["scopeSpans"] as? [[String: Any]] ?? [] {
                    for span in ss["spans"] as? [[String: Any]] ?? [] where span["parentSpanId"] == nil {
                        let dispatch = value(span["attributes"] as? [[String: Any]] ?? [], "transduce.dispatch") ?? ""
                        starts["\(pid)/\(runtime)/\(dispatch)"] = UInt64(span["startTimeUnixNano"] as? String ?? "")
                    }
                }
            }
        }
        return starts
    }

    /// Each dispatch's time as babeltrace2 `--clock-seconds` prints it (Unix seconds with nine
    /// decimals), by (pid, runtime, dispatch).
    static func babeltraceDispatches(_ trace: String) throws -> [String: UInt64] {
        let run = try Subprocess.run(
            LTTngTools.babeltrace!, ["--clock-seconds", trace], output: .captureSeparately, timeout: 120)
        try #require(run.status == 0, "\(run.errors)")
        var times: [String: UInt64] = [:]
        for line in run.output.split(separator: "\n") where line.contains("transduce:dispatch:") {
            let text = String(line)
            guard let close = text.firstIndex(of: "]"), let dot = text.firstIndex(of: ".") else { continue }
            let seconds = UInt64(text[text.index(after: text.startIndex)..<dot]) ?? 0
            let nanos = UInt64(text[text.index(after: dot)..<close]) ?? 0
            func field(_ name: String) -> String {
                guard let r = text.range(of: "\(name) = ") else { return "" }
                return String(text[r.upperBound...].prefix { $0.isNumber })
            }
            times["\(field("vpid"))/\(field("runtime"))/\(field("dispatch"))"] = seconds * 1_000_000_000 + nanos
        }
        return times
    }

    @Test(.enabled(if: LTTngTools.missing == nil), .timeLimit(.minutes(Patience.minutes(3))))
    func anLTTngTraceIsPlacedByItsOwnClockOffset() async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        let output = dir.file("recorded")
        let ring = dir.file("ring.tdtrace")
        let recorded = try await offThePool {
            try traceViewBlocking(["record", "--output", output, "--", example, ring], lttng: true)
        }
        try #require(recorded.status == 0, "\(recorded.err)")
        let exported = dir.file("spans.jsonl")
        let first = try await traceView(["export", "--format", "otlp", "--output", exported, output])
        #expect(first.status == 0 && !first.err.contains("no wall-clock anchor"), "\(first.err)")
        let oracle = try await offThePool { try Self.babeltraceDispatches(output) }
        let spans = try Self.starts(exported)
        #expect(!spans.isEmpty)
        for (key, start) in spans { #expect(start == oracle[key], "\(key): \(start) vs babeltrace2's \(oracle[key] ?? 0)") }

        // The same trace as if the machine had booted a day earlier: its clock offset a day
        // larger (the metadata's `offset = N;`, rewritten in place with as many digits).
        let day: UInt64 = 86_400 * 1_000_000_000
        let metadata = try #require(
            FileManager.default.enumerator(atPath: output)?.compactMap { $0 as? String }.first { $0.hasSuffix("/metadata") })
        let path = output + "/" + metadata
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let key = Data("\toffset = ".utf8)
        let at = try #require(bytes.range(of: key), "no clock offset in \(path)")
        let digits = bytes[at.upperBound...].prefix { $0 >= 0x30 && $0 <= 0x39 }
        let offset = try #require(UInt64(String(decoding: digits, as: UTF8.self)))
        let shifted = Data(String(offset + day).utf8)
        try #require(shifted.count == digits.count)
        bytes.replaceSubrange(digits.startIndex..<digits.endIndex, with: shifted)
        try bytes.write(to: URL(fileURLWithPath: path))

        let again = dir.file("shifted.jsonl")
        let second = try await traceView(["export", "--format", "otlp", "--output", again, output])
        #expect(second.status == 0 && !second.err.contains("no wall-clock anchor"), "\(second.err)")
        let shiftedOracle = try await offThePool { try Self.babeltraceDispatches(output) }
        let shiftedSpans = try Self.starts(again)
        #expect(shiftedSpans.count == spans.count)
        for (key, start) in shiftedSpans {
            #expect(start == shiftedOracle[key], "\(key)")
            #expect(start == (spans[key] ?? 0) + day, "\(key): moved by \(Int64(bitPattern: start &- (spans[key] ?? 0)))")
        }
    }

    /// `demo --save` keeps the ring's anchor, in either format: no warning, and the spans sit
    /// within the minutes around now.
    @Test(arguments: ["demo.tdtrace", "demo.jsonl"]) func aSavedDemoIsAnchored(_ name: String) async throws {
        let dir = TemporaryDirectory()
        let saved = dir.file(name)
        let demo = try await traceView(["demo", "--save", saved])
        try #require(demo.status == 0, "\(demo.err)")
        let exported = dir.file("spans.jsonl")
        let run = try await traceView(["export", "--format", "otlp", "--output", exported, saved])
        #expect(run.status == 0 && !run.err.contains("no wall-clock anchor"), "\(run.err)")
        let now = UInt64(Date().timeIntervalSince1970 * 1e9)
        let starts = try Self.starts(exported).values
        #expect(!starts.isEmpty)
        #expect(starts.allSatisfy { $0 < now && now - $0 < 600 * 1_000_000_000 }, "\(starts.sorted().prefix(3)) vs \(now)")
    }
}
