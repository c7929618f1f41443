import Synchronization

/// Errors the runtime itself raises at dispatch boundaries.
public enum RuntimeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The runtime was cancelled by its host or owner.
    case cancelled
    /// The host was released; this `Input` outlived it.
    case deallocated
    /// A failure was latched earlier; the host's `failure` holds the original error.
    case systemError
    /// An awaited dispatch (`send`, `request`, `uniqueRequest`) was issued from the runtime's own
    /// compute path, which would wait for itself forever. Use `post` there.
    case reentrantDispatch
    /// `post` found the admission queue full. Nothing was enqueued; awaited styles wait for room.
    case queueFull(capacity: Int)
    /// One cycle chained more internal events than the host's step limit allows.
    case runawayEventChain(event: String, limit: Int)

    public var description: String {
        switch self {
        case .cancelled: "runtime error: the runtime was cancelled"
        case .deallocated: "runtime error: the runtime's host was deallocated"
        case .systemError: "runtime error: the runtime failed earlier; see the host's `failure`"
        case .reentrantDispatch:
            "runtime error: awaited dispatch from inside the runtime's own compute cycle (use post)"
        case .queueFull(let capacity):
            "runtime error: internal event buffer full (\(capacity) queued admissions); event not enqueued"
        case .runawayEventChain(let event, let limit):
            "runtime error: runaway event chain: more than \(limit) steps in one cycle, last event '\(event)'"
        }
    }
}

/// The lifecycle of a runtime: `active`, then exactly one terminal value.
/// The raw values are the codes traces store.
public enum RuntimeLifecycle: UInt8, Sendable, Hashable, CaseIterable {
    /// Accepting and running events.
    case active
    /// Stopped by `cancel()`.
    case cancelled
    /// The host was deallocated.
    case deallocated
    /// A task or handler threw; the runtime stopped with that error.
    case failed
}

/// A process-unique identity of one runtime (one host).
public struct RuntimeID: Hashable, Sendable, CustomStringConvertible {
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
