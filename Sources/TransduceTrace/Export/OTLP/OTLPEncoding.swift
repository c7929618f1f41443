import Transduce

/// The two encodings OTLP/HTTP takes (`http/protobuf`, the specification's default, and
/// `http/json`), of one `TracesData` (the same message as `ExportTraceServiceRequest`).
public enum OTLPEncoding: String, Sendable, CaseIterable {
    /// Protocol Buffers' binary wire format (`application/x-protobuf`).
    case protobuf
    /// The protobuf JSON mapping with OTLP's rules: ids as hex, enums as integers, 64-bit
    /// integers as strings, field names in lowerCamelCase (`application/json`).
    case json

    /// The Content-Type of a body in this encoding.
    public var contentType: String {
        switch self {
        case .protobuf: "application/x-protobuf"
        case .json: "application/json"
        }
    }

    /// The body of `resources` (a `TracesData`), without a line end.
    func encode(_ resources: [OTLP.ResourceSpans]) -> [UInt8] {
        switch self {
        case .protobuf: OTLPProtobuf.tracesData(resources)
        case .json: OTLPJSON.tracesData(resources)
        }
    }
}

/// OTLP's protobuf encoding, with the field numbers of opentelemetry-proto's
/// `trace/v1/trace.proto`, `common/v1/common.proto` and `resource/v1/resource.proto` (the tests
/// decode it with the project's own generated classes).
enum OTLPProtobuf {
    static func tracesData(_ resources: [OTLP.ResourceSpans]) -> [UInt8] {
        var out = ProtobufBuffer()
        for r in resources {
            let resourceSpans = out.begin(1)  // TracesData.resource_spans
            let resource = out.begin(1)  // ResourceSpans.resource
            attributes(r.resource, field: 1, into: &out)  // Resource.attributes
            out.end(resource)
            let scopeSpans = out.begin(2)  // ResourceSpans.scope_spans
            let scope = out.begin(1)  // ScopeSpans.scope
            out.string(1, OTLP.scope)  // InstrumentationScope.name
            out.end(scope)
            for s in r.spans { span(s, into: &out) }  // ScopeSpans.spans (2)
            out.end(scopeSpans)
            out.end(resourceSpans)
        }
        return out.bytes
    }

    private static func span(_ s: OTLP.Span, into out: inout ProtobufBuffer) {
        let span = out.begin(2)
        traceID(s.trace, field: 1, into: &out)
        spanID(s.id, field: 2, into: &out)
        if s.parent != 0 { spanID(s.parent, field: 4, into: &out) }
        // proto3 leaves out a field at its default: the canonical encoding a reader re-encodes.
        if !s.name.isEmpty { out.string(5, s.name) }
        out.uint(6, s.kind.rawValue)
        if s.start != 0 { out.fixed64(7, s.start) }
        if s.end != 0 { out.fixed64(8, s.end) }
        attributes(s.attributes, field: 9, into: &out)
        for e in s.events {
            let event = out.begin(11)
            if e.time != 0 { out.fixed64(1, e.time) }
            if !e.name.isEmpty { out.string(2, e.name) }
            attributes(e.attributes, field: 3, into: &out)
            out.end(event)
        }
        for l in s.links {
            let link = out.begin(13)
            traceID(l.trace, field: 1, into: &out)
            spanID(l.span, field: 2, into: &out)
            attributes(l.attributes, field: 4, into: &out)
            out.end(link)
        }
        if let status = s.status {
            let message = out.begin(15)
            if !status.message.isEmpty { out.string(2, status.message) }  // Status.message (1 is reserved)
            out.uint(3, OTLP.Status.error)  // Status.code
            out.end(message)
        }
        out.end(span)
    }

    private static func traceID(_ id: OTLP.TraceID, field: UInt64, into out: inout ProtobufBuffer) {
        out.tag(field, .length)
        out.varint(16)
        bigEndian(id.high, into: &out)
        bigEndian(id.low, into: &out)
    }

    private static func spanID(_ id: UInt64, field: UInt64, into out: inout ProtobufBuffer) {
        out.tag(field, .length)
        out.varint(8)
        bigEndian(id, into: &out)
    }

