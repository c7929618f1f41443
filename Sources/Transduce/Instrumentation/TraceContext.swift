import Synchronization

/// The distributed-tracing context a dispatch was made under: a W3C Trace Context `traceparent`
/// (trace id, parent span id, flags), so that a request's lifecycle can be exported as spans under
/// the span that caused it (a server's request span, say).
///
/// Set it for a scope with ``withCurrent(_:operation:isolation:)`` — a server middleware does so
/// from the incoming request's `traceparent` header — and every dispatch made in that scope
/// (`post`, `send`, `request`, `uniqueRequest`) records it, as a `traceContext` event before its
/// `dispatch`, while the runtime's instrument records. Until a context is first set in the
/// process, a recorded dispatch pays one atomic load for it; after, a task-local read. A managed
/// task's own dispatches do not record it: they belong to the request whose cycle started the
/// task (their `dispatch` event names that task as origin).
///
/// ```swift
/// let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
/// if let context = TraceContext(traceparent: header) {
///     try await TraceContext.withCurrent(context) {
///         _ = try await host.request(.load)
///     }
/// }
/// ```
public struct TraceContext: Sendable, Hashable, BitwiseCopyable, CustomStringConvertible {
    /// The trace id's first (most significant) 64 bits.
    public var traceIDHigh: UInt64
    /// The trace id's last 64 bits.
    public var traceIDLow: UInt64
    /// The id of the span the dispatch was made in: the parent of the request's span.
    public var spanID: UInt64
    /// The trace flags (bit 0: sampled).
    public var flags: UInt8

    /// The context a dispatch made now runs under, if any (set by
    /// ``withCurrent(_:operation:isolation:)``).
    public static var current: TraceContext? { stored }

    @TaskLocal private static var stored: TraceContext?

    /// Whether any context was ever set in this process: until then, a dispatch skips the
    /// task-local lookup (about 140 instructions of a recorded send).
    private static let everSet = Atomic<Bool>(false)

    /// ``current`` if any context was ever set in the process; `nil` at the cost of one atomic
    /// load otherwise. What a dispatch reads.
    @inlinable
    static var currentIfAny: TraceContext? {
        isEverSet ? current : nil
    }

    @usableFromInline
    static var isEverSet: Bool { everSet.load(ordering: .relaxed) }

    /// Runs `operation` with `context` as ``current`` (`nil`: none), for it and the child tasks it
    /// creates; the context before is back when it returns.
    public static func withCurrent<R>(
        _ context: TraceContext?, operation: () async throws -> R, isolation: isolated (any Actor)? = #isolation
    ) async rethrows -> R {
        if context != nil { everSet.store(true, ordering: .relaxed) }
        return try await $stored.withValue(context, operation: operation)
    }

    /// The synchronous form of ``withCurrent(_:operation:isolation:)``.
    public static func withCurrent<R>(_ context: TraceContext?, operation: () throws -> R) rethrows -> R {
        if context != nil { everSet.store(true, ordering: .relaxed) }
        return try $stored.withValue(context, operation: operation)
    }

    /// A context with these ids; `nil` when the trace id or the span id is zero (invalid in W3C
    /// Trace Context).
    public init?(traceIDHigh: UInt64, traceIDLow: UInt64, spanID: UInt64, flags: UInt8 = 1) {
        guard traceIDHigh | traceIDLow != 0, spanID != 0 else { return nil }
        self.traceIDHigh = traceIDHigh
        self.traceIDLow = traceIDLow
        self.spanID = spanID
        self.flags = flags
    }

    /// A context with these ids as they are, zero ones included (a hand-made event's).
    @usableFromInline
    init(unchecked traceIDHigh: UInt64, traceIDLow: UInt64, spanID: UInt64, flags: UInt8) {
        self.traceIDHigh = traceIDHigh
        self.traceIDLow = traceIDLow
        self.spanID = spanID
        self.flags = flags
    }

    /// The context of a W3C `traceparent` header (`00-<32 hex trace id>-<16 hex span id>-<2 hex
    /// flags>`), or `nil` when it is malformed, has an all-zero id, or is of version `ff`. A later
    /// version is read by its first four fields, as the recommendation asks.
    public init?(traceparent header: some StringProtocol) {
        let bytes = Array(header.utf8)
        guard bytes.count >= 55, let version = Self.hex(bytes[0..<2]), version != 0xFF,
            bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-"),
            let high = Self.hex(bytes[3..<19]), let low = Self.hex(bytes[19..<35]),
            let span = Self.hex(bytes[36..<52]), let flags = Self.hex(bytes[53..<55])
        else { return nil }
        // Version 00 is exactly 55 characters; a later one may add fields after a dash.
        guard bytes.count == 55 || (version != 0 && bytes[55] == UInt8(ascii: "-")) else { return nil }
        self.init(traceIDHigh: high, traceIDLow: low, spanID: span, flags: UInt8(flags))
    }

    /// The trace id as 32 lowercase hex digits.
    public var traceID: String { Self.hexID(traceIDHigh) + Self.hexID(traceIDLow) }

    /// The span id as 16 lowercase hex digits.
    public var spanIDHex: String { Self.hexID(spanID) }

    /// The `traceparent` header of this context (version 00).
    public var traceparent: String {
        "00-\(traceID)-\(spanIDHex)-\(Self.hexID(UInt64(flags)).suffix(2))"
    }

    /// Whether the caller sampled the trace (flag bit 0).
    public var isSampled: Bool { flags & 1 != 0 }

    /// The `traceparent` header.
    public var description: String { traceparent }

    /// Lowercase hex digits of 1…16 bytes' worth of ASCII hex; `nil` for any other character
    /// (uppercase included, which W3C Trace Context forbids).
    private static func hex(_ digits: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for d in digits {
            let nibble: UInt8
            switch d {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = d - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = d - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(nibble)
        }
        return value
    }

    /// A 64-bit id as 16 lowercase hex digits, as W3C Trace Context and OTLP write span ids.
    package static func hexID(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
