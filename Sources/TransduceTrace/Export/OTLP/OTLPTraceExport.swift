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
    private let hosts: [UInt32: String]
    private let offset: Int64
    /// Each runtime's transducer and host type (its start event's labels).
    private var runtimes: [RuntimeKey: (name: String, host: String)] = [:]
    /// Each request's position in `breakdowns`, to link to it.
    private var byDispatch: [TraceIndex.Key: Int] = [:]

    /// The export of `index`'s resumed requests; `hosts` names each pid's host, and
    /// `wallClockOffset` is `CLOCK_REALTIME` minus `CLOCK_MONOTONIC` when the trace was recorded.
    public init(index: TraceIndex, hosts: [UInt32: String], wallClockOffset: Int64) {
        self.index = index
        self.hosts = hosts
        offset = wallClockOffset
        breakdowns = index.latencyBreakdowns().sorted {
            ($0.start.plus($0.total), $0.dispatch) < ($1.start.plus($1.total), $1.dispatch)
        }
        for e in index.events where e.kind == .runtimeStart { runtimes[e.runtimeKey] = (e.label, e.label2) }
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

    // MARK: Ids

    /// 64 bits of FNV-1a over `text`: a request's trace id starts with its runtime's.
    private static func fnv(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    private func runtimeHash(_ runtime: RuntimeKey) -> UInt64 {
        Self.fnv("\(hosts[runtime.process] ?? "")/\(runtime.process)/\(runtime.runtime)")
    }

    /// The request's trace id (its context's, else its runtime's hash, then its dispatch) and the
    /// id of its span number `n` (0: the request's): the same trace gives the same ids.
    private func ids(_ b: LatencyBreakdown, span n: Int) -> (trace: OTLP.TraceID, span: UInt64) {
        let high = runtimeHash(b.runtime)
        var span = (high ^ b.dispatch &* 0x9e37_79b9_7f4a_7c15) &+ UInt64(n)
        if span == 0 { span = 1 }
        let trace =
            b.traceContext.map { OTLP.TraceID(high: $0.traceIDHigh, low: $0.traceIDLow) }
            ?? OTLP.TraceID(high: high, low: b.dispatch)
        return (trace, span)
    }

    // MARK: Spans

    /// The spans of `batch`, a resource per runtime in the order the batch first shows them.
    private func batch(_ batch: ArraySlice<LatencyBreakdown>) -> [OTLP.ResourceSpans] {
        var order: [RuntimeKey] = []
        var groups: [RuntimeKey: [OTLP.Span]] = [:]
        for b in batch {
            if groups[b.runtime] == nil { order.append(b.runtime) }
            groups[b.runtime, default: []].append(contentsOf: spans(of: b))
        }
        return order.map { OTLP.ResourceSpans(resource: resource($0), spans: groups[$0] ?? []) }
    }

    private func resource(_ runtime: RuntimeKey) -> OTLP.Attributes {
        let started = runtimes[runtime]
        var pairs: OTLP.Attributes = [
            ("service.name", .string(started.map { $0.name.isEmpty ? "transduce" : $0.name } ?? "transduce")),
            ("transduce.runtime", .int(runtime.runtime)),
        ]
        if runtime.process != 0 { pairs.append(("process.pid", .int(UInt64(runtime.process)))) }
        if let host = hosts[runtime.process], !host.isEmpty { pairs.append(("host.name", .string(host))) }
        if let kind = started?.host, !kind.isEmpty { pairs.append(("transduce.host", .string(kind))) }
        return pairs
    }

    private func unix(_ t: UInt64) -> UInt64 {
        offset >= 0 ? t &+ UInt64(offset) : t.minus(UInt64(-offset))
    }

    /// The root span of `b` and a span per part.
    private func spans(of b: LatencyBreakdown) -> [OTLP.Span] {
        let root = ids(b, span: 0)
        var pairs: OTLP.Attributes = [
            ("transduce.dispatch", .int(b.dispatch)), ("transduce.style", .string(b.styleName)),
            ("transduce.event", .string(b.label)), ("transduce.outcome", .string(b.outcomeName)),
        ]
        if b.originTask != 0 { pairs.append(("transduce.origin_task", .int(b.originTask))) }
        // Under the caller's span when the dispatch recorded one.
        var spans = [
            OTLP.Span(
                trace: root.trace, id: root.span, parent: b.traceContext?.spanID ?? 0, name: "\(b.styleName)(\(b.label))",
                kind: .internal, start: unix(b.start), end: unix(max(b.start.plus(b.total), b.start)), attributes: pairs,
                status: b.outcome == .error ? OTLP.Status(message: errorMessage(of: b)) : nil)
        ]
        for (n, part) in b.parts.enumerated() {
            var pairs: OTLP.Attributes = [("transduce.part", .string("\(part.kind)"))]
            if part.cycle != 0 { pairs.append(("transduce.cycle", .int(part.cycle))) }
            if part.task != 0 { pairs.append(("transduce.task", .int(part.task))) }
            if part.dispatch != 0 { pairs.append(("transduce.dispatch", .int(part.dispatch))) }
            let end = part.start.plus(part.nanos)
            let events = (holders(of: part) + cancels(of: part, in: b, until: end)).map {
                OTLP.Event(time: unix($0.time), name: $0.name, attributes: $0.attributes)
            }
            var links: [OTLP.Link] = []
            if let (other, how) = link(of: part, in: b) {
                let target = ids(other, span: 0)
                links.append(
                    OTLP.Link(
                        trace: target.trace, span: target.span,
                        attributes: [("transduce.link", .string(how)), ("transduce.dispatch", .int(other.dispatch))]))
            }
            spans.append(
                OTLP.Span(
                    trace: root.trace, id: ids(b, span: n + 1).span, parent: root.span, name: part.title, kind: .internal,
                    start: unix(part.start), end: unix(max(end, part.start)), attributes: pairs, events: events, links: links))
        }
        return spans
    }

    /// A span event: when, what, and its attributes.
    private typealias SpanEvent = (time: UInt64, name: String, attributes: OTLP.Attributes)

    /// An event for each cycle that held the gate while `part` waited, at the wait's start.
    private func holders(of part: LatencyBreakdown.Part) -> [SpanEvent] {
        part.heldBy.map { h in
            var held: OTLP.Attributes = [("transduce.held_ns", .int(h.nanos))]
            if h.cycle != 0 { held.append(("transduce.cycle", .int(h.cycle))) }
            return (part.start, h.cycle == 0 ? "held by other cycles" : "held by cycle #\(h.cycle) \(h.label)", held)
        }
    }

    /// An event for each cancellation of `part`'s task while the part lasted (a replacement, a
    /// `.cancel`, a `uniqueRequest`, the runtime's stop), with its reason.
    private func cancels(of part: LatencyBreakdown.Part, in b: LatencyBreakdown, until end: UInt64) -> [SpanEvent] {
        guard part.task != 0, let task = index.tasks[TraceIndex.Key(runtime: b.runtime, id: part.task)] else { return [] }
        return task.cancels.map { index.events[$0] }.filter { $0.time >= part.start && $0.time <= end }.map { e in
            let attributes: OTLP.Attributes = [("transduce.task", .int(e.task)), ("transduce.reason", .string(e.codeName))]
            return (e.time, "task cancelled: \(e.codeName)", attributes)
        }
    }

    /// The status message of a request resumed with an error: the error its resume recorded.
    private func errorMessage(of b: LatencyBreakdown) -> String {
        let resume = index.dispatches[TraceIndex.Key(runtime: b.runtime, id: b.dispatch)]?.resumes.first
        let label = resume.map { index.events[$0].label } ?? ""
        return label.isEmpty ? "error" : label
    }

    /// The request whose cycle started the task of `part`, when not `b` itself, and how.
    private func link(of part: LatencyBreakdown.Part, in b: LatencyBreakdown) -> (LatencyBreakdown, String)? {
        guard part.task != 0, let task = index.tasks[TraceIndex.Key(runtime: b.runtime, id: part.task)],
            let cycle = index.cycles[TraceIndex.Key(runtime: b.runtime, id: task.cycle)], cycle.dispatch != b.dispatch,
            let other = byDispatch[TraceIndex.Key(runtime: b.runtime, id: cycle.dispatch)]
        else { return nil }
        let how: String
        switch part.kind {
        case .sharedTask: how = "joined"
        case .replacedTask: how = "replaced"
        default: how = "carried"
        }
        return (breakdowns[other], how)
    }
}
