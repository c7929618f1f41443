/// Errors the runtime itself throws at dispatch boundaries, and the error a runaway chain latches.
///
/// A struct over a ``Code``, in the manner of swift-nio's errors, so that codes can be added
/// without breaking a caller's exhaustive `switch`: compare with the static members
/// (`error == .cancelled`, `catch RuntimeError.cancelled`) or switch over ``code`` with a
/// `default`. The values of a code (``capacity``, ``event``, ``limit``) are properties.
public struct RuntimeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong. New codes may be added: a `switch` over them needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        @usableFromInline
        enum Base: UInt8, Sendable {
            case cancelled, deallocated, systemError, reentrantDispatch, queueFull, runawayEventChain
        }
        @usableFromInline
        let base: Base

        @inlinable
        init(_ base: Base) { self.base = base }

        /// The runtime was cancelled by its host or owner.
        public static let cancelled = Code(.cancelled)
        /// The host was released; this `Input` outlived it.
        public static let deallocated = Code(.deallocated)
        /// A failure was latched earlier; the host's `failure` holds the original error.
        public static let systemError = Code(.systemError)
        /// An awaited dispatch came from the runtime's own compute path.
        public static let reentrantDispatch = Code(.reentrantDispatch)
        /// `post` found the admission queue full.
        public static let queueFull = Code(.queueFull)
        /// One cycle chained more internal events than the step limit allows.
        public static let runawayEventChain = Code(.runawayEventChain)

        /// The code's name, as written in Swift (`queueFull`).
        public var description: String { "\(base)" }
    }

    /// What went wrong.
    public let code: Code
    /// The admission queue's capacity, for ``Code/queueFull``; otherwise `nil`.
    public let capacity: Int?
    /// The last event of the chain, for ``Code/runawayEventChain``; otherwise `nil`.
    public let event: String?
    /// The step limit that was exceeded, for ``Code/runawayEventChain``; otherwise `nil`.
    public let limit: Int?

    @inlinable
    init(_ code: Code, capacity: Int? = nil, event: String? = nil, limit: Int? = nil) {
        self.code = code
        self.capacity = capacity
        self.event = event
        self.limit = limit
    }

    /// The runtime was cancelled by its host or owner.
    public static let cancelled = RuntimeError(.cancelled)
    /// The host was released; this `Input` outlived it.
    public static let deallocated = RuntimeError(.deallocated)
    /// A failure was latched earlier; the host's `failure` holds the original error.
    public static let systemError = RuntimeError(.systemError)
    /// An awaited dispatch (`send`, `request`, `uniqueRequest`) was issued from the runtime's own
    /// compute path, which would wait for itself forever. Use `post` there.
    public static let reentrantDispatch = RuntimeError(.reentrantDispatch)

    /// `post` found the admission queue full (of `capacity` admissions). Nothing was enqueued;
    /// awaited styles wait for room.
    @inlinable
    public static func queueFull(capacity: Int) -> RuntimeError { RuntimeError(.queueFull, capacity: capacity) }

    /// One cycle chained more internal events than the host's step limit (`limit`) allows; `event`
    /// is the last one.
    @inlinable
    public static func runawayEventChain(event: String, limit: Int) -> RuntimeError {
        RuntimeError(.runawayEventChain, event: event, limit: limit)
    }

    /// Matches an error in a `catch` or `case` pattern: `catch RuntimeError.cancelled { … }`.
    @inlinable
    public static func ~= (pattern: RuntimeError, error: any Error) -> Bool {
        (error as? RuntimeError) == pattern
    }

    public var description: String {
        switch code.base {
        case .cancelled: "runtime error: the runtime was cancelled"
        case .deallocated: "runtime error: the runtime's host was deallocated"
        case .systemError: "runtime error: the runtime failed earlier; see the host's `failure`"
        case .reentrantDispatch:
            "runtime error: awaited dispatch from inside the runtime's own compute cycle (use post)"
        case .queueFull:
            "runtime error: internal event buffer full (\(capacity ?? 0) queued admissions); event not enqueued"
        case .runawayEventChain:
            "runtime error: runaway event chain: more than \(limit ?? 0) steps in one cycle, last event '\(event ?? "")'"
        }
    }
}
