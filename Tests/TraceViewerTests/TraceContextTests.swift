import Foundation
import Testing
import TraceTooling
import Transduce
import TransduceDemo
import TransduceTestSupport

@testable import TransduceTrace

/// The W3C trace context a dispatch is made under: read from `traceparent`, recorded with the
/// dispatches of the callers that set it (and no others), kept by every trace format, and turned
/// by the OTLP export into the parent of the request's span — read back by the OpenTelemetry
/// project's own definitions (scripts/otlp-check.py).
@Suite struct TraceContextTests {

    @Test func traceparentIsReadAsW3CTraceContextSays() {
        let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let context = TraceContext(traceparent: valid)
        #expect(context?.traceIDHigh == 0x4bf9_2f35_77b3_4da6 && context?.traceIDLow == 0xa3ce_929d_0e0e_4736)
        #expect(context?.spanID == 0x00f0_67aa_0ba9_02b7 && context?.flags == 1 && context?.isSampled == true)
        #expect(context?.traceparent == valid && context?.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(TraceContexts.worker.isSampled == false && TraceContexts.worker.traceparent.hasSuffix("-00"))
        // A later version is read by its first four fields; more may follow after a dash.
        #expect(TraceContext(traceparent: "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-later")?.flags == 0)
        for bad in [
            "", "00", valid.uppercased(), valid + "-", valid + "0", String(valid.dropLast()),
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff is invalid
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // so is a zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // and a zero span id
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00x",
        ] {
            #expect(TraceContext(traceparent: bad) == nil, "\(bad)")
        }
        #expect(TraceContext(traceIDHigh: 0, traceIDLow: 0, spanID: 1) == nil)
        #expect(TraceContext(traceIDHigh: 0, traceIDLow: 1, spanID: 1) != nil)
    }

