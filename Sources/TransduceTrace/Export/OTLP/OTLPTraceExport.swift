import Transduce

/// A trace's awaited requests as OpenTelemetry spans, in batches of ``requestsPerLine``
/// requests, each one `TracesData` in either OTLP encoding (``OTLPEncoding``: protobuf, or the
/// JSON mapping with OTLP's own rules): ``write(_:)`` gives the JSON a line each (the
/// OpenTelemetry Collector's file exporter's shape), ``write(_:from:_:)`` the bodies OTLP/HTTP
/// takes at `/v1/traces`.
///
/// Each resumed request is a span (kind INTERNAL) from its dispatch to its resume, named
/// `style(label)`: a child of the span its dispatch was made in when the trace recorded a
/// `TraceContext` for it (a server's request span, say: the same trace id, that span as parent),
/// else the root of a trace of its own. Under it a span per part of its latency
/// (``LatencyBreakdown``: the admission's gate wait, each cycle's work and actions, the tasks that
/// carried its waiter, re-entry waits, the resume), which tile it exactly. A wait's span has an
/// event for each cycle that held the gate meanwhile; a task's span, an event for each
/// cancellation of the task while it carried the request, with its reason. A part spent in a task
/// that another request's cycle started links to that request's span (`transduce.link`:
/// `joined`, `replaced`, or `carried`); an error resume sets the request's status to ERROR, with
/// the error it recorded as the message. The resource names the service (the runtime's
/// transducer), the host, the process and the runtime.
///
/// Times: the trace's are `CLOCK_MONOTONIC`; a span's are Unix times, `wallClockOffset` added
/// (the trace's own anchor where it has one, ``TraceCounts/realtimeOrigin``).
public struct OTLPTraceExport {
    /// Requests per line (a `TracesData`; OTLP/HTTP takes one per request).
    public static let requestsPerLine = 256

    private let index: TraceIndex
    private let breakdowns: [LatencyBreakdown]
    private var builder = OTLPSpanBuilder()
    /// Each request's position in `breakdowns`, to link to it.
    private var byDispatch: [TraceIndex.Key: Int] = [:]

    /// The export of `index`'s resumed requests; `hosts` names each pid's host, and
    /// `wallClockOffset` is `CLOCK_REALTIME` minus `CLOCK_MONOTONIC` when the trace was recorded.
    public init(index: TraceIndex, hosts: [UInt32: String], wallClockOffset: Int64) {
        self.index = index
        builder.hosts = hosts
        builder.offset = wallClockOffset
        breakdowns = index.latencyBreakdowns().sorted {
            ($0.start.plus($0.total), $0.dispatch) < ($1.start.plus($1.total), $1.dispatch)
        }
        for e in index.events where e.kind == .runtimeStart { builder.runtimes[e.runtimeKey] = (e.label, e.label2) }
        for (i, b) in breakdowns.enumerated() { byDispatch[TraceIndex.Key(runtime: b.runtime, id: b.dispatch)] = i }
    }

    /// The requests exported (one trace each).
    public var requests: Int { breakdowns.count }

    /// The wall clock's offset from the trace's: its anchor where `counts` has one, `nil` where
    /// not.
    public static func wallClockOffset(_ counts: TraceCounts?) -> Int64? {
        guard let counts, counts.realtimeOrigin != 0, counts.monotonicOrigin != 0 else { return nil }
        return Int64(bitPattern: counts.realtimeOrigin &- counts.monotonicOrigin)
    }

    /// Hands each line (one `TracesData` object in OTLP JSON and its line feed) to `emit`, in
    /// order of the requests' resumes: the OpenTelemetry Collector's file exporter's shape.
    public func write(_ emit: ([UInt8]) -> Void) {
        write(.json) { body, _ in
            emit(body + [0x0A])
            return true
        }
    }

    /// Hands each batch of up to ``requestsPerLine`` requests' spans to `emit` as one
    /// `TracesData` in `encoding` (an OTLP/HTTP body), with the positions of its requests in
    /// the export's order (resume time, then dispatch id: the same trace and selection give
    /// the same order); `from` skips the requests before that position (a resumed export).
    /// Stops when `emit` returns `false`.
    public func write(
        _ encoding: OTLPEncoding, from first: Int = 0, _ emit: (_ body: [UInt8], _ requests: Range<Int>) -> Bool
    ) {
        var start = max(0, first)
        while start < breakdowns.count {
            let end = min(start + Self.requestsPerLine, breakdowns.count)
            guard emit(encoding.encode(batch(breakdowns[start..<end])), start..<end) else { return }
            start = end
        }
    }

    /// The spans of a batch of requests.
    private func batch(_ batch: ArraySlice<LatencyBreakdown>) -> [OTLP.ResourceSpans] {
        builder.batch(batch.map { b in (b, builder.spans(of: b, in: index) { link(of: $0, in: b) }) })
    }

    /// The request whose cycle started the task of `part`, where it is one the export holds.
    private func link(of part: LatencyBreakdown.Part, in b: LatencyBreakdown) -> OTLPSpanBuilder.LinkTarget? {
        guard part.task != 0, let task = index.tasks[TraceIndex.Key(runtime: b.runtime, id: part.task)],
            let cycle = index.cycles[TraceIndex.Key(runtime: b.runtime, id: task.cycle)],
            let other = byDispatch[TraceIndex.Key(runtime: b.runtime, id: cycle.dispatch)]
        else { return nil }
        return (breakdowns[other].dispatch, breakdowns[other].traceContext)
    }
}
