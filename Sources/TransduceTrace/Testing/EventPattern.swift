import Transduce

/// What one event of an expected trace shape must look like; `nil` fields match anything.
///
/// ```swift
/// [.dispatch(.request, "load"), .enter, .transduce("load"), .spawn("load", policy: .switchToLatest),
///  .effect(.task, task: "load"), .leave(.handedOff), .any, .resume(.response)]
/// ```
public struct EventPattern: Sendable, CustomStringConvertible {
    /// The event's kind.
    public var kind: TraceEvent.Kind?
    /// Its label (event, task name, error, transducer).
    public var label: String?
    /// Its code (style, outcome, reason, policy, effect kind).
    public var code: UInt8?
    /// Its second code (a rejection's reason).
    public var code2: UInt8?
    /// The name of the task the event concerns (spawn, join, cancel, settle, task effects).
    public var task: String?

    /// A pattern of the given fields (`nil`: anything).
    public init(kind: TraceEvent.Kind?, label: String? = nil, code: UInt8? = nil, code2: UInt8? = nil, task: String? = nil) {
        self.kind = kind
        self.label = label
        self.code = code
        self.code2 = code2
        self.task = task
    }

    /// Any single event.
    public static let any = EventPattern(kind: nil)
    /// A `runtimeStart` (of `transducer`).
    public static func start(_ transducer: String? = nil) -> Self { .init(kind: .runtimeStart, label: transducer) }
    /// A `runtimeStop` (for `reason`).
    public static func stop(_ reason: RuntimeLifecycle? = nil) -> Self { .init(kind: .runtimeStop, code: reason?.rawValue) }
    /// A `dispatch` (of `style`, of `event`).
    public static func dispatch(_ style: DispatchKind? = nil, _ event: String? = nil) -> Self {
        .init(kind: .dispatch, label: event, code: style?.rawValue)
    }
    /// A `dispatchRejected` (of `style`, of `event`, for `reason`).
    public static func rejected(_ style: DispatchKind? = nil, _ event: String? = nil, reason: RejectionReason? = nil) -> Self {
        .init(kind: .dispatchRejected, label: event, code: style?.rawValue, code2: reason?.rawValue)
    }
    /// A `cycleEnter`.
    public static let enter = EventPattern(kind: .cycleEnter)
    /// A `transduce` (of `event`).
    public static func transduce(_ event: String? = nil) -> Self { .init(kind: .transduce, label: event) }
    /// Any effect (of the task named `task`, when given).
    public static func effect(task: String? = nil) -> Self { .init(kind: .effect, task: task) }
    /// An effect of `kind`. (Not optional, so that `.effect(.none)` means the `.none` effect.)
    public static func effect(_ kind: EffectKind, task: String? = nil) -> Self {
        .init(kind: .effect, code: kind.rawValue, task: task)
    }
    /// A `cycleLeave` (with `outcome`).
    public static func leave(_ outcome: CycleOutcome? = nil) -> Self { .init(kind: .cycleLeave, code: outcome?.rawValue) }
    /// A `taskSpawn` (of the task named `task`, under `policy`).
    public static func spawn(_ task: String? = nil, policy: TaskPolicyKind? = nil) -> Self {
        .init(kind: .taskSpawn, code: policy?.rawValue, task: task)
    }
    /// A `taskJoin` (of the task named `task`).
    public static func join(_ task: String? = nil) -> Self { .init(kind: .taskJoin, task: task) }
    /// A `taskCancel` (of the task named `task`, for `reason`).
    public static func cancel(_ task: String? = nil, reason: TaskCancelReason? = nil) -> Self {
        .init(kind: .taskCancel, code: reason?.rawValue, task: task)
    }
    /// A `taskSettle` (of the task named `task`, with `outcome` and its `event`).
    public static func settle(_ task: String? = nil, outcome: TaskOutcome? = nil, event: String? = nil) -> Self {
        .init(kind: .taskSettle, label: event, code: outcome?.rawValue, task: task)
    }
    /// A `requestResume` (with `outcome`).
    public static func resume(_ outcome: ResumeOutcome? = nil) -> Self { .init(kind: .requestResume, code: outcome?.rawValue) }
    /// An `eventDropped` (of `event`, for `reason`).
    public static func dropped(_ event: String? = nil, reason: DropReason? = nil) -> Self {
        .init(kind: .eventDropped, label: event, code: reason?.rawValue)
    }

