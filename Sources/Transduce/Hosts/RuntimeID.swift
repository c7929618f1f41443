import Synchronization

/// A process-unique identity of one runtime (one host).
public struct RuntimeID: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    /// The id: 1 for the first runtime of a process, then counting up.
    public let rawValue: UInt64
    /// The runtime with id `rawValue` (for tools that read traces).
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "\(rawValue)" }

    private static let counter = Atomic<UInt64>(0)
    @usableFromInline
    static func next() -> RuntimeID {
        RuntimeID(rawValue: counter.wrappingAdd(1, ordering: .relaxed).newValue)
    }
}
