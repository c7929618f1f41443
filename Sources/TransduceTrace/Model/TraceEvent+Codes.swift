import Transduce

/// Typed views of an event's codes: analyses compare these, never code names, so that a renamed
/// or removed case is a compile error rather than a silently different report.
///
/// Each is `nil` when the event is of another kind, or carries a code this version has no case
/// for (a newer writer's, or damage).
extension TraceEvent {
    /// The reason of a `runtimeStop`.
    public var stopReason: RuntimeLifecycle? { kind == .runtimeStop ? RuntimeLifecycle(rawValue: code) : nil }
    /// The style of a `dispatch` or `dispatchRejected`.
    public var style: DispatchKind? {
        kind == .dispatch || kind == .dispatchRejected ? DispatchKind(rawValue: code) : nil
    }
    /// The reason of a `dispatchRejected`.
    public var rejection: RejectionReason? { kind == .dispatchRejected ? RejectionReason(rawValue: code2) : nil }
    /// The kind of an `effect`.
    public var effectKind: EffectKind? { kind == .effect ? EffectKind(rawValue: code) : nil }
    /// The outcome of a `cycleLeave`.
    public var cycleOutcome: CycleOutcome? { kind == .cycleLeave ? CycleOutcome(rawValue: code) : nil }
    /// The policy of a `taskSpawn`.
    public var policy: TaskPolicyKind? { kind == .taskSpawn ? TaskPolicyKind(rawValue: code) : nil }
    /// The reason of a `taskCancel`.
    public var cancelReason: TaskCancelReason? { kind == .taskCancel ? TaskCancelReason(rawValue: code) : nil }
    /// The outcome of a `taskSettle`.
    public var taskOutcome: TaskOutcome? { kind == .taskSettle ? TaskOutcome(rawValue: code) : nil }
    /// The outcome of a `requestResume`.
    public var resumeOutcome: ResumeOutcome? { kind == .requestResume ? ResumeOutcome(rawValue: code) : nil }
    /// The reason of an `eventDropped`.
    public var dropReason: DropReason? { kind == .eventDropped ? DropReason(rawValue: code) : nil }

    /// A `taskSettle` whose task re-entered the runtime with its result (`request`, `response`).
    public var isReentrySettle: Bool { taskOutcome == .request || taskOutcome == .response }
    /// An `effect` that ran an action on the gate (`action`, `asyncAction`).
    public var isActionEffect: Bool { effectKind == .action || effectKind == .asyncAction }
}
