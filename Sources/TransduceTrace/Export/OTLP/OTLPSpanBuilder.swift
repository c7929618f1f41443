import Transduce

/// Turns one resumed request's ``LatencyBreakdown`` into its spans, reading what else the spans
/// say (its error, its tasks' cancellations) from an index that holds at least the request's
/// window: the whole trace's (``OTLPTraceExport``) or the window's alone (``OTLPStream``). What
/// both exports write, and so the one place the span and attribute names are written.
struct OTLPSpanBuilder {
    /// Each runtime's transducer and host type (its start event's labels).
    var runtimes = RuntimeNames()
    var hosts: [UInt32: String] = [:]
    /// `CLOCK_REALTIME` minus the trace's clock.
    var offset: Int64 = 0

    /// Another request a part links to: its dispatch and the trace context it was made under.
    typealias LinkTarget = (dispatch: UInt64, context: TraceContext?)

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

    /// A request's trace id (its context's, else its runtime's hash, then its dispatch) and the
    /// id of its span number `n` (0: the request's): the same trace gives the same ids.
    func ids(runtime: RuntimeKey, dispatch: UInt64, context: TraceContext?, span n: Int) -> (
        trace: OTLP.TraceID, span: UInt64
    ) {
        let high = runtimeHash(runtime)
        var span = (high ^ dispatch &* 0x9e37_79b9_7f4a_7c15) &+ UInt64(n)
        if span == 0 { span = 1 }
        let trace =
            context.map { OTLP.TraceID(high: $0.traceIDHigh, low: $0.traceIDLow) } ?? OTLP.TraceID(high: high, low: dispatch)
        return (trace, span)
    }

    // MARK: Spans

    /// The spans of `items`, a resource per runtime in the order they first show them.
    func batch(_ items: [(breakdown: LatencyBreakdown, spans: [OTLP.Span])]) -> [OTLP.ResourceSpans] {
        var order: [RuntimeKey] = []
        var groups: [RuntimeKey: [OTLP.Span]] = [:]
        for (b, spans) in items {
            if groups[b.runtime] == nil { order.append(b.runtime) }
            groups[b.runtime, default: []].append(contentsOf: spans)
        }
        return order.map { OTLP.ResourceSpans(resource: resource($0), spans: groups[$0] ?? []) }
    }

    private func resource(_ runtime: RuntimeKey) -> OTLP.Attributes {
        let started = runtimes[runtime]
        var pairs: OTLP.Attributes = [
            (.serviceName, .string(started.map { $0.name.isEmpty ? "transduce" : $0.name } ?? "transduce")),
            (.runtime, .int(runtime.runtime)),
        ]
        if runtime.process != 0 { pairs.append((.processPID, .int(UInt64(runtime.process)))) }
        if let host = hosts[runtime.process], !host.isEmpty { pairs.append((.hostName, .string(host))) }
        if let kind = started?.host, !kind.isEmpty { pairs.append((.hostKind, .string(kind))) }
        return pairs
    }

    private func unix(_ t: UInt64) -> UInt64 {
        t.shifted(by: offset)
    }

