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