    @Test func eachCallersDispatchesRecordItsContextAndNoOthers() async throws {
        let (trace, contexts) = try await TraceContexts.recorded.value
        #expect(trace.counts.overwritten == 0 && trace.counts.lost == 0)
        let index = TraceIndex(trace.events)
        var checked = 0
        for (i, e) in trace.events.enumerated() where e.kind == .dispatch || e.kind == .dispatchRejected {
            let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)
            let expected = e.otherTask == 0 ? contexts[e.runtime] ?? nil : nil
            #expect(index.traceContexts[key] == expected, "runtime \(e.runtime) \(e.kind) #\(e.dispatch) \(e.codeName)")
            // Recorded before the dispatch, at its time.
            let isItsContext = { (c: TraceEvent) in
                c.kind == .traceContext && c.runtimeKey == e.runtimeKey && c.dispatch == e.dispatch
            }
            if expected != nil, let at = trace.events.firstIndex(where: isItsContext) {
                #expect(at < i && trace.events[at].time == e.time || e.kind == .dispatchRejected)
                checked += 1
            }
        }
        #expect(checked >= 8, "\(checked) dispatches under a context")
        // The runtime's rules hold with the contexts in the trace.
        try trace.checkInvariants()
        #expect(trace.events.filter { $0.kind == .traceContext }.count == index.traceContexts.count)
    }

    /// The trace file and JSON Lines keep every context as it was recorded.
    @Test func traceFormatsKeepTheContexts() async throws {
        let (trace, _) = try await TraceContexts.recorded.value
        let recorded = trace.events.filter { $0.kind == .traceContext }
        #expect(!recorded.isEmpty)
        let dir = TemporaryDirectory()
        let file = dir.file("t.tdtrace")
        try TraceFileWriter.write(trace, to: file)
        let fromFile = try TraceFileReader(path: file).readAll().events.filter { $0.kind == .traceContext }
        #expect(fromFile == recorded)
        let jsonl = trace.jsonLinesBytes()
        let fromJSONL = JSONLinesReader(bytes: jsonl).readAll().events.filter { $0.kind == .traceContext }
        #expect(fromJSONL.map(\.traceContext) == recorded.map(\.traceContext))
        #expect(fromJSONL.map(\.dispatch) == recorded.map(\.dispatch))
        let text = String(decoding: jsonl, as: UTF8.self)
        #expect(text.contains(#""kind":"traceContext""#) && text.contains(#""trace_id_high":"#), "\(text.prefix(300))")
    }

    /// The OTLP export puts each request dispatched under a context under that context's span,
    /// in its trace; the others stay roots of traces of their own.
    @Test(.disabled(if: underThreadSanitizer), .enabled(if: PerfettoProtoReader.readersAvailable))
    func requestSpansAreChildrenOfTheCallersSpan() async throws {
        let (trace, _) = try await TraceContexts.recorded.value
        let dir = TemporaryDirectory()
        let (_, path) = try await OTLPReader.export(trace.events, in: dir)
        try await OTLPReader.expectClean(path, of: trace.events)
        let read = try await OTLPReader.read(path)
        let parents = try #require(read["external_parents"] as? [[Any]])
        #expect(parents.map { $0.map { "\($0)" }.joined(separator: " ") } == TraceContexts.expectedParents(trace.events))
        #expect(parents.count >= 4)
    }

    /// `slow` names each request's trace, so that a request found in a tracing backend is found
    /// here too: in its JSON and in the header of each breakdown.
    @Test func slowNamesEachRequestsTrace() async throws {
        let (trace, contexts) = try await TraceContexts.recorded.value
        let dir = TemporaryDirectory()
        let file = dir.file("t.tdtrace")
        try TraceFileWriter.write(trace, to: file)
        let (status, out, err) = try await traceView(["slow", "--json", "--top", "1000", file])
        #expect(status == 0, "\(err)")
        let rows = try out.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        // One process: a request is its runtime and dispatch.
        var origin: [[UInt64]: UInt64] = [:]
        for e in trace.events where e.kind == .dispatch { origin[[e.runtime, e.dispatch]] = e.otherTask }
        var named = 0
        for row in rows {
            let runtime = try #require(row["runtime"] as? Int)
            let dispatch = try #require(row["dispatch"] as? Int)
            let fromOutside = origin[[UInt64(runtime), UInt64(dispatch)]] == 0
            let expected = fromOutside ? contexts[UInt64(runtime)] ?? nil : nil
            #expect(row["trace_id"] as? String == expected?.traceID, "runtime \(runtime) dispatch \(dispatch)")
            #expect(row["parent_span_id"] as? String == expected?.spanIDHex)
            if expected != nil { named += 1 }
        }
        #expect(named >= 4 && rows.count > named, "\(named) of \(rows.count)")
        // Each runtime's breakdowns (the demo's awaited requests all come from outside).
        for (runtime, context) in contexts {
            let text = try await traceView(["slow", "--runtime", "\(runtime)", file], columns: 200)
            let headings = text.out.split(separator: "\n").filter { $0.hasPrefix("Latency of ") }
            #expect(headings.count == SlowRequests.brokenDown, "\(text.out)")
            for heading in headings {
                #expect(heading.contains(", trace ") == (context != nil), "\(heading)")
                if let context { #expect(heading.hasSuffix(", trace \(context.traceID)"), "\(heading)") }
            }
        }
    }

    /// The timeline exports name the caller's trace on each request's slice: Chrome's args (read
    /// back as JSON) and Perfetto's (read by Perfetto's own definitions).
    @Test(.disabled(if: underThreadSanitizer), .enabled(if: PerfettoProtoReader.readersAvailable))
    func timelineExportsNameEachRequestsTrace() async throws {
        let (trace, contexts) = try await TraceContexts.recorded.value
        // The demo's awaited requests all come from outside: each is under its runtime's context.
        var expected: [String] = []
        for e in trace.events where e.isAwaitedDispatch {
            expected.append("\(e.runtime) \(e.dispatch) \(contexts[e.runtime].flatMap { $0?.traceID } ?? "-")")
        }
        let dir = TemporaryDirectory()
        let chrome = try await exportTrace(trace.events, format: "chrome", in: dir).path
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: chrome))) as? [String: Any])
        let slices = (document["traceEvents"] as? [[String: Any]] ?? []).filter {
            $0["cat"] as? String == "request" && $0["ph"] as? String == "X"
        }
        let named = slices.map { slice in
            let args = slice["args"] as? [String: Any] ?? [:]
            return "\(args["runtime"] ?? "?") \(args["dispatch"] ?? "?") \(args["trace_id"] as? String ?? "-")"
        }
        #expect(named.sorted() == expected.sorted())
        let perfetto = try await exportTrace(trace.events, format: "perfetto", in: dir).path
        let read = try await PerfettoProtoReader.read(perfetto)
        #expect(read["problem_count"] as? Int == 0, "\(read["problems"] ?? "")")
        let requests = try #require(read["requests"] as? [[Any]])
        let fromPerfetto = requests.map { "\($0[2]) \($0[4] as? String ?? "-")" }
        #expect(fromPerfetto.sorted() == expected.map { $0.split(separator: " ").dropFirst().joined(separator: " ") }.sorted())
    }

}
