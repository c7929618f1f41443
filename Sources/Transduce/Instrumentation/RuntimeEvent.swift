/// One diagnostic event of a runtime, as defined by the trace schema (TRACING.md, section 2).
///
/// Identifiers are `UInt64`, unique within one runtime and never reused; `0` means "none".
/// The runtime builds one per instrumentation point and hands it to its ``RuntimeInstrument``
/// synchronously, on the thread that reached the point; building it allocates nothing beyond
/// the labels' strings.
public struct RuntimeEvent: Sendable {
    /// Nanoseconds of `CLOCK_MONOTONIC` (see ``MonotonicClock``).
    public var time: UInt64
    /// The runtime (host) that emitted the event.
    public var runtime: RuntimeID
    /// What happened, with the fields of its kind.
    public var detail: Detail
    /// The dispatched or transduced event value, only when the instrument opted in with
    /// ``RuntimeInstrument/capturesPayloads``.
    public var payload: (any Sendable)?

    /// An event of `runtime` at `time` (nanoseconds of `CLOCK_MONOTONIC`).
    @inlinable
    public init(time: UInt64, runtime: RuntimeID, detail: Detail, payload: (any Sendable)? = nil) {
        self.time = time
        self.runtime = runtime
        self.detail = detail
        self.payload = payload
    }

    /// The kinds of the schema and their fields. Exhaustive on purpose: a new kind does not
    /// compile until every instrument and encoder handles it.
    public enum Detail: Sendable {
        /// The host was created: the transducer's and host's type names, and the queue's capacity.
        case runtimeStart(transducer: EventLabel, host: EventLabel, queueCapacity: Int)
        /// The runtime stopped (cancelled, deallocated or failed), with the error of a failure.
        case runtimeStop(reason: RuntimeLifecycle, error: EventLabel?)
        /// An admission was accepted into the queue (or is waiting for room in it). Stamped with
        /// the time its wait and latency are measured from; `originTask` is the managed task that
        /// dispatched it (0 from outside), `queueDepth` the admissions queued after it, waiting
        /// ones included.
        case dispatch(dispatch: UInt64, style: DispatchKind, event: EventLabel, originTask: UInt64, queueDepth: Int)
        /// An admission was refused, and why.
        case dispatchRejected(dispatch: UInt64, style: DispatchKind, event: EventLabel, reason: RejectionReason)
        /// The admission's cycle took the gate after waiting `waitedNanos`; `queueDepth` left behind.
        case cycleEnter(cycle: UInt64, dispatch: UInt64, waitedNanos: UInt64, queueDepth: Int)
        /// `transduce` ran on an event at `step` of its cycle (step 0 is the admitted event, the
        /// rest chained `.event`s).
        case transduce(cycle: UInt64, step: Int, event: EventLabel)
        /// An effect was interpreted: its kind, the task id it names, and how long it ran on the
        /// gate (actions).
        case effect(cycle: UInt64, step: Int, kind: EffectKind, task: TaskIdentifier?, durationNanos: UInt64)
        /// The cycle released the gate after holding it `heldNanos` for `steps` steps.
        case cycleLeave(cycle: UInt64, outcome: CycleOutcome, steps: Int, heldNanos: UInt64)
        /// A managed task started in `cycle`, carrying `waiters` request waiters and replacing
        /// task `replaces` (0 for none).
        case taskSpawn(task: UInt64, name: TaskIdentifier?, policy: TaskPolicyKind, cycle: UInt64, waiters: Int, replaces: UInt64)
        /// The waiter of `dispatch` joined running shareable task `task`.
        case taskJoin(task: UInt64, dispatch: UInt64)
        /// A task instance was cancelled, and why.
        case taskCancel(task: UInt64, reason: TaskCancelReason)
        /// A task instance ended after running `ranNanos`: its outcome and the event or error it
        /// ended with.
        case taskSettle(task: UInt64, outcome: TaskOutcome, label: EventLabel?, ranNanos: UInt64)
        /// The caller of `dispatch` was resumed `latencyNanos` after its dispatch, by cycle
        /// `byCycle` or task `byTask`.
        case requestResume(
            dispatch: UInt64, outcome: ResumeOutcome, error: EventLabel?, byCycle: UInt64, byTask: UInt64,
            latencyNanos: UInt64)
        /// An event was discarded without being transduced, and why.
        case eventDropped(cycle: UInt64, event: EventLabel, reason: DropReason)
    }
}
