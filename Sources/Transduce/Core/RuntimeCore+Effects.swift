import Synchronization

// The effect interpreter, one for every path: synchronous, it runs an effect until it ends or
// meets an async action, and then returns a suspension; the async driver (the cycle's chain in a
// drain task) awaits the action and hands its result back to `resume`, which goes on where the
// effect stopped — inside any sequences around it.
extension RuntimeCore {
    /// What executing one effect led to.
    @usableFromInline
    enum Step {
        case next(T.Event)
        case settled
        case handedOff
        case aborted
        /// It met an async action: the cycle context's ``CycleContext/suspension`` says which,
        /// and how to go on once it has run. (Kept there, not in this case, so that the common
        /// steps stay small values the fast path copies inline.)
        case suspended
    }

    /// An async action the interpreter met, and how to go on once it has run: the sequences
    /// around it, innermost first, each at the element that holds the action.
    @usableFromInline
    struct Suspension {
        @usableFromInline
        let action: Effect.AsyncAction
        @usableFromInline
        let startedAt: UInt64
        @usableFromInline
        var frames: [SequenceFrame] = []

        @inlinable
        init(action: @escaping Effect.AsyncAction, startedAt: UInt64) {
            self.action = action
            self.startedAt = startedAt
        }
    }

    /// A sequence being executed: its effects, the element in progress, whether its last effect
    /// carries the cycle's waiters, and when it started (for its `effect` event).
    @usableFromInline
    struct SequenceFrame {
        @usableFromInline
        let effects: [Effect]
        @usableFromInline
        let index: Int
        @usableFromInline
        let carrying: Bool
        @usableFromInline
        let startedAt: UInt64

        @inlinable
        init(effects: [Effect], index: Int, carrying: Bool, startedAt: UInt64) {
            self.effects = effects
            self.index = index
            self.carrying = carrying
            self.startedAt = startedAt
        }
    }

    /// Executes `effect` without suspending, up to its first async action. `carrying`: the
    /// effect may hand the cycle's waiters to a task (the chain's effect, or a sequence's last).
    @inlinable
    func interpret(_ effect: Effect, carrying: Bool, _ context: inout CycleContext) -> Step {
        let kind = Self.kind(of: effect)
        // `.none` does nothing to time: its effect event says 0 and spares a clock read.
        let startedAt = context.instrument == nil || kind == .none ? 0 : MonotonicClock.now()
        // The task's name as the trace keeps it, only when recording: an optional of the id
        // itself (an existential) was copied and destroyed through its value witnesses.
        var taskName: EventLabel?
        let step: Step
        switch effect.kind {
        case .none:
            step = .settled
        case .event(let next):
            step = .next(next)
        case .action(let body):
            step = body(env).map(Step.next) ?? .settled
        case .asyncAction(let action):
            context.suspension = Suspension(action: action, startedAt: startedAt)
            return .suspended
        case .task(let spec):
            if context.instrument != nil { taskName = spec.id?.label }
            let handOff = carrying && context.followsChain
            let waiters = handOff ? context.waiters : []
            if handOff { context.waiters = [] }
            let policy = TaskPolicyKind(spec.option, inUniqueRequest: context.style == .uniqueRequest)
            addTask(spec, waiters: waiters, policy: policy, cycle: context.cycle)
            step = carrying ? .handedOff : .settled
        case .cancel(let id):
            if context.instrument != nil { taskName = id.label }
            cancelTask(.named(id), reason: .cancelEffect)
            step = .settled
        case .sequence(let effects):
            return sequence(effects, from: 0, carrying: carrying, startedAt: startedAt, &context)
        }
        emitEffect(kind, task: taskName, startedAt: startedAt, &context)
        return step
    }

