import Synchronization

// The compute plane: the drain task's loop, one cycle at a time on the host's isolation; the
// inline cycle of the fast path; the chain of effects of a cycle; moving an inline cycle that
// meets an async action to a drain task.
extension RuntimeCore {
    /// Runs queued admissions one cycle at a time until the queue is empty or the runtime stops.
    ///
    /// Runs in the drain task, on the host's isolation; `transduce` and `respond` touch the
    /// host's state.
    @inlinable
    func drain(
        transduce: @escaping (T.Event) -> Effect, respond: @escaping (T.Event) -> T.Response,
        isolation: isolated (any Actor) = #isolation
    ) async {
        setDrainTask(current: true)
        while let (next, instrument, enteredAt) = nextAdmission() {
            await runCycle(next, instrument: instrument, enteredAt: enteredAt, transduce: transduce, respond: respond)
        }
    }

    /// Takes the next admission for a cycle (its `cycleEnter` recorded), or ends the drain (under
    /// the lock, so a new drain can only start after this one has let go of the gate). With the
    /// instrument when it records and the entry time.
    @inlinable
    func nextAdmission() -> (Control.Next, Recording?, UInt64)? {
        control.withLock { control in
            let instrument = recording
            let now = instrument == nil ? 0 : MonotonicClock.now()
            var trace = trace(instrument)
            guard let next = control.next(now: now, trace: &trace) else {
                drainTaskBits.store(0, ordering: .releasing)
                return nil
            }
            return (next, instrument, now)
        }
    }

    /// What executing one effect led to.
    @usableFromInline
    enum Step {
        case next(T.Event)
        case settled
        case handedOff
        case aborted
    }

    @usableFromInline
    struct CycleContext {
        @usableFromInline
        let cycle: UInt64
        @usableFromInline
        let style: DispatchKind
        /// The instrument, when it was recording as the cycle began (read once per cycle).
        @usableFromInline
        let instrument: Recording?
        @usableFromInline
        var step = 0
        /// Request-style waiters still owned by the cycle.
        @usableFromInline
        var waiters: [ResponseWaiter]

        @inlinable
        init(cycle: UInt64, style: DispatchKind, instrument: Recording?, waiters: [ResponseWaiter]) {
            self.cycle = cycle
            self.style = style
            self.instrument = instrument
            self.waiters = waiters
        }

        /// Whether the caller waits for the whole chain, tasks included (not only this cycle).
        @inlinable
        var followsChain: Bool {
            switch style {
            case .request, .uniqueRequest, .taskRequest: true
            case .post, .send, .initial, .taskResponse: false
            }
        }
    }

    /// Runs one queued admission's cycle in the drain task.
    @inlinable
    func runCycle(
        _ next: Control.Next, instrument: Recording?, enteredAt: UInt64, transduce: @escaping (T.Event) -> Effect,
        respond: @escaping (T.Event) -> T.Response, isolation: isolated (any Actor) = #isolation
    ) async {
        let admission = next.admission
        if admission.style == .uniqueRequest { cancelAllTasks(reason: .uniqueRequest) }
        var context = CycleContext(cycle: next.cycle, style: admission.style, instrument: instrument, waiters: admission.waiters)
        await cycleLoop(admission.event, effect: nil, &context, enteredAt: enteredAt, transduce: transduce, respond: respond)
    }

