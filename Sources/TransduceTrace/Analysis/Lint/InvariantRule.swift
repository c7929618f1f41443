/// The runtime invariants a trace can be checked against (as <doc:TheTraceContract> lists them).
/// Each is checked by its own ``TraceRule`` type (``rule(whole:)`` makes it).
public enum InvariantRule: String, Sendable, CaseIterable {
    /// At most one cycle per runtime at a time; `transduce` only inside its cycle.
    case oneCycleAtATime
    /// Admissions enter the gate in the order they were accepted.
    case fifoAdmission
    /// Every awaited caller (`send`, `request`, `uniqueRequest`) is resumed exactly once.
    case resumedExactlyOnce
    /// Every task instance is spawned once and ends once (settled or cancelled); a cancelled
    /// instance's late outcome is discarded.
    case taskSpawnedAndEndedOnce
    /// Nothing is transduced after the runtime stopped.
    case nothingTransducedAfterStop
    /// A runtime gives each dispatch and each cycle an id of its own: none is used twice.
    case idsUsedOnce
    /// What causes an event comes before it: a dispatch's cycle enters after the dispatch, a
    /// caller is resumed after its dispatch, a cycle leaves after it entered.
    case causalOrder

    /// What the rule promises, in one line (`trace-view check` lists it).
    public var summary: String {
        switch self {
        case .oneCycleAtATime: "one cycle at a time per runtime; transduce only inside its cycle"
        case .fifoAdmission: "admissions enter the gate in the order accepted"
        case .resumedExactlyOnce: "every awaited caller resumed exactly once"
        case .taskSpawnedAndEndedOnce: "every task spawned once and ended once"
        case .nothingTransducedAfterStop: "nothing transduced after the runtime stopped"
        case .idsUsedOnce: "no dispatch or cycle id used twice in a runtime"
        case .causalOrder: "a dispatch before its cycle and resume; a cycle's enter before its leave"
        }
    }

    /// A fresh checker of this rule. `whole`: the trace covers whole runs, so what is missing
    /// at its end (a resume, a task's end) is a violation too.
    public func rule(whole: Bool) -> any TraceRule {
        switch self {
        case .oneCycleAtATime: OneCycleAtATime()
        case .fifoAdmission: FIFOAdmission()
        case .resumedExactlyOnce: ResumedExactlyOnce(whole: whole)
        case .taskSpawnedAndEndedOnce: TaskSpawnedAndEndedOnce(whole: whole)
        case .nothingTransducedAfterStop: NothingTransducedAfterStop()
        case .idsUsedOnce: IDsUsedOnce()
        case .causalOrder: CausalOrder()
        }
    }
}

/// One invariant checked as a fold over a trace's events, in order: it keeps what it needs per
/// runtime and reports what breaks the rule, as tokio-console's warnings do (a check, a message).
///
/// Not thread-safe; memory grows with what is open (in-flight dispatches, live tasks).
public protocol TraceRule {
    /// Which invariant this checks.
    var invariant: InvariantRule { get }
    /// Takes the next event; reports what it shows broken.
    mutating func consume(_ event: TraceEvent, report: (Finding) -> Void)
    /// Reports what the whole trace shows broken once every event was consumed.
    mutating func finish(report: (Finding) -> Void)
}

/// What a rule found: the runtime, a message, and the events that show it.
public struct Finding: Sendable {
    /// The runtime (its ``RuntimeKey``).
    public var runtime: RuntimeKey
    /// What is broken, with the ids that show it.
    public var message: String
    /// The events that show it, in trace order.
    public var events: [TraceEvent]
    /// The finding rests on an event that is not in the trace (a leave, an enter, a dispatch, a
    /// resume): in a trace that lost events, that may be the loss, not the runtime, so it is not
    /// judged there. A finding on events the trace holds (an id twice, an order they show) can
    /// never be the loss: losing events adds none.
    public var restsOnAMissingEvent: Bool

    /// A finding about `runtime`.
    public init(_ runtime: RuntimeKey, _ message: String, _ events: [TraceEvent], restsOnAMissingEvent: Bool = false) {
        self.runtime = runtime
        self.message = message
        self.events = events
        self.restsOnAMissingEvent = restsOnAMissingEvent
    }
}

extension TraceRule {
    public mutating func finish(report: (Finding) -> Void) {}
}
