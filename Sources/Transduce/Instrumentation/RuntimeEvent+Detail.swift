extension RuntimeEvent {
    /// The kinds of the schema with their fields named: another view of the same flat event, for
    /// instruments and tests that match on kinds. Exhaustive on purpose: a new kind does not
    /// compile until every instrument that switches over it handles it.
    public enum Detail: Sendable, BitwiseCopyable {
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
        /// An effect was interpreted: its kind, the name of the task id it names, and how long it
        /// ran on the gate (actions).
        case effect(cycle: UInt64, step: Int, kind: EffectKind, task: EventLabel?, durationNanos: UInt64)
        /// The cycle released the gate after holding it `heldNanos` for `steps` steps.
        case cycleLeave(cycle: UInt64, outcome: CycleOutcome, steps: Int, heldNanos: UInt64)
        /// A managed task started in `cycle`, named by its id's label, carrying `waiters` request
        /// waiters and replacing task `replaces` (0 for none).
        case taskSpawn(task: UInt64, name: EventLabel?, policy: TaskPolicyKind, cycle: UInt64, waiters: Int, replaces: UInt64)
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
        /// Dispatch `dispatch` was made under `context` (recorded before its dispatch).
        case traceContext(dispatch: UInt64, context: TraceContext)
    }

    /// An event of `runtime` at `time` (nanoseconds of `CLOCK_MONOTONIC`) with the fields of
    /// `detail`. Inlined, so that building an event from a literal case is plain stores.
    @inlinable @inline(__always)
    public init(time: UInt64, runtime: RuntimeID, detail: Detail) {
        func label(_ l: EventLabel?) -> EventLabel { l ?? .empty }
        func clamp(_ n: Int) -> UInt32 { UInt32(clamping: n) }
        switch detail {
        case .runtimeStart(let transducer, let host, let capacity):
            self.init(kind: .runtimeStart, time: time, runtime: runtime)
            self.label = transducer
            self.label2 = host
            self.count = clamp(capacity)
        case .runtimeStop(let reason, let error):
            self.init(kind: .runtimeStop, time: time, runtime: runtime)
            self.code = reason.rawValue
            self.label = label(error)
        case .dispatch(let dispatch, let style, let event, let origin, let depth):
            self.init(kind: .dispatch, time: time, runtime: runtime)
            self.dispatch = dispatch
            self.code = style.rawValue
            self.label = event
            self.otherTask = origin
            self.count = clamp(depth)
        case .dispatchRejected(let dispatch, let style, let event, let reason):
            self.init(kind: .dispatchRejected, time: time, runtime: runtime)
            self.dispatch = dispatch
            self.code = style.rawValue
            self.label = event
            self.code2 = reason.rawValue
        case .cycleEnter(let cycle, let dispatch, let waited, let depth):
            self.init(kind: .cycleEnter, time: time, runtime: runtime)
            self.cycle = cycle
            self.dispatch = dispatch
            self.nanos = waited
            self.count = clamp(depth)
        case .transduce(let cycle, let step, let event):
            self.init(kind: .transduce, time: time, runtime: runtime)
            self.cycle = cycle
            self.step = clamp(step)
            self.label = event
        case .effect(let cycle, let step, let kind, let task, let duration):
            self.init(kind: .effect, time: time, runtime: runtime)
            self.cycle = cycle
            self.step = clamp(step)
            self.code = kind.rawValue
            self.label = label(task)
            self.nanos = duration
        case .cycleLeave(let cycle, let outcome, let steps, let held):
            self.init(kind: .cycleLeave, time: time, runtime: runtime)
            self.cycle = cycle
            self.code = outcome.rawValue
            self.step = clamp(steps)
            self.nanos = held
        case .taskSpawn(let task, let name, let policy, let cycle, let waiters, let replaces):
            self.init(kind: .taskSpawn, time: time, runtime: runtime)
            self.task = task
            self.label = label(name)
            self.code = policy.rawValue
            self.cycle = cycle
            self.count = clamp(waiters)
            self.otherTask = replaces
        case .taskJoin(let task, let dispatch):
            self.init(kind: .taskJoin, time: time, runtime: runtime)
            self.task = task
            self.dispatch = dispatch
        case .taskCancel(let task, let reason):
            self.init(kind: .taskCancel, time: time, runtime: runtime)
            self.task = task
            self.code = reason.rawValue
        case .taskSettle(let task, let outcome, let ended, let ran):
            self.init(kind: .taskSettle, time: time, runtime: runtime)
            self.task = task
            self.code = outcome.rawValue
            self.label = label(ended)
            self.nanos = ran
        case .requestResume(let dispatch, let outcome, let error, let byCycle, let byTask, let latency):
            self.init(kind: .requestResume, time: time, runtime: runtime)
            self.dispatch = dispatch
            self.code = outcome.rawValue
            self.label = label(error)
            self.cycle = byCycle
            self.task = byTask
            self.nanos = latency
        case .eventDropped(let cycle, let event, let reason):
            self.init(kind: .eventDropped, time: time, runtime: runtime)
            self.cycle = cycle
            self.label = event
            self.code = reason.rawValue
        case .traceContext(let dispatch, let context):
            self.init(kind: .traceContext, time: time, runtime: runtime)
            self.dispatch = dispatch
            self.cycle = context.traceIDHigh
            self.task = context.traceIDLow
            self.otherTask = context.spanID
            self.count = UInt32(context.flags)
        }
    }

    /// The event's fields, named by its kind. An optional label is `nil` when empty; a code out
    /// of its enum's range (only from a hand-made event) reads as that enum's first case.
    public var detail: Detail {
        func optional(_ l: EventLabel) -> EventLabel? { l.bits == 0 ? nil : l }
        func decode<E: RawRepresentable & CaseIterable>(_ raw: UInt8, as: E.Type) -> E where E.RawValue == UInt8 {
            E(rawValue: raw) ?? E.allCases.first!
        }
        let count = Int(self.count)
        let step = Int(self.step)
        switch kind {
        case .runtimeStart: return .runtimeStart(transducer: label, host: label2, queueCapacity: count)
        case .runtimeStop:
            return .runtimeStop(reason: decode(code, as: RuntimeLifecycle.self), error: optional(label))
        case .dispatch:
            return .dispatch(
                dispatch: dispatch, style: decode(code, as: DispatchKind.self), event: label, originTask: otherTask,
                queueDepth: count)
        case .dispatchRejected:
            return .dispatchRejected(
                dispatch: dispatch, style: decode(code, as: DispatchKind.self), event: label,
                reason: decode(code2, as: RejectionReason.self))
        case .cycleEnter: return .cycleEnter(cycle: cycle, dispatch: dispatch, waitedNanos: nanos, queueDepth: count)
        case .transduce: return .transduce(cycle: cycle, step: step, event: label)
        case .effect:
            return .effect(
                cycle: cycle, step: step, kind: decode(code, as: EffectKind.self), task: optional(label),
                durationNanos: nanos)
        case .cycleLeave:
            return .cycleLeave(cycle: cycle, outcome: decode(code, as: CycleOutcome.self), steps: step, heldNanos: nanos)
        case .taskSpawn:
            return .taskSpawn(
                task: task, name: optional(label), policy: decode(code, as: TaskPolicyKind.self), cycle: cycle,
                waiters: count, replaces: otherTask)
        case .taskJoin: return .taskJoin(task: task, dispatch: dispatch)
        case .taskCancel: return .taskCancel(task: task, reason: decode(code, as: TaskCancelReason.self))
        case .taskSettle:
            return .taskSettle(
                task: task, outcome: decode(code, as: TaskOutcome.self), label: optional(label), ranNanos: nanos)
        case .requestResume:
            return .requestResume(
                dispatch: dispatch, outcome: decode(code, as: ResumeOutcome.self), error: optional(label),
                byCycle: cycle, byTask: task, latencyNanos: nanos)
        case .eventDropped: return .eventDropped(cycle: cycle, event: label, reason: decode(code, as: DropReason.self))
        case .traceContext:
            return .traceContext(
                dispatch: dispatch,
                context: TraceContext(
                    unchecked: cycle, traceIDLow: task, spanID: otherTask, flags: UInt8(truncatingIfNeeded: count)))
        }
    }
}