    /// A `traceContext`: the trace context a dispatch was made under.
    public static let context = EventPattern(kind: .traceContext)

    /// Whether `e` matches; `index` resolves the task a task event concerns.
    public func matches(_ e: TraceEvent, in index: TraceIndex) -> Bool {
        if let kind, e.kind != kind { return false }
        if let label, e.label != label { return false }
        if let code, e.code != code { return false }
        if let code2, e.code2 != code2 { return false }
        if let task, ShapeText.taskName(of: e, in: index) != task { return false }
        return true
    }

    public var description: String {
        guard let kind else { return "_" }
        let codes = TraceNames.codes(of: kind)
        let code = self.code.map { Int($0) < codes.count ? codes[Int($0)] : "?" } ?? "_"
        let label = self.label ?? "_"
        let task = self.task ?? "_"
        switch kind {
        case .runtimeStart: return "start(\(label))"
        case .runtimeStop: return "stop(\(code))"
        case .dispatch: return "dispatch(\(code), \(label))"
        case .dispatchRejected:
            return "rejected(\(code), \(label), \(code2.map { TraceNames.rejections[Int($0)] } ?? "_"))"
        case .cycleEnter: return "enter"
        case .transduce: return "transduce(\(label))"
        case .effect: return "effect(\(code)" + (self.task == nil ? ")" : ", \(task))")
        case .cycleLeave: return "leave(\(code))"
        case .taskSpawn: return "spawn(\(task), \(code))"
        case .taskJoin: return "join(\(task))"
        case .taskCancel: return "cancel(\(task), \(code))"
        case .taskSettle: return "settle(\(task), \(code)" + (self.label == nil ? ")" : ", \(label))")
        case .requestResume: return "resume(\(code))"
        case .eventDropped: return "dropped(\(label), \(code))"
        case .traceContext: return "context"
        }
    }
}

/// One-line descriptions of recorded events, in the same notation as ``EventPattern``.
package enum ShapeText {
    static func taskName(of e: TraceEvent, in index: TraceIndex) -> String? {
        switch e.kind {
        case .taskSpawn, .taskJoin, .taskCancel, .taskSettle: index.taskName(runtime: e.runtimeKey, task: e.task)
        case .effect where e.effectKind == .task || e.effectKind == .cancel: e.label
        default: nil
        }
    }

    package static func describe(_ e: TraceEvent, in index: TraceIndex) -> String {
        let task = taskName(of: e, in: index) ?? ""
        switch e.kind {
        case .runtimeStart: return "start(\(e.label))"
        case .runtimeStop: return "stop(\(e.codeName))"
        case .dispatch: return "dispatch(\(e.codeName), \(e.label))"
        case .dispatchRejected: return "rejected(\(e.codeName), \(e.label), \(e.code2Name))"
        case .cycleEnter: return "enter"
        case .transduce: return "transduce(\(e.label))"
        case .effect: return "effect(\(e.codeName)" + (task.isEmpty ? ")" : ", \(task))")
        case .cycleLeave: return "leave(\(e.codeName))"
        case .taskSpawn: return "spawn(\(task), \(e.codeName))"
        case .taskJoin: return "join(\(task))"
        case .taskCancel: return "cancel(\(task), \(e.codeName))"
        case .taskSettle: return "settle(\(task), \(e.codeName)" + (e.label.isEmpty ? ")" : ", \(e.label))")
        case .requestResume: return "resume(\(e.codeName))"
        case .eventDropped: return "dropped(\(e.label), \(e.codeName))"
        case .traceContext: return "context(\(e.traceContext?.traceparent ?? "invalid"))"
        }
    }
}
