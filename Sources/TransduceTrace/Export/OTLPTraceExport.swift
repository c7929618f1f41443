import Transduce

/// A trace's awaited requests as OpenTelemetry spans, in OTLP's JSON encoding (the protobuf
/// JSON mapping with OTLP's own rules: trace and span ids as hex, enums as integers, 64-bit
/// integers as strings, field names in lowerCamelCase), one `TracesData` object a line — the
/// shape of the OpenTelemetry Collector's file exporter, and the body OTLP/HTTP takes at
/// `/v1/traces`.
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

    /// Hands each line (one `TracesData` object and its line feed) to `emit`, in order of the
    /// requests' resumes.
    public func write(_ emit: ([UInt8]) -> Void) {
        var start = 0
        while start < breakdowns.count {
            let end = min(start + Self.requestsPerLine, breakdowns.count)
            emit(line(breakdowns[start..<end]))
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
    private func ids(_ b: LatencyBreakdown, span n: Int) -> (trace: String, span: String) {
        let high = runtimeHash(b.runtime)
        var span = (high ^ b.dispatch &* 0x9e37_79b9_7f4a_7c15) &+ UInt64(n)
        if span == 0 { span = 1 }
        let trace = b.traceContext?.traceID ?? TraceContext.hexID(high) + TraceContext.hexID(b.dispatch)
        return (trace, TraceContext.hexID(span))
    }

    // MARK: JSON

    private func line(_ batch: ArraySlice<LatencyBreakdown>) -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: #"{"resourceSpans":["#.utf8)
        var first = true
        // A resource per runtime, in the order the batch first shows them.
        var order: [RuntimeKey] = []
        var groups: [RuntimeKey: [LatencyBreakdown]] = [:]
        for b in batch {
            if groups[b.runtime] == nil { order.append(b.runtime) }
            groups[b.runtime, default: []].append(b)
        }
        for runtime in order {
            if !first { out.append(0x2C) }
            first = false
            resource(runtime, into: &out)
            out.append(contentsOf: #","scopeSpans":[{"scope":{"name":"Transduce"},"spans":["#.utf8)
            var firstSpan = true
            for b in groups[runtime] ?? [] { spans(of: b, into: &out, first: &firstSpan) }
            out.append(contentsOf: "]}]}".utf8)
        }
        out.append(contentsOf: "]}\n".utf8)
        return out
    }

    private enum Value {
        case string(String)
        case int(UInt64)
    }

    private func attributes(_ pairs: [(String, Value)], into out: inout [UInt8]) {
        out.append(contentsOf: #""attributes":["#.utf8)
        for (i, (key, value)) in pairs.enumerated() {
            if i > 0 { out.append(0x2C) }
            out.append(contentsOf: #"{"key":"#.utf8)
            Escaping.appendJSON(key, to: &out)
            switch value {
            case .string(let text):
                out.append(contentsOf: #","value":{"stringValue":"#.utf8)
                Escaping.appendJSON(text, to: &out)
                out.append(contentsOf: "}}".utf8)
            case .int(let number):
                out.append(contentsOf: #","value":{"intValue":"\#(number)"}}"#.utf8)
            }
        }
        out.append(0x5D)
    }

    private func resource(_ runtime: RuntimeKey, into out: inout [UInt8]) {
        let started = runtimes[runtime]
        var pairs: [(String, Value)] = [
            ("service.name", .string(started.map { $0.name.isEmpty ? "transduce" : $0.name } ?? "transduce")),
            ("transduce.runtime", .int(runtime.runtime)),
        ]
        if runtime.process != 0 { pairs.append(("process.pid", .int(UInt64(runtime.process)))) }
        if let host = hosts[runtime.process], !host.isEmpty { pairs.append(("host.name", .string(host))) }
        if let kind = started?.host, !kind.isEmpty { pairs.append(("transduce.host", .string(kind))) }
        out.append(contentsOf: #"{"resource":{"#.utf8)
        attributes(pairs, into: &out)
        out.append(0x7D)
    }

    private func unix(_ t: UInt64) -> UInt64 {
        offset >= 0 ? t &+ UInt64(offset) : t.minus(UInt64(-offset))
    }

    /// The root span of `b` and a span per part.
    private func spans(of b: LatencyBreakdown, into out: inout [UInt8], first: inout Bool) {
        let root = ids(b, span: 0)
        var pairs: [(String, Value)] = [
            ("transduce.dispatch", .int(b.dispatch)), ("transduce.style", .string(b.styleName)),
            ("transduce.event", .string(b.label)), ("transduce.outcome", .string(b.outcomeName)),
        ]
        if b.originTask != 0 { pairs.append(("transduce.origin_task", .int(b.originTask))) }
        // Under the caller's span when the dispatch recorded one.
        let parent = b.traceContext?.spanIDHex
        span(
            ids: root, parent: parent, name: "\(b.styleName)(\(b.label))", start: b.start, end: b.start.plus(b.total),
            attributes: pairs, error: b.outcome == .error ? errorMessage(of: b) : nil, into: &out, first: &first)
        for (n, part) in b.parts.enumerated() {
            var pairs: [(String, Value)] = [("transduce.part", .string("\(part.kind)"))]
            if part.cycle != 0 { pairs.append(("transduce.cycle", .int(part.cycle))) }
            if part.task != 0 { pairs.append(("transduce.task", .int(part.task))) }
            if part.dispatch != 0 { pairs.append(("transduce.dispatch", .int(part.dispatch))) }
            let end = part.start.plus(part.nanos)
            span(
                ids: ids(b, span: n + 1), parent: root.span, name: part.title, start: part.start, end: end,
                attributes: pairs, error: nil, events: holders(of: part) + cancels(of: part, in: b, until: end),
                link: link(of: part, in: b), into: &out, first: &first)
        }
    }

    /// A span event: when, what, and its attributes.
    private typealias SpanEvent = (time: UInt64, name: String, attributes: [(String, Value)])

    /// An event for each cycle that held the gate while `part` waited, at the wait's start.
    private func holders(of part: LatencyBreakdown.Part) -> [SpanEvent] {
        part.heldBy.map { h in
            var held: [(String, Value)] = [("transduce.held_ns", .int(h.nanos))]
            if h.cycle != 0 { held.append(("transduce.cycle", .int(h.cycle))) }
            return (part.start, h.cycle == 0 ? "held by other cycles" : "held by cycle #\(h.cycle) \(h.label)", held)
        }
    }

    /// An event for each cancellation of `part`'s task while the part lasted (a replacement, a
    /// `.cancel`, a `uniqueRequest`, the runtime's stop), with its reason.
    private func cancels(of part: LatencyBreakdown.Part, in b: LatencyBreakdown, until end: UInt64) -> [SpanEvent] {
        guard part.task != 0, let task = index.tasks[TraceIndex.Key(runtime: b.runtime, id: part.task)] else { return [] }
        return task.cancels.map { index.events[$0] }.filter { $0.time >= part.start && $0.time <= end }.map { e in
            let attributes: [(String, Value)] = [("transduce.task", .int(e.task)), ("transduce.reason", .string(e.codeName))]
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

    private func span(
        ids: (trace: String, span: String), parent: String?, name: String, start: UInt64, end: UInt64,
        attributes pairs: [(String, Value)], error: String?, events: [SpanEvent] = [],
        link: (LatencyBreakdown, String)? = nil, into out: inout [UInt8], first: inout Bool
    ) {
        if !first { out.append(0x2C) }
        first = false
        out.append(contentsOf: #"{"traceId":"\#(ids.trace)","spanId":"\#(ids.span)","#.utf8)
        if let parent { out.append(contentsOf: #""parentSpanId":"\#(parent)","#.utf8) }
        out.append(contentsOf: #""name":"#.utf8)
        Escaping.appendJSON(name, to: &out)
        out.append(
            contentsOf: #","kind":1,"startTimeUnixNano":"\#(unix(start))","endTimeUnixNano":"\#(unix(max(end, start)))","#
                .utf8)
        attributes(pairs, into: &out)
        if !events.isEmpty {
            out.append(contentsOf: #","events":["#.utf8)
            for (i, event) in events.enumerated() {
                if i > 0 { out.append(0x2C) }
                out.append(contentsOf: #"{"timeUnixNano":"\#(unix(event.time))","name":"#.utf8)
                Escaping.appendJSON(event.name, to: &out)
                out.append(0x2C)
                attributes(event.attributes, into: &out)
                out.append(0x7D)
            }
            out.append(0x5D)
        }
        if let (other, how) = link {
            let target = self.ids(other, span: 0)
            out.append(contentsOf: #","links":[{"traceId":"\#(target.trace)","spanId":"\#(target.span)","#.utf8)
            attributes([("transduce.link", .string(how)), ("transduce.dispatch", .int(other.dispatch))], into: &out)
            out.append(contentsOf: "}]".utf8)
        }
        if let error {
            out.append(contentsOf: #","status":{"code":2,"message":"#.utf8)
            Escaping.appendJSON(error, to: &out)
            out.append(0x7D)
        }
        out.append(0x7D)
    }
}
