import Synchronization

// The compute plane: the drain task's loop, one cycle at a time on the host's isolation; the
// chain of one cycle (one loop, synchronous, for both paths); the inline cycle of the fast path,
// and moving one that meets an async action to a drain task.
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
        observer?.mayBeQuiet()
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
        /// The managed task the cycle's event came from (0: from outside), for the observer.
        @usableFromInline
        var origin: UInt64 = 0
        /// Request-style waiters still owned by the cycle.
        @usableFromInline
        var waiters: [ResponseWaiter]
        /// The async action the interpreter stopped at (``Step/suspended``), until the driver
        /// takes it.
        @usableFromInline
        var suspension: Suspension?
        /// The caller runs the cycle inline and has no waiter (yet): it takes the response
        /// itself, and gets a waiter for dispatch ``inlineDispatch`` only if it must wait.
        @usableFromInline
        var callerAnswersItself = false
        @usableFromInline
        var inlineDispatch: UInt64 = 0
        @usableFromInline
        var inlineCreatedAt: UInt64 = 0
        /// The waiter made for the inline caller, if it had to wait.
        @usableFromInline
        var inlineWaiter: ResponseWaiter?

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

        /// Whether anyone takes the cycle's response.
        @inlinable
        var wantsResponse: Bool { callerAnswersItself || !waiters.isEmpty }
    }

    /// How a cycle's chain stopped.
    @usableFromInline
    enum ChainEnd {
        /// The cycle ended, with the response when someone takes it.
        case ended(CycleOutcome, T.Response?)
        /// It met an async action: await it, then go on with
        /// ``chain(resuming:with:_:transduce:respond:)``.
        case suspended(ChainSuspension)
    }

    /// A chain stopped at an async action: the action's suspension and the event whose effect
    /// it belongs to (the response is computed from the chain's last event).
    @usableFromInline
    struct ChainSuspension {
        @usableFromInline
        let suspension: Suspension
        @usableFromInline
        let event: T.Event

        @inlinable
        init(suspension: Suspension, event: T.Event) {
            self.suspension = suspension
            self.event = event
        }
    }

    /// The chain of one cycle, synchronously, from transducing `event`, until the cycle ends or
    /// meets an async action.
    @inline(__always)
    @inlinable
    func chain(
        from event: T.Event, _ context: inout CycleContext, transduce: (T.Event) -> Effect, respond: (T.Event) -> T.Response
    ) -> ChainEnd {
        chain(event, nil, &context, transduce: transduce, respond: respond)
    }

    /// Goes on with a chain after its async action ended with `result`.
    @inlinable
    func chain(
        resuming stopped: ChainSuspension, with result: Result<T.Event?, any Error>, _ context: inout CycleContext,
        transduce: (T.Event) -> Effect, respond: (T.Event) -> T.Response
    ) -> ChainEnd {
        let step = resume(stopped.suspension, with: result, &context)
        return chain(stopped.event, step, &context, transduce: transduce, respond: respond)
    }

    /// The one cycle loop: from `first` (the step of `event`'s effect; `nil`: transduce `event`
    /// first), transduce each chained event and interpret its effect until the cycle ends or
    /// suspends. Always inlined: the fast path would otherwise pay a call and its frame.
    @inline(__always)
    @inlinable
    func chain(
        _ event: T.Event, _ first: Step?, _ context: inout CycleContext, transduce: (T.Event) -> Effect,
        respond: (T.Event) -> T.Response
    ) -> ChainEnd {
        var event = event
        var step: Step
        if let first {
            step = first
        } else {
            guard mayTransduce(event, &context) else { return .ended(.aborted, nil) }
            let effect = transduce(event)
            observe(event, &context)
            step = interpretChained(effect, &context)
        }
        while true {
            switch step {
            case .next(let next):
                event = next
                context.step += 1
                guard mayTransduce(event, &context) else { return .ended(.aborted, nil) }
                let effect = transduce(event)
                observe(event, &context)
                step = interpretChained(effect, &context)
            case .settled:
                return .ended(.settled, context.wantsResponse ? respond(event) : nil)
            case .handedOff:
                // Request waiters moved into the task; send-like waiters resolve at hand-off.
                return .ended(.handedOff, context.wantsResponse ? respond(event) : nil)
            case .aborted:
                return .ended(.aborted, nil)
            case .suspended:
                let suspension = context.suspension!
                context.suspension = nil
                return .suspended(ChainSuspension(suspension: suspension, event: event))
            }
        }
    }

    /// Tells the observer, if any, that `event` was transduced (its state committed).
    @inline(__always)
    @inlinable
    func observe(_ event: T.Event, _ context: inout CycleContext) {
        guard let observer, let state = hooks?.state() else { return }
        observer.transduced(
            event, state: state,
            ObservedStep(cycle: context.cycle, step: context.step, style: context.style, origin: context.origin))
    }

    /// Interprets the effect of a chain's event. An inline caller without a waiter gets one
    /// first when the effect hands a request's waiters to a task.
    @inline(__always)
    @inlinable
    func interpretChained(_ effect: Effect, _ context: inout CycleContext) -> Step {
        if context.callerAnswersItself && context.followsChain && Self.carriesTask(effect) {
            guard makeInlineWaiter(&context) else { return .aborted }
        }
        return interpret(effect, carrying: true, &context)
    }

    /// Makes the inline caller's waiter, registered for the latch in the same lock section that
    /// checks the lifecycle (a waiter made after a stop would never be failed by it); `false`
    /// when the runtime has stopped.
    @inlinable
    func makeInlineWaiter(_ context: inout CycleContext) -> Bool {
        let made = ResponseWaiter(dispatch: context.inlineDispatch, createdAt: context.inlineCreatedAt)
        waitersMade.wrappingAdd(1, ordering: .relaxed)
        guard control.withLock({ $0.attachInflight(made) }) else { return false }
        context.inlineWaiter = made
        context.waiters = [made]
        context.callerAnswersItself = false
        return true
    }

    /// Runs one queued admission's cycle in the drain task: the chain, awaiting each async
    /// action it meets, then the cycle's end.
    @inlinable
    func runCycle(
        _ next: Control.Next, instrument: Recording?, enteredAt: UInt64, transduce: @escaping (T.Event) -> Effect,
        respond: @escaping (T.Event) -> T.Response, isolation: isolated (any Actor) = #isolation
    ) async {
        let admission = next.admission
        var context = beginCycle(next.cycle, style: admission.style, instrument: instrument, waiters: admission.waiters)
        context.origin = admission.origin
        let end = chain(from: admission.event, &context, transduce: transduce, respond: respond)
        await finishCycle(end, &context, enteredAt: enteredAt, transduce: transduce, respond: respond)
    }

    /// A cycle's start, in a drain task or on the caller's own task alike: a `uniqueRequest`
    /// cycle first cancels every live task (it overrides every policy), then the cycle's context.
    @inlinable
    func beginCycle(_ cycle: UInt64, style: DispatchKind, instrument: Recording?, waiters: [ResponseWaiter]) -> CycleContext {
        if style == .uniqueRequest { cancelAllTasks(reason: .uniqueRequest) }
        return CycleContext(cycle: cycle, style: style, instrument: instrument, waiters: waiters)
    }

    /// Drives a chain to its end — awaiting each async action on the host's isolation, with the
    /// gate held — then ends the cycle: leave, and the waiters resumed after the gate is free.
    @inlinable
    func finishCycle(
        _ end: ChainEnd, _ context: inout CycleContext, enteredAt: UInt64, transduce: (T.Event) -> Effect,
        respond: (T.Event) -> T.Response, isolation: isolated (any Actor) = #isolation
    ) async {
        var end = end
        while case .suspended(let stopped) = end {
            let result: Result<T.Event?, any Error>
            do { result = .success(try await stopped.suspension.action(env)) } catch { result = .failure(error) }
            end = chain(resuming: stopped, with: result, &context, transduce: transduce, respond: respond)
        }
        guard case .ended(let outcome, let response) = end else { return }
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
        // The time is read before the lifecycle, and a stop publishes the lifecycle before it
        // reads its own (``latch(_:error:)``): a transduce that still saw the runtime active is
        // stamped before its stop, however long this thread is preempted before it records.
        let now = context.instrument == nil ? 0 : MonotonicClock.now()
        guard isActive else { return false }
        if context.step >= stepLimit {
            latch(.failed, error: RuntimeError.runawayEventChain(event: T.traceLabel(of: event).description, limit: stepLimit))
            return false
        }
        if let instrument = context.instrument {
            emit(
                .transduce(cycle: context.cycle, step: context.step, event: T.traceLabel(of: event)), instrument, at: now,
                payload: event)
        }
        return true
    }

    @inlinable
    func emitLeave(_ outcome: CycleOutcome, _ context: inout CycleContext, enteredAt: UInt64) {
        guard let instrument = context.instrument else { return }
        let now = MonotonicClock.now()
        let leave = RuntimeEvent.Detail.cycleLeave(
            cycle: context.cycle, outcome: outcome, steps: context.step + (outcome == .aborted ? 0 : 1),
            heldNanos: MonotonicClock.nanos(from: enteredAt, to: now))
        if capturesStates, let state = hooks?.state() {
            self.instrument?.record(RuntimeEvent(time: now, runtime: id, detail: leave), state: state)
        } else {
            emit(leave, instrument, at: now)
        }
    }

    // MARK: The fast path

    /// The rest of an inline cycle that met an async action, for a drain task to run.
    @usableFromInline
    struct InlineRest {
        @usableFromInline
        let stopped: ChainSuspension
        @usableFromInline
        let context: CycleContext
        @usableFromInline
        let enteredAt: UInt64

        @inlinable
        init(stopped: ChainSuspension, context: CycleContext, enteredAt: UInt64) {
            self.stopped = stopped
            self.context = context
            self.enteredAt = enteredAt
        }
    }

    /// Runs the cycle of an admission that claimed the idle gate, synchronously, on the host's
    /// isolation: the chain (the same loop as a drain task's), the cycle's end, the gate's
    /// release, and the caller's result. A waiter is made only when the caller must wait: for a
    /// task that carries a request's waiter, or for the rest of the cycle when it meets an async
    /// action (which must not run on the caller's task: a cancelled caller or a stopped runtime
    /// would wait for it). `continueInDrainTask` gets that rest: the host passes it on to
    /// ``continueInDrainTask(_:transduce:respond:isolation:)`` with closures that may escape.
    @inlinable
    func runInlineCycle(
        _ admission: InlineAdmission, transduce: (T.Event) -> Effect, respond: (T.Event) -> T.Response,
        continueInDrainTask: (InlineRest) -> Void
    ) -> InlineOutcome {
        let instrument = admission.recording ? Recording() : nil
        var context = beginCycle(admission.cycle, style: admission.style, instrument: instrument, waiters: [])
        context.callerAnswersItself = true
        context.inlineDispatch = admission.dispatch
        context.inlineCreatedAt = admission.enqueuedAt
        var end = chain(from: admission.event, &context, transduce: transduce, respond: respond)
        if case .suspended(let stopped) = end {
            if !context.callerAnswersItself || makeInlineWaiter(&context) {
                continueInDrainTask(InlineRest(stopped: stopped, context: context, enteredAt: admission.enteredAt))
                return .waiting(context.inlineWaiter!)
            }
            end = .ended(.aborted, nil)
        }
        guard case .ended(let outcome, let response) = end else { preconditionFailure("the chain ended") }
        let waiter = context.inlineWaiter
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
        // Aborted too: no waiter of this caller's exists for the stop to fail and record, so
        // its resume with the stop's error is recorded here (or the trace would leave it waiting).
        if let instrument {
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
        observer?.mayBeQuiet()
    }

    /// The error a caller whose cycle was aborted by the runtime stopping gets: the failure's
    /// own error, or the stop's boundary error.
    @inlinable
    func latchedError() -> any Error {
        let lifecycle = self.lifecycle
        if lifecycle == .failed, let failure { return failure }
        return Self.boundaryError(lifecycle)
    }

    /// Moves the rest of an inline cycle (awaiting its async action and what follows) and the
    /// rest of the queue to a new drain task on the host's isolation; the caller goes back to
    /// waiting.
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
            await finishCycle(.suspended(rest.stopped), &moved, enteredAt: rest.enteredAt, transduce: transduce, respond: respond)
            await drain(transduce: transduce, respond: respond)
        }
        control.withLock { control in
            // The task cannot start before this returns: it needs the isolation this runs on.
            if !control.handInlineCycle(to: task) { task.cancel() }
        }
    }
}
