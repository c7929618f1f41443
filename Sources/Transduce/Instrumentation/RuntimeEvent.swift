/// One diagnostic event of a runtime, as defined by the trace schema (TheTraceContract.md in TransduceTrace's documentation).
///
/// A flat, trivially copyable value (13 words, no references): the runtime fills in the fields its
/// ``kind`` uses and leaves the rest zero, so handing one to an instrument and storing it are plain
/// copies. ``detail`` gives the same event as an enum with named fields, for instruments that
/// match on kinds; ``init(time:runtime:detail:)`` builds one from it.
///
/// Identifiers are `UInt64`, unique within one runtime and never reused; `0` means "none".
public struct RuntimeEvent: Sendable, BitwiseCopyable {
    /// Which of the schema's kinds it is, which says which fields it uses.
    public var kind: Kind
    /// The kind's code: the raw value of its style, outcome, reason, policy or effect kind (see
    /// ``Kind``).
    public var code: UInt8 = 0
    /// The second code: a dispatchRejected's ``RejectionReason`` raw value.
    public var code2: UInt8 = 0
    /// The step within a cycle (transduce, effect), or the steps of a cycleLeave.
    public var step: UInt32 = 0
    /// Nanoseconds of `CLOCK_MONOTONIC` (see ``MonotonicClock``).
    public var time: UInt64
    /// The runtime (host) that emitted the event.
    public var runtime: RuntimeID
    /// The dispatch id (dispatch, dispatchRejected, cycleEnter, taskJoin, requestResume,
    /// traceContext).
    public var dispatch: UInt64 = 0
    /// The cycle id (cycleEnter, transduce, effect, cycleLeave, taskSpawn, eventDropped; the
    /// resuming cycle of a requestResume); a traceContext's trace id high bits.
    public var cycle: UInt64 = 0
    /// The task id (task events; the resuming task of a requestResume); a traceContext's trace id
    /// low bits.
    public var task: UInt64 = 0
    /// Origin task (dispatch), replaced task (taskSpawn), parent span id (traceContext).
    public var otherTask: UInt64 = 0
    /// Waited, held, duration, ran or latency, by kind.
    public var nanos: UInt64 = 0
    /// Queue capacity (runtimeStart), queue depth (dispatch, cycleEnter), waiters (taskSpawn) or
    /// trace flags (traceContext).
    public var count: UInt32 = 0
    /// The event, task name, error or transducer name, by kind.
    public var label: EventLabel = .empty
    /// The host kind of a runtimeStart (empty for every other kind).
    public var label2: EventLabel = .empty

    /// An event of `kind` of `runtime` at `time` (nanoseconds of `CLOCK_MONOTONIC`) with every
    /// other field zero.
    @inlinable
    public init(kind: Kind, time: UInt64, runtime: RuntimeID) {
        self.kind = kind
        self.time = time
        self.runtime = runtime
    }

    /// The kinds of the trace schema, in schema order; the raw values are the codes traces store.
    /// Each case says which fields it uses.
    public enum Kind: UInt8, Sendable, CaseIterable, BitwiseCopyable {
        /// `label` transducer, `label2` host kind, `count` queue capacity.
        case runtimeStart
        /// `code` reason (``RuntimeLifecycle``), `label` error.
        case runtimeStop
        /// `dispatch`, `code` style (``DispatchKind``), `label` event, `otherTask` origin task,
        /// `count` queue depth after enqueue (admissions waiting for room included). Stamped with
        /// the time its wait and latency are measured from.
        case dispatch
        /// `dispatch`, `code` style, `label` event, `code2` reason (``RejectionReason``).
        case dispatchRejected
        /// `cycle`, `dispatch`, `nanos` waited, `count` queue depth left.
        case cycleEnter
        /// `cycle`, `step`, `label` event.
        case transduce
        /// `cycle`, `step`, `code` effect kind (``EffectKind``), `label` task name, `nanos` duration.
        case effect
        /// `cycle`, `code` outcome (``CycleOutcome``), `step` steps, `nanos` held.
        case cycleLeave
        /// `task`, `label` name, `code` policy (``TaskPolicyKind``), `cycle`, `count` waiters,
        /// `otherTask` replaced task.
        case taskSpawn
        /// `task`, `dispatch` of the joining waiter.
        case taskJoin
        /// `task`, `code` reason (``TaskCancelReason``).
        case taskCancel
        /// `task`, `code` outcome (``TaskOutcome``), `label` event or error, `nanos` ran.
        case taskSettle
        /// `dispatch`, `code` outcome (``ResumeOutcome``), `label` error, `cycle` by cycle,
        /// `task` by task, `nanos` latency.
        case requestResume
        /// `cycle`, `label` event, `code` reason (``DropReason``).
        case eventDropped
        /// The ``TraceContext`` dispatch `dispatch` was made under, recorded before its
        /// `dispatch` (or `dispatchRejected`), on the same thread, when one was set: `cycle` and
        /// `task` the trace id's high and low 64 bits, `otherTask` the parent span id, `count` the
        /// trace flags.
        case traceContext
    }
}
