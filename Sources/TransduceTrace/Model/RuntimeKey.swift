/// One runtime across the processes of a trace: its process id and its id within that process.
///
/// Stored packed in one `UInt64` (``rawValue``, as trace indexes keep it): the process id in the
/// top 24 bits, the runtime id in the low 40 (ids of a real process never come near 2^40; a
/// hostile trace whose ids do has some runtimes grouped together, nothing worse). A trace without
/// process ids (process 0) keys runtimes by their plain ids. Keys order by that packed value: by
/// process, then by id.
public struct RuntimeKey: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    static let runtimeBits: UInt64 = 40

    /// The packed key.
    public let rawValue: UInt64

    /// The key whose packed form is `rawValue`.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The key of runtime `value` of a trace without process ids (process 0): `index.requestLifecycle(runtime: 1, …)`.
    public init(integerLiteral value: UInt64) { rawValue = value }

    /// The key of `runtime` in `process` (the plain id when `process` is 0).
    public init(process: UInt32, runtime: UInt64) {
        rawValue =
            process == 0
            ? runtime : UInt64(process & 0xFF_FFFF) << Self.runtimeBits | (runtime & ((1 << Self.runtimeBits) - 1))
    }

    /// The process (0 when the trace gave none).
    public var process: UInt32 { UInt32(truncatingIfNeeded: rawValue >> Self.runtimeBits) }

    /// The runtime id within its process.
    public var runtime: UInt64 { process == 0 ? rawValue : rawValue & ((1 << Self.runtimeBits) - 1) }

    /// `3`, or `3 (pid 4242)` when the trace says which process.
    public var name: String { process == 0 ? String(rawValue) : "\(runtime) (pid \(process))" }

    /// ``name``.
    public var description: String { name }

    public static func < (a: RuntimeKey, b: RuntimeKey) -> Bool { a.rawValue < b.rawValue }
}