    /// Executes `effects` from element `index` on; the sequence's step is its last effect's (the
    /// others' events are dropped), `aborted` when one aborts.
    @inlinable
    func sequence(
        _ effects: [Effect], from index: Int, carrying: Bool, startedAt: UInt64, _ context: inout CycleContext
    ) -> Step {
        var step = Step.settled
        var i = index
        while i < effects.count {
            let last = i == effects.count - 1
            step = interpret(effects[i], carrying: last && carrying, &context)
            if case .suspended = step {
                context.suspension!.frames.append(
                    SequenceFrame(effects: effects, index: i, carrying: carrying, startedAt: startedAt))
                return .suspended
            }
            if !last && !afterSequenceElement(step, &context) {
                step = .aborted
                break
            }
            i += 1
        }
        emitEffect(.sequence, task: nil, startedAt: startedAt, &context)
        return step
    }

    /// Goes on after `suspension`'s async action ended with `result`: its step, then the rest of
    /// each sequence around it, innermost first (`.suspended` again at the next async action).
    @inlinable
    func resume(
        _ suspension: Suspension, with result: Result<T.Event?, any Error>, _ context: inout CycleContext
    ) -> Step {
        var step: Step
        switch result {
        case .success(let next):
            // The lifecycle may have latched while the action was suspended.
            step = isActive ? (next.map(Step.next) ?? .settled) : .aborted
        case .failure(let error) where error is CancellationError:
            resumeWaiters(of: context, with: .failure(error))
            context.waiters = []
            step = .aborted
        case .failure(let error):
            latch(.failed, error: error)
            step = .aborted
        }
        emitEffect(.asyncAction, task: nil, startedAt: suspension.startedAt, &context)
        for (depth, frame) in suspension.frames.enumerated() {
            let last = frame.index == frame.effects.count - 1
            if !last {
                if afterSequenceElement(step, &context) {
                    step = sequence(
                        frame.effects, from: frame.index + 1, carrying: frame.carrying, startedAt: frame.startedAt, &context)
                    if case .suspended = step {
                        // The outer sequences stay as they were.
                        context.suspension!.frames += suspension.frames[(depth + 1)...]
                        return .suspended
                    }
                    continue
                }
                step = .aborted
            }
            emitEffect(.sequence, task: nil, startedAt: frame.startedAt, &context)
        }
        return step
    }

    /// After an effect of a sequence other than the last: its event is dropped (only the last
    /// effect's event chains on). `false` when the sequence must stop.
    @inlinable
    func afterSequenceElement(_ step: Step, _ context: inout CycleContext) -> Bool {
        switch step {
        case .aborted, .suspended: return false
        case .next(let dropped):
            if let instrument = context.instrument {
                emit(
                    .eventDropped(cycle: context.cycle, event: T.traceLabel(of: dropped), reason: .sequenceIntermediate),
                    instrument, payload: dropped)
            }
        case .settled, .handedOff: break
        }
        return isActive
    }

    @inlinable
    func emitEffect(_ kind: EffectKind, task: EventLabel?, startedAt: UInt64, _ context: inout CycleContext) {
        guard let instrument = context.instrument else { return }
        let now = MonotonicClock.now()
        emit(
            .effect(
                cycle: context.cycle, step: context.step, kind: kind, task: task,
                durationNanos: MonotonicClock.nanos(from: startedAt, to: now)),
            instrument, at: now)
    }

    /// Whether executing `effect` (carrying the cycle's waiters) hands them to a task: a `.task`,
    /// or a sequence whose last effect does.
    @inlinable
    static func carriesTask(_ effect: Effect) -> Bool {
        switch effect.kind {
        case .task: true
        case .sequence(let effects): effects.last.map(carriesTask) ?? false
        default: false
        }
    }

    @inlinable
    static func kind(of effect: Effect) -> EffectKind {
        switch effect.kind {
        case .none: .none
        case .event: .event
        case .action: .action
        case .asyncAction: .asyncAction
        case .task: .task
        case .cancel: .cancel
        case .sequence: .sequence
        }
    }
}
