import Transduce

/// One recorded runtime event, as stored in ring buffers and trace files and read back.
///
/// A flat value: every kind uses the fields that apply to it and leaves the others zero (see
/// `RuntimeEvent.Kind` for which). Identifiers are unique within a runtime; `0` means "none". Labels are
/// strings without payloads (`loaded`, not `loaded(["a"])`).
public struct TraceEvent: Sendable, Hashable {
    /// The kinds of the trace schema (<doc:TheTraceContract>), in schema order: the runtime's own
    /// (`RuntimeEvent.Kind` of Transduce), so a kind has one code everywhere.
    public typealias Kind = RuntimeEvent.Kind

    // Stored small fields first, then the 64-bit ones, then the texts: 128 bytes a value, not the
    // 144 that padding after `kind`, `thread`, `process` and `count` made (views and passes hold
    // hundreds of thousands of events).
    /// Which of the schema's kinds it is, which says which fields it uses.
    public var kind: Kind
    /// The kind's code (style, outcome, reason, policy, effect kind); typed views such as ``style``
    /// and ``taskOutcome`` read it, and ``codeName`` names it.
    public var code: UInt8 = 0
    /// The second code: a dispatchRejected's reason (``rejection``).
    public var code2: UInt8 = 0
    /// Kernel thread id of the recording thread (0 when unknown).
    public var thread: UInt32
    /// The process that recorded the event (its pid; 0 when the input does not say).
    public var process: UInt32 = 0
    /// The step within a cycle (transduce, effect), or the steps of a cycleLeave.
    public var step: UInt32 = 0
    /// Queue capacity (runtimeStart), queue depth (dispatch, cycleEnter), waiters (taskSpawn) or
    /// trace flags (traceContext).
    public var count: UInt32 = 0
    /// Nanoseconds of `CLOCK_MONOTONIC`.
    public var time: UInt64
    /// The runtime's id, unique within its process (ids restart at 1 in every process).
    public var runtime: UInt64
    /// The dispatch id (dispatch, dispatchRejected, cycleEnter, taskJoin, requestResume,
    /// traceContext).
    public var dispatch: UInt64 = 0
    /// The cycle id (cycleEnter, transduce, effect, cycleLeave, taskSpawn, eventDropped; the resuming
    /// cycle of a requestResume); a traceContext's trace id high bits (``traceContext`` reads them).
    public var cycle: UInt64 = 0
    /// The task id (task events; the resuming task of a requestResume); a traceContext's trace id
    /// low bits.
    public var task: UInt64 = 0
    /// Origin task (dispatch), replaced task (taskSpawn), parent span id (traceContext).
    public var otherTask: UInt64 = 0
    /// Waited, held, duration, ran or latency, by kind.
    public var nanos: UInt64 = 0
    /// The event, task name, error or transducer name, by kind.
    public var label: String = ""
    /// The host kind of a runtimeStart ("" for every other kind).
    public var label2: String = ""
    /// The redacted payload description, when the recorder captured payloads.
    public var payload: String = ""

    /// An event of `kind` with every other field zero or empty.
    public init(kind: Kind, time: UInt64, thread: UInt32 = 0, runtime: UInt64) {
        self.kind = kind
        self.time = time
        self.thread = thread
        self.runtime = runtime
    }

    /// The runtime's identity across processes, which analyses key by (see ``RuntimeKey``).
    public var runtimeKey: RuntimeKey { RuntimeKey(process: process, runtime: runtime) }

    /// The name of `code` for this kind (`request`, `handedOff`, `replaced`, …), or "" when the
    /// kind has none.
    public var codeName: String { TraceNames.codeName(kind: kind, code: code) }
    /// A dispatch whose caller awaits it (`send`, `request`, `uniqueRequest`).
    public var isAwaitedDispatch: Bool {
        guard kind == .dispatch, let style else { return false }
        return style == .send || style == .request || style == .uniqueRequest
    }
    /// A task's re-entry (`taskRequest`, `taskResponse`), which carries the task's waiters.
    public var isTaskReentry: Bool { kind == .dispatch && (style == .taskRequest || style == .taskResponse) }
    /// An admission whose cycle hands its waiters to the task it starts (`request`,
    /// `uniqueRequest`, `taskRequest`); the others resolve them when the cycle hands off.
    public var handsWaitersToTask: Bool {
        guard kind == .dispatch, let style else { return false }
        return style == .request || style == .uniqueRequest || style == .taskRequest
    }

    /// The trace context of a `traceContext` event (`nil` for any other kind, or for one whose
    /// ids are zero).
    public var traceContext: TraceContext? {
        guard kind == .traceContext else { return nil }
        return TraceContext(
            traceIDHigh: cycle, traceIDLow: task, spanID: otherTask, flags: UInt8(truncatingIfNeeded: count))
    }

    /// The name of `code2` (only `dispatchRejected` uses it: the reason).
    public var code2Name: String {
        let table = TraceNames.secondCodes(of: kind)
        return table.isEmpty ? "" : TraceNames.name(table, code2)
    }
}

extension RuntimeEvent.Kind {
    /// The schema's name of the kind (`cycleEnter`): the case's own name, which is also what
    /// `String(describing:)` and interpolation give.
    public var description: String { TraceNames.kinds[Int(rawValue)] }
    /// The LTTng event name without provider (`cycle_enter`): the name in snake case.
    public var lttngName: String { TraceNames.lttngKinds[Int(rawValue)] }

    /// The kind named `name` (``description``), if any.
    public init?(name: String) {
        guard let index = TraceNames.kinds.firstIndex(of: name) else { return nil }
        self.init(rawValue: UInt8(index))
    }

    /// The kind whose LTTng event name is `lttngName` (``lttngName``), if any.
    public init?(lttngName: String) {
        guard let index = TraceNames.lttngKinds.firstIndex(of: lttngName) else { return nil }
        self.init(rawValue: UInt8(index))
    }
}