    /// The chain of one cycle, from `start` (or from executing `pending`, the effect `start`
    /// produced), then the cycle's end: leave, and the waiters resumed after the gate is free.
    @inlinable
    func cycleLoop(
        _ start: T.Event, effect pending: Effect?, _ context: inout CycleContext, enteredAt: UInt64,
        transduce: (T.Event) -> Effect, respond: (T.Event) -> T.Response, isolation: isolated (any Actor) = #isolation
    ) async {
        var event = start
        var pendingEffect = pending
        var outcome = CycleOutcome.aborted
        var response: T.Response?
        chain: while true {
            let effect: Effect
            if let pending = pendingEffect {
                effect = pending
                pendingEffect = nil
            } else {
                guard mayTransduce(event, &context) else { break }
                effect = transduce(event)
            }
            // An effect without an async action runs without an async call (and its frame).
            let kind = Self.kind(of: effect)
            let step =
                (kind == .asyncAction || kind == .sequence) && Self.containsAsyncAction(effect)
                ? await execute(effect, carrying: true, &context) : executeSync(effect, kind, carrying: true, &context)
            switch step {
            case .next(let next):
                event = next
                context.step += 1
            case .settled:
                outcome = .settled
                if !context.waiters.isEmpty { response = respond(event) }
                break chain
            case .handedOff:
                outcome = .handedOff
                // Request waiters moved into the task; send-like waiters resolve at hand-off.
                if !context.waiters.isEmpty { response = respond(event) }
                break chain
            case .aborted:
                break chain
            }
        }
        control.withLock { $0.clearInflight() }
        emitLeave(outcome, &context, enteredAt: enteredAt)
        // Callers resume after the gate is released (the chart's `leave` before `resume`).
        if outcome != .aborted {
            resumeWaiters(of: context, with: .success(response))
        }
    }

    /// Resumes the waiters the cycle still owns with `result`, as resumed by the cycle.
    @inlinable
    func resumeWaiters(of context: CycleContext, with result: Result<T.Response?, any Error>) {
        resume(context.waiters.map { Resumption(waiter: $0, result: result, byCycle: context.cycle) })
    }

    /// Before each `transduce` of a chain: the lifecycle and step-limit checks, and the
    /// instrument. `false` when the chain must stop (the runtime stopped, or the chain ran away).
    @inlinable
    func mayTransduce(_ event: T.Event, _ context: inout CycleContext) -> Bool {
        guard isActive else { return false }
        if context.step >= stepLimit {
            latch(.failed, error: RuntimeError.runawayEventChain(event: T.traceLabel(of: event).description, limit: stepLimit))
            return false
        }
        if let instrument = context.instrument {
            emit(.transduce(cycle: context.cycle, step: context.step, event: T.traceLabel(of: event)), instrument, payload: event)
        }
        return true
    }

    @inlinable
    func emitLeave(_ outcome: CycleOutcome, _ context: inout CycleContext, enteredAt: UInt64) {
        guard let instrument = context.instrument else { return }
        let now = MonotonicClock.now()
        emit(
            .cycleLeave(
                cycle: context.cycle, outcome: outcome, steps: context.step + (outcome == .aborted ? 0 : 1),
                heldNanos: enteredAt == 0 ? 0 : now &- enteredAt), instrument, at: now)
    }

    // MARK: The fast path

    /// The rest of an inline cycle that met an async action, for a drain task to run.
    @usableFromInline
    struct InlineRest {
        @usableFromInline
        let event: T.Event
        @usableFromInline
        let effect: Effect
        @usableFromInline
        let context: CycleContext
        @usableFromInline
        let enteredAt: UInt64

        @inlinable
        init(event: T.Event, effect: Effect, context: CycleContext, enteredAt: UInt64) {
            self.event = event
            self.effect = effect
            self.context = context
            self.enteredAt = enteredAt
        }
    }

