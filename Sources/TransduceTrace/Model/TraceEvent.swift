import Transduce

/// One recorded runtime event, as stored in ring buffers and trace files and read back.
///
/// A flat value: every kind uses the fields that apply to it and leaves the others zero (see
/// ``Kind`` for which). Identifiers are unique within a runtime; `0` means "none". Labels are
/// strings without payloads (`loaded`, not `loaded(["a"])`).
public struct TraceEvent: Sendable, Hashable {
    /// The kinds of the trace schema (TRACING.md, section 2), in schema order.
    public enum Kind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
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

        /// The schema's name of the kind (`cycleEnter`).
        public var description: String { TraceNames.kinds[Int(rawValue)] }
        /// The LTTng event name without provider (`cycle_enter`).
        public var lttngName: String { TraceNames.lttngKinds[Int(rawValue)] }

        public init?(name: String) {
            guard let index = TraceNames.kinds.firstIndex(of: name) else { return nil }
            self.init(rawValue: UInt8(index))
        }

        public init?(lttngName: String) {
            guard let index = TraceNames.lttngKinds.firstIndex(of: lttngName) else { return nil }
            self.init(rawValue: UInt8(index))
        }
    }

    public var kind: Kind
    /// Nanoseconds of `CLOCK_MONOTONIC`.
    public var time: UInt64
    /// Kernel thread id of the recording thread (0 when unknown).
    public var thread: UInt32
    /// The runtime's id, unique within its process (ids restart at 1 in every process).
    public var runtime: UInt64
    /// The process that recorded the event (its pid; 0 when the input does not say).
    public var process: UInt32 = 0
    public var dispatch: UInt64 = 0
    public var cycle: UInt64 = 0
    public var task: UInt64 = 0
    /// Origin task (dispatch), replaced task (taskSpawn).
    public var otherTask: UInt64 = 0
    public var step: UInt32 = 0
    public var code: UInt8 = 0
    public var code2: UInt8 = 0
    public var count: UInt32 = 0
    /// Waited, held, duration, ran or latency, by kind.
    public var nanos: UInt64 = 0
    public var label: String = ""
    public var label2: String = ""
    /// The redacted payload description, when the recorder captured payloads.
    public var payload: String = ""

    public init(kind: Kind, time: UInt64, thread: UInt32 = 0, runtime: UInt64) {
        self.kind = kind
        self.time = time
        self.thread = thread
        self.runtime = runtime
    }

    /// The runtime's identity across processes, which analyses key by (see ``RuntimeKey``).
    public var runtimeKey: UInt64 { RuntimeKey.make(process: process, runtime: runtime) }

    /// The name of `code` for this kind (`request`, `handedOff`, `replaced`, …), or "" when the
    /// kind has none.
    public var codeName: String { TraceNames.codeName(kind: kind, code: code) }
    /// A dispatch whose caller awaits it (`send`, `request`, `uniqueRequest`).
    public var isAwaitedDispatch: Bool {
        kind == .dispatch && ["send", "request", "uniqueRequest"].contains(codeName)
    }
    /// A task's re-entry (`taskRequest`, `taskResponse`), which carries the task's waiters.
    public var isTaskReentry: Bool { kind == .dispatch && (codeName == "taskRequest" || codeName == "taskResponse") }
    /// An admission whose cycle hands its waiters to the task it starts (`request`,
    /// `uniqueRequest`, `taskRequest`); the others resolve them when the cycle hands off.
    public var handsWaitersToTask: Bool {
        kind == .dispatch && ["request", "uniqueRequest", "taskRequest"].contains(codeName)
    }

    /// The name of `code2` (only `dispatchRejected` uses it: the reason).
    public var code2Name: String { kind == .dispatchRejected ? TraceNames.name(TraceNames.rejections, code2) : "" }
}

