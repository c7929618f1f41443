/// How an admission entered the queue. The raw values are the codes traces store.
public enum DispatchKind: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    /// `post` (or `input(_:)`): returns at once.
    case post
    /// `send`: returns when the event's cycle has committed state.
    case send
    /// `request`: returns the response once the whole chain has settled, tasks included.
    case request
    /// `uniqueRequest`: a `request` that first cancels every live task.
    case uniqueRequest
    /// The host's initial event.
    case initial
    /// A task's result re-entering as a request (it carries the task's waiters on).
    case taskRequest
    /// A task's result re-entering as the response to its waiters.
    case taskResponse
}

/// Why an admission was refused. The raw values are the codes traces store.
public enum RejectionReason: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    /// The runtime was cancelled.
    case cancelled
    /// The host was deallocated.
    case deallocated
    /// The runtime failed earlier (a task or handler error).
    case systemError
    /// `post` into a full queue.
    case queueFull
    /// An awaited dispatch from inside the runtime's own action.
    case reentrant
}

/// How a cycle ended. The raw values are the codes traces store.
public enum CycleOutcome: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    /// The chain ended without a task; waiters were resolved.
    case settled
    /// The chain ended in a task, which now owns any request waiters.
    case handedOff
    /// The runtime stopped or failed mid-cycle.
    case aborted
}

/// The kind of an interpreted effect. The raw values are the codes traces store.
public enum EffectKind: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    /// `.none`.
    case none
    /// `.event`: an event chained in the same cycle.
    case event
    /// `.action`: synchronous work on the gate.
    case action
    /// An async action: holds the gate across its suspensions.
    case asyncAction
    /// `.task`: a managed task.
    case task
    /// `.cancel`: cancels the task of an id.
    case cancel
    /// `.sequence`: several effects in order.
    case sequence
}

/// The overlap policy a task instance ran under. The raw values are the codes traces store.
public enum TaskPolicyKind: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    /// A new instance of the id replaces (cancels) the running one.
    case switchToLatest
    /// A new request joins the running instance of the id instead of starting one.
    case shareable
    /// Started in a `uniqueRequest` cycle, which overrides the declared policy.
    case unique

    /// The policy a task effect declared with `option` starts under: its own, but `unique` in a
    /// `uniqueRequest` cycle. (The one place the override is decided; the task registry and
    /// the trace take the result.)
    @inlinable
    init(_ option: TaskAdditionPolicy, inUniqueRequest: Bool) {
        self = inUniqueRequest ? .unique : option == .shareable ? .shareable : .switchToLatest
    }
}

/// Why a task instance was cancelled. The raw values are the codes traces store.
public enum TaskCancelReason: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    /// A newer `switchToLatest` instance of its id replaced it.
    case replaced
    /// A `.cancel(id)` effect.
    case cancelEffect
    /// A `uniqueRequest` cancelled every live task.
    case uniqueRequest
    /// The runtime stopped.
    case runtimeStop
}

/// How a task instance ended. The raw values are the codes traces store.
public enum TaskOutcome: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    /// It returned no event (or `nil`).
    case settle
    /// It returned an event to re-enter as a request.
    case request
    /// It returned an event to re-enter as the response to its waiters.
    case response
    /// It ended by cancellation; any result was discarded.
    case cancelled
    /// It threw, which fails the runtime.
    case failed
}

/// What a resumed caller got. The raw values are the codes traces store.
public enum ResumeOutcome: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    /// A response.
    case response
    /// No response (a `send`, or a request whose chain produced none).
    case `nil`
    /// An error.
    case error
}

/// Why an event was dropped. The raw values are the codes traces store.
public enum DropReason: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    /// An event produced by an effect of a `.sequence` before its last: only the last effect's
    /// event chains on.
    case sequenceIntermediate
    /// A queued admission discarded because the runtime stopped.
    case discardedOnStop
}