    /// Runs the cycle of an admission that claimed the idle gate, synchronously, on the host's
    /// isolation: transduce and every synchronous effect, the cycle's end, the gate's release,
    /// and the caller's result. A waiter is made only when the caller must wait: for a task that
    /// carries a request's waiter, or for the rest of the cycle when it meets an async action
    /// (which must not run on the caller's task: a cancelled caller or a stopped runtime would
    /// wait for it). `continueInDrainTask` gets that rest: the host passes it on to
    /// ``continueInDrainTask(_:transduce:respond:isolation:)`` with closures that may escape.
    @inlinable
    func runInlineCycle(
        _ admission: InlineAdmission, transduce: (T.Event) -> Effect, respond: (T.Event) -> T.Response,
        continueInDrainTask: (InlineRest) -> Void
    ) -> InlineOutcome {
        let instrument = admission.recording ? Recording() : nil
        if admission.style == .uniqueRequest { cancelAllTasks(reason: .uniqueRequest) }
        var context = CycleContext(cycle: admission.cycle, style: admission.style, instrument: instrument, waiters: [])
        var waiter: ResponseWaiter?
        var event = admission.event
        var outcome = CycleOutcome.aborted
        var response: T.Response?
        chain: while true {
            guard mayTransduce(event, &context) else { break }
            let effect = transduce(event)
            let kind = Self.kind(of: effect)
            let mayWait = kind == .task || kind == .asyncAction || kind == .sequence
            let asynchronous = mayWait && Self.containsAsyncAction(effect)
            if waiter == nil && mayWait && (asynchronous || (context.followsChain && Self.carriesTask(effect))) {
                let made = ResponseWaiter(dispatch: admission.dispatch, createdAt: admission.enqueuedAt)
                waitersMade.wrappingAdd(1, ordering: .relaxed)
                // Registered for the latch in the same lock section that checks the lifecycle:
                // a waiter made after a stop would never be failed by it.
                let registered = control.withLock { $0.attachInflight(made) }
                guard registered else { break chain }
                waiter = made
                context.waiters = [made]
            }
            if asynchronous, let waiter {
                continueInDrainTask(InlineRest(event: event, effect: effect, context: context, enteredAt: admission.enteredAt))
                return .waiting(waiter)
            }
            switch executeSync(effect, kind, carrying: true, &context) {
            case .next(let next):
                event = next
                context.step += 1
            case .settled:
                outcome = .settled
                response = respond(event)
                break chain
            case .handedOff:
                outcome = .handedOff
                // A request's waiter moved into the task; a send resolves at hand-off.
                if !(waiter != nil && context.waiters.isEmpty) { response = respond(event) }
                break chain
            case .aborted:
                break chain
            }
        }
        if waiter != nil { control.withLock { $0.clearInflight() } }
        emitLeave(outcome, &context, enteredAt: admission.enteredAt)
        releaseInlineGate()
        if let waiter {
            // Handed to a task, the waiter is the task's to resolve; otherwise it is resolved here.
            if outcome != .aborted {
                resumeWaiters(of: context, with: .success(response))
            }
            return .waiting(waiter)
        }
        let result: Result<T.Response?, any Error> = outcome == .aborted ? .failure(latchedError()) : .success(response)
        if let instrument, outcome != .aborted {
            emitResume(
                dispatch: admission.dispatch, createdAt: admission.enqueuedAt, result: result, byCycle: context.cycle, byTask: 0,
                instrument)
        }
        return .finished(result)
    }

    /// Ends an inline cycle: the gate goes back to idle, or to a drain task when admissions
    /// arrived meanwhile.
    @inlinable
    func releaseInlineGate() {
        control.withLock { control in
            if control.endInlineCycle() == .startTask { startDrainTask(&control) }
        }
    }

    /// The error a caller whose cycle was aborted by the runtime stopping gets: the failure's
    /// own error, or the stop's boundary error.
    @inlinable
    func latchedError() -> any Error {
        let lifecycle = self.lifecycle
        if lifecycle == .failed, let failure { return failure }
        return Self.boundaryError(lifecycle)
    }

    /// Moves the rest of an inline cycle (executing its effect and what follows) and the rest of
    /// the queue to a new drain task on the host's isolation; the caller goes back to waiting.
    @inlinable
    func continueInDrainTask(
        _ rest: InlineRest, transduce: @escaping (T.Event) -> Effect, respond: @escaping (T.Event) -> T.Response,
        isolation: isolated (any Actor) = #isolation
    ) {
        var moved = rest.context
        drainTasksStarted.wrappingAdd(1, ordering: .relaxed)
        let task = Task { [self] in
            _ = isolation
            setDrainTask(current: true)
            await cycleLoop(
                rest.event, effect: rest.effect, &moved, enteredAt: rest.enteredAt, transduce: transduce, respond: respond)
            await drain(transduce: transduce, respond: respond)
        }
        control.withLock { control in
            // The task cannot start before this returns: it needs the isolation this runs on.
            if !control.handInlineCycle(to: task) { task.cancel() }
        }
    }