    /// An id's bytes in the order its hex digits are written.
    private static func bigEndian(_ value: UInt64, into out: inout ProtobufBuffer) {
        withUnsafeBytes(of: value.bigEndian) { out.bytes.append(contentsOf: $0) }
    }

    private static func attributes(_ pairs: OTLP.Attributes, field: UInt64, into out: inout ProtobufBuffer) {
        for (key, value) in pairs {
            let keyValue = out.begin(field)
            out.string(1, key.rawValue)  // KeyValue.key
            let any = out.begin(2)  // KeyValue.value
            switch value {
            case .string(let text): out.string(1, text)  // AnyValue.string_value
            case .int(let number): out.uint(3, number)  // AnyValue.int_value (int64)
            }
            out.end(any)
            out.end(keyValue)
        }
    }
}

/// OTLP's JSON encoding.
enum OTLPJSON {
    static func tracesData(_ resources: [OTLP.ResourceSpans]) -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: #"{"resourceSpans":["#.utf8)
        for (i, r) in resources.enumerated() {
            if i > 0 { out.append(0x2C) }
            out.append(contentsOf: #"{"resource":{"#.utf8)
            attributes(r.resource, into: &out)
            out.append(contentsOf: #"},"scopeSpans":[{"scope":{"name":"#.utf8)
            Escaping.appendJSON(OTLP.scope, to: &out)
            out.append(contentsOf: #"},"spans":["#.utf8)
            for (j, s) in r.spans.enumerated() {
                if j > 0 { out.append(0x2C) }
                span(s, into: &out)
            }
            out.append(contentsOf: "]}]}".utf8)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    private static func hex(_ id: OTLP.TraceID) -> String { TraceContext.hexID(id.high) + TraceContext.hexID(id.low) }

    private static func span(_ s: OTLP.Span, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"traceId":"\#(hex(s.trace))","spanId":"\#(TraceContext.hexID(s.id))","#.utf8)
        if s.parent != 0 { out.append(contentsOf: #""parentSpanId":"\#(TraceContext.hexID(s.parent))","#.utf8) }
        out.append(contentsOf: #""name":"#.utf8)
        Escaping.appendJSON(s.name, to: &out)
        out.append(
            contentsOf: #","kind":\#(s.kind.rawValue),"startTimeUnixNano":"\#(s.start)","endTimeUnixNano":"\#(s.end)","#.utf8)
        attributes(s.attributes, into: &out)
        if !s.events.isEmpty {
            out.append(contentsOf: #","events":["#.utf8)
            for (i, event) in s.events.enumerated() {
                if i > 0 { out.append(0x2C) }
                out.append(contentsOf: #"{"timeUnixNano":"\#(event.time)","name":"#.utf8)
                Escaping.appendJSON(event.name, to: &out)
                out.append(0x2C)
                attributes(event.attributes, into: &out)
                out.append(0x7D)
            }
            out.append(0x5D)
        }
        if !s.links.isEmpty {
            out.append(contentsOf: #","links":["#.utf8)
            for (i, link) in s.links.enumerated() {
                if i > 0 { out.append(0x2C) }
                out.append(
                    contentsOf: #"{"traceId":"\#(hex(link.trace))","spanId":"\#(TraceContext.hexID(link.span))","#.utf8)
                attributes(link.attributes, into: &out)
                out.append(0x7D)
            }
            out.append(0x5D)
        }
        if let status = s.status {
            out.append(contentsOf: #","status":{"code":\#(OTLP.Status.error),"message":"#.utf8)
            Escaping.appendJSON(status.message, to: &out)
            out.append(0x7D)
        }
        out.append(0x7D)
    }

    private static func attributes(_ pairs: OTLP.Attributes, into out: inout [UInt8]) {
        out.append(contentsOf: #""attributes":["#.utf8)
        for (i, (key, value)) in pairs.enumerated() {
            if i > 0 { out.append(0x2C) }
            out.append(contentsOf: #"{"key":"#.utf8)
            Escaping.appendJSON(key.rawValue, to: &out)
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
}
