/// One diagnostic event of a runtime, as defined by the trace schema (TRACING.md, section 2).
///
/// Identifiers are `UInt64`, unique within one runtime and never reused; `0` means "none".
public struct RuntimeEvent: Sendable {
    /// Nanoseconds of `CLOCK_MONOTONIC` (see ``MonotonicClock``).
    public var time: UInt64
    public var runtime: RuntimeID
    public var detail: Detail
    /// The dispatched or transduced event value, only when the instrument opted in with
    /// ``RuntimeInstrument/capturesPayloads``.
    public var payload: (any Sendable)?

    @inlinable
    public init(time: UInt64, runtime: RuntimeID, detail: Detail, payload: (any Sendable)? = nil) {
        self.time = time
        self.runtime = runtime
        self.detail = detail
        self.payload = payload
    }

    public enum Detail: Sendable {
        case runtimeStart(transducer: EventLabel, host: EventLabel, queueCapacity: Int)
        case runtimeStop(reason: RuntimeLifecycle, error: EventLabel?)
        case dispatch(dispatch: UInt64, style: DispatchKind, event: EventLabel, originTask: UInt64, queueDepth: Int)
        case dispatchRejected(dispatch: UInt64, style: DispatchKind, event: EventLabel, reason: RejectionReason)
        case cycleEnter(cycle: UInt64, dispatch: UInt64, waitedNanos: UInt64, queueDepth: Int)
        case transduce(cycle: UInt64, step: Int, event: EventLabel)
        case effect(cycle: UInt64, step: Int, kind: EffectKind, task: TaskIdentifier?, durationNanos: UInt64)
        case cycleLeave(cycle: UInt64, outcome: CycleOutcome, steps: Int, heldNanos: UInt64)
        case taskSpawn(task: UInt64, name: TaskIdentifier?, policy: TaskPolicyKind, cycle: UInt64, waiters: Int, replaces: UInt64)
        case taskJoin(task: UInt64, dispatch: UInt64)
        case taskCancel(task: UInt64, reason: TaskCancelReason)
        case taskSettle(task: UInt64, outcome: TaskOutcome, label: EventLabel?, ranNanos: UInt64)
        case requestResume(
            dispatch: UInt64, outcome: ResumeOutcome, error: EventLabel?, byCycle: UInt64, byTask: UInt64,
            latencyNanos: UInt64)
        case eventDropped(cycle: UInt64, event: EventLabel, reason: DropReason)
    }
}

/// How an admission entered the queue.
public enum DispatchKind: UInt8, Sendable, CaseIterable {
    case post, send, request, uniqueRequest, initial, taskRequest, taskResponse
}

public enum RejectionReason: UInt8, Sendable, CaseIterable {
    case cancelled, deallocated, systemError, queueFull, reentrant
}

public enum CycleOutcome: UInt8, Sendable, CaseIterable {
    /// The chain ended without a task; waiters were resolved.
    case settled
    /// The chain ended in a task, which now owns any request waiters.
    case handedOff
    /// The runtime stopped or failed mid-cycle.
    case aborted
}

public enum EffectKind: UInt8, Sendable, CaseIterable {
    case none, event, action, asyncAction, task, cancel, sequence
}

public enum TaskPolicyKind: UInt8, Sendable, CaseIterable {
    case switchToLatest, shareable
    /// Started in a `uniqueRequest` cycle, which overrides the declared policy.
    case unique
}

public enum TaskCancelReason: UInt8, Sendable, CaseIterable {
    case replaced, cancelEffect, uniqueRequest, runtimeStop
}

public enum TaskOutcome: UInt8, Sendable, CaseIterable {
    case settle, request, response, cancelled, failed
}

public enum ResumeOutcome: UInt8, Sendable, CaseIterable {
    case response, `nil`, error
}

public enum DropReason: UInt8, Sendable, CaseIterable {
    case sequenceIntermediate, discardedOnStop
}