    /// The root span of `b` and a span per part; `index` holds at least `b`'s window, and
    /// `link` names the request whose cycle started a part's task (where it is not `b`).
    func spans(of b: LatencyBreakdown, in index: TraceIndex, link: (LatencyBreakdown.Part) -> LinkTarget?) -> [OTLP.Span] {
        let root = ids(runtime: b.runtime, dispatch: b.dispatch, context: b.traceContext, span: 0)
        var pairs: OTLP.Attributes = [
            (.dispatch, .int(b.dispatch)), (.style, .string(b.styleName)),
            (.event, .string(b.label)), (.outcome, .string(b.outcomeName)),
        ]
        if b.originTask != 0 { pairs.append((.originTask, .int(b.originTask))) }
        // A failed or cancelled request: status ERROR, its error as the message and `error.type`.
        let error = b.outcome == .error ? errorMessage(of: b, in: index) : nil
        if let error { pairs.append((.errorType, .string(error))) }
        // Under the caller's span when the dispatch recorded one.
        var spans = [
            OTLP.Span(
                trace: root.trace, id: root.span, parent: b.traceContext?.spanID ?? 0, name: "\(b.styleName)(\(b.label))",
                kind: .internal, start: unix(b.start), end: unix(max(b.start.plus(b.total), b.start)), attributes: pairs,
                status: error.map { OTLP.Status(message: $0) })
        ]
        for (n, part) in b.parts.enumerated() {
            var pairs: OTLP.Attributes = [(.part, .string("\(part.kind)"))]
            if part.cycle != 0 { pairs.append((.cycle, .int(part.cycle))) }
            if part.task != 0 { pairs.append((.task, .int(part.task))) }
            if part.dispatch != 0 { pairs.append((.dispatch, .int(part.dispatch))) }
            let end = part.start.plus(part.nanos)
            let events = (holders(of: part) + cancels(of: part, in: b, index: index, until: end)).map {
                OTLP.Event(time: unix($0.time), name: $0.name, attributes: $0.attributes)
            }
            var links: [OTLP.Link] = []
            if part.task != 0, let other = link(part), other.dispatch != b.dispatch {
                let target = ids(runtime: b.runtime, dispatch: other.dispatch, context: other.context, span: 0)
                let how: String
                switch part.kind {
                case .sharedTask: how = "joined"
                case .replacedTask: how = "replaced"
                default: how = "carried"
                }
                links.append(
                    OTLP.Link(
                        trace: target.trace, span: target.span,
                        attributes: [(.link, .string(how)), (.dispatch, .int(other.dispatch))]))
            }
            spans.append(
                OTLP.Span(
                    trace: root.trace,
                    id: ids(runtime: b.runtime, dispatch: b.dispatch, context: b.traceContext, span: n + 1).span,
                    parent: root.span, name: part.title, kind: .internal, start: unix(part.start),
                    end: unix(max(end, part.start)), attributes: pairs, events: events, links: links))
        }
        return spans
    }

    /// A span event: when, what, and its attributes.
    private typealias SpanEvent = (time: UInt64, name: String, attributes: OTLP.Attributes)

    /// An event for each cycle that held the gate while `part` waited, at the wait's start.
    private func holders(of part: LatencyBreakdown.Part) -> [SpanEvent] {
        part.heldBy.map { h in
            var held: OTLP.Attributes = [(.heldNanos, .int(h.nanos))]
            if h.cycle != 0 { held.append((.cycle, .int(h.cycle))) }
            return (part.start, h.cycle == 0 ? "held by other cycles" : "held by cycle #\(h.cycle) \(h.label)", held)
        }
    }

    /// An event for each cancellation of `part`'s task while the part lasted (a replacement, a
    /// `.cancel`, a `uniqueRequest`, the runtime's stop), with its reason.
    private func cancels(of part: LatencyBreakdown.Part, in b: LatencyBreakdown, index: TraceIndex, until end: UInt64)
        -> [SpanEvent]
    {
        guard part.task != 0, let task = index.tasks[TraceIndex.Key(runtime: b.runtime, id: part.task)] else { return [] }
        return task.cancels.map { index.events[$0] }.filter { $0.time >= part.start && $0.time <= end }.map { e in
            let attributes: OTLP.Attributes = [(.task, .int(e.task)), (.reason, .string(e.codeName))]
            return (e.time, "task cancelled: \(e.codeName)", attributes)
        }
    }

    /// The status message of a request resumed with an error: the error its resume recorded.
    private func errorMessage(of b: LatencyBreakdown, in index: TraceIndex) -> String {
        let resume = index.dispatches[TraceIndex.Key(runtime: b.runtime, id: b.dispatch)]?.resumes.first
        let label = resume.map { index.events[$0].label } ?? ""
        return label.isEmpty ? "error" : label
    }
}