/// The string names of kinds and codes, shared by the file formats, LTTng and renderers.
public enum TraceNames {
    public static let kinds = [
        "runtimeStart", "runtimeStop", "dispatch", "dispatchRejected", "cycleEnter", "transduce", "effect",
        "cycleLeave", "taskSpawn", "taskJoin", "taskCancel", "taskSettle", "requestResume", "eventDropped",
    ]
    public static let lttngKinds = [
        "runtime_start", "runtime_stop", "dispatch", "dispatch_rejected", "cycle_enter", "transduce", "effect",
        "cycle_leave", "task_spawn", "task_join", "task_cancel", "task_settle", "request_resume", "event_dropped",
    ]
    public static let lifecycles = ["active", "cancelled", "deallocated", "failed"]
    public static let styles = ["post", "send", "request", "uniqueRequest", "initial", "taskRequest", "taskResponse"]
    public static let rejections = ["cancelled", "deallocated", "systemError", "queueFull", "reentrant"]
    public static let effects = ["none", "event", "action", "asyncAction", "task", "cancel", "sequence"]
    public static let cycleOutcomes = ["settled", "handedOff", "aborted"]
    public static let policies = ["switchToLatest", "shareable", "unique"]
    public static let cancelReasons = ["replaced", "cancelEffect", "uniqueRequest", "runtimeStop"]
    public static let taskOutcomes = ["settle", "request", "response", "cancelled", "failed"]
    public static let resumeOutcomes = ["response", "nil", "error"]
    public static let dropReasons = ["sequenceIntermediate", "discardedOnStop"]

    /// The code table of `kind` (empty when the kind has no code).
    public static func codes(of kind: TraceEvent.Kind) -> [String] {
        switch kind {
        case .runtimeStop: lifecycles
        case .dispatch, .dispatchRejected: styles
        case .effect: effects
        case .cycleLeave: cycleOutcomes
        case .taskSpawn: policies
        case .taskCancel: cancelReasons
        case .taskSettle: taskOutcomes
        case .requestResume: resumeOutcomes
        case .eventDropped: dropReasons
        case .runtimeStart, .cycleEnter, .transduce, .taskJoin: []
        }
    }

    static func name(_ table: [String], _ code: UInt8) -> String {
        Int(code) < table.count ? table[Int(code)] : "unknown(\(code))"
    }

    /// The code written as `unknown(N)` (a code this version has no name for), so that such an
    /// event exported as JSON Lines reads back.
    static func unknownCode(_ name: String) -> UInt8? {
        guard name.hasPrefix("unknown("), name.hasSuffix(")") else { return nil }
        return UInt8(name.dropFirst(8).dropLast())
    }

    public static func codeName(kind: TraceEvent.Kind, code: UInt8) -> String {
        let table = codes(of: kind)
        return table.isEmpty ? "" : name(table, code)
    }

    /// The code of `name` in `kind`'s table.
    public static func code(kind: TraceEvent.Kind, name: String) -> UInt8? {
        codes(of: kind).firstIndex(of: name).map(UInt8.init)
    }
}

/// One runtime across the processes of a trace, as one `UInt64`: the process id in the top 24
/// bits, the runtime id in the low 40 (ids of a real process never come near 2^40; a hostile trace
/// whose ids do has some runtimes grouped together, nothing worse). A trace without process ids
/// (process 0) keys runtimes by their plain ids.
public enum RuntimeKey {
    static let runtimeBits: UInt64 = 40

    public static func make(process: UInt32, runtime: UInt64) -> UInt64 {
        process == 0 ? runtime : UInt64(process & 0xFF_FFFF) << runtimeBits | (runtime & ((1 << runtimeBits) - 1))
    }

    public static func process(_ key: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: key >> runtimeBits) }

    public static func runtime(_ key: UInt64) -> UInt64 {
        process(key) == 0 ? key : key & ((1 << runtimeBits) - 1)
    }

    /// `3`, or `3 (pid 4242)` when the trace says which process.
    public static func name(_ key: UInt64) -> String {
        let pid = process(key)
        return pid == 0 ? String(key) : "\(runtime(key)) (pid \(pid))"
    }
}
