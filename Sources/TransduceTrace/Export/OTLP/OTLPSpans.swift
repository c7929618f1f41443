/// OpenTelemetry's trace data model, as much of it as the export writes: what
/// ``OTLPTraceExport`` builds and the two OTLP encodings write (``OTLPEncoding``).
enum OTLP {
    /// An attribute's value (`AnyValue`: a string or an `int64`).
    enum Value: Equatable {
        case string(String)
        case int(UInt64)
    }

    /// Keys from the registry only (``ExportAttribute``): nothing else can be written.
    typealias Attributes = [(key: ExportAttribute, value: Value)]

    /// A 128-bit trace id.
    struct TraceID: Equatable {
        var high: UInt64
        var low: UInt64
    }

    /// A timed event of a span.
    struct Event {
        var time: UInt64
        var name: String
        var attributes: Attributes
    }

    /// A link from a span to another trace's span.
    struct Link {
        var trace: TraceID
        var span: UInt64
        var attributes: Attributes
    }

    /// `Span.SpanKind`'s values the export uses.
    enum Kind: UInt64 {
        case `internal` = 1
        case server = 2
        case client = 3
    }

    /// `Status.StatusCode`: the export sets ERROR with a message, or leaves it unset.
    struct Status {
        static let error: UInt64 = 2
        var message: String
    }

    struct Span {
        var trace: TraceID
        var id: UInt64
        /// 0: a root span.
        var parent: UInt64
        var name: String
        var kind: Kind
        /// Unix times in nanoseconds.
        var start: UInt64
        var end: UInt64
        var attributes: Attributes
        var events: [Event] = []
        var links: [Link] = []
        var status: Status?
    }

    /// One runtime's spans of a batch, under its resource.
    struct ResourceSpans {
        var resource: Attributes
        var spans: [Span]
    }

    /// The instrumentation scope every span is written under.
    static let scope = "Transduce"
}
