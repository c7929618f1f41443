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
}