    @inlinable
    static func containsAsyncAction(_ effect: Effect) -> Bool {
        switch effect.kind {
        case .asyncAction: true
        case .sequence(let effects): effects.contains(where: containsAsyncAction)
        default: false
        }
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

    // MARK: Effects

    /// Executes `effect`; only async actions (and sequences holding one) suspend.
    @inlinable
    func execute(
        _ effect: Effect, carrying: Bool, _ context: inout CycleContext, isolation: isolated (any Actor) = #isolation
    ) async -> Step {
        switch effect.kind {
        case .asyncAction(let body):
            let startedAt = context.instrument == nil ? 0 : MonotonicClock.now()
            let step: Step
            do {
                let next = try await body(env)
                // The lifecycle may have latched while the action was suspended.
                step = isActive ? (next.map(Step.next) ?? .settled) : .aborted
            } catch is CancellationError {
                resumeWaiters(of: context, with: .failure(CancellationError()))
                context.waiters = []
                step = .aborted
            } catch {
                latch(.failed, error: error)
                step = .aborted
            }
            emitEffect(.asyncAction, task: nil, startedAt: startedAt, &context)
            return step
        case .sequence(let effects) where Self.containsAsyncAction(effect):
            let startedAt = context.instrument == nil ? 0 : MonotonicClock.now()
            guard let last = effects.last else { return .settled }
            for effect in effects.dropLast() {
                guard afterSequenceElement(await execute(effect, carrying: false, &context), &context) else {
                    emitEffect(.sequence, task: nil, startedAt: startedAt, &context)
                    return .aborted
                }
            }
            let step = await execute(last, carrying: carrying, &context)
            emitEffect(.sequence, task: nil, startedAt: startedAt, &context)
            return step
        default:
            return executeSync(effect, Self.kind(of: effect), carrying: carrying, &context)
        }
    }

    /// Executes an effect that holds no async action, without suspending. `kind` is the
    /// effect's, computed once by the caller (each look at the effect's cases copies them).
    @inlinable
    func executeSync(_ effect: Effect, _ kind: EffectKind, carrying: Bool, _ context: inout CycleContext) -> Step {
        // `.none` does nothing to time: its effect event says 0 and spares a clock read.
        let startedAt = context.instrument == nil || kind == .none ? 0 : MonotonicClock.now()
        var taskName: TaskIdentifier?
        let step: Step
        switch effect.kind {
        case .none:
            step = .settled
        case .event(let next):
            step = .next(next)
        case .action(let body):
            step = body(env).map(Step.next) ?? .settled
        case .asyncAction:
            preconditionFailure("an async action is executed by execute(_:carrying:_:isolation:)")
        case .task(let spec):
            taskName = spec.id
            let handOff = carrying && context.followsChain
            let waiters = handOff ? context.waiters : []
            if handOff { context.waiters = [] }
            addTask(spec, waiters: waiters, unique: context.style == .uniqueRequest, cycle: context.cycle)
            step = carrying ? .handedOff : .settled
        case .cancel(let id):
            taskName = id
            cancelTask(.named(id), reason: .cancelEffect)
            step = .settled
        case .sequence(let effects):
            if let last = effects.last {
                var aborted = false
                for effect in effects.dropLast() {
                    guard afterSequenceElement(executeSync(effect, Self.kind(of: effect), carrying: false, &context), &context)
                    else {
                        aborted = true
                        break
                    }
                }
                step = aborted ? .aborted : executeSync(last, Self.kind(of: last), carrying: carrying, &context)
            } else {
                step = .settled
            }
        }
        emitEffect(kind, task: taskName, startedAt: startedAt, &context)
        return step
    }

    /// After an effect of a sequence other than the last: its event is dropped (only the last
    /// effect's event chains on). `false` when the sequence must stop.
    @inlinable
    func afterSequenceElement(_ step: Step, _ context: inout CycleContext) -> Bool {
        switch step {
        case .aborted: return false
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
    func emitEffect(_ kind: EffectKind, task: TaskIdentifier?, startedAt: UInt64, _ context: inout CycleContext) {
        guard let instrument = context.instrument else { return }
        let now = MonotonicClock.now()
        emit(
            .effect(
                cycle: context.cycle, step: context.step, kind: kind, task: task?.label,
                durationNanos: startedAt == 0 ? 0 : now &- startedAt),
            instrument, at: now)
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
