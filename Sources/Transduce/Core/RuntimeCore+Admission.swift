import Synchronization

// The control plane's admissions: post, awaited dispatch, the queue and its back pressure, the
// re-entrancy check. Synchronous except for the awaited dispatch's wait.
extension RuntimeCore {
    @inlinable
    var recording: (any RuntimeInstrument)? {
        if let instrument, instrument.isRecording { return instrument }
        return nil
    }

    /// The managed task of this runtime that the caller runs in, if any. The task-local read
    /// costs a lookup, so it is skipped while no managed task body of this runtime runs.
    @inlinable
    var callerTask: UInt64? {
        guard runningTasks.load(ordering: .acquiring) != 0 else { return nil }
        guard let context = ManagedTaskContext.value, context.runtime == id else { return nil }
        return context.task
    }

    /// Why an admission is refused right now, or `nil`. Call with the lock held: `.cancel`
    /// cancels tasks under it, so once a task instance is cancelled nothing it dispatches enters
    /// the queue.
    @inlinable
    func refusal(fromTask: Bool) -> (error: any Error, reason: RejectionReason)? {
        let lifecycle = self.lifecycle
        if lifecycle != .active { return (Self.boundaryError(lifecycle), Self.rejection(lifecycle)) }
        if fromTask && Task.isCancelled { return (CancellationError(), .cancelled) }
        return nil
    }

    /// Enqueues a post-style admission; never suspends.
    @inlinable
    func post(_ event: T.Event, style: DispatchKind) throws {
        let dispatch = nextDispatch.wrappingAdd(1, ordering: .relaxed).newValue
        let instrument = recording
        let now = instrument == nil ? 0 : MonotonicClock.now()
        let task = callerTask
        let failure: (any Error)? = control.withLock { control in
            if let (error, reason) = refusal(fromTask: task != nil) {
                if let instrument { rejected(dispatch, style, event, reason, instrument) }
                return error
            }
            if control.gate.refusesPost {
                if let instrument { rejected(dispatch, style, event, .queueFull, instrument) }
                return RuntimeError.queueFull(capacity: queueCapacity)
            }
            enqueue(
                Admission(event: event, style: style, waiters: [], dispatch: dispatch, enqueuedAt: now, origin: task ?? 0),
                into: &control, instrument: instrument)
            return nil
        }
        if let failure { throw failure }
    }

    /// Dispatches an awaited admission: into an idle gate it runs the cycle at once (the fast
    /// path), otherwise it is queued and the caller suspends until its waiter is resolved.
    ///
    /// The fast path: an awaited dispatch from outside a managed task that finds the gate idle
    /// and the queue empty claims the gate in the same lock section that checks the lifecycle,
    /// runs its cycle synchronously on the host's isolation (``runInlineCycle``) and returns the
    /// response directly. No waiter exists unless the cycle must be waited for: an async action
    /// (the rest moves to a drain task) or a task that carries a request's waiter.
    ///
    /// `onHost`: the caller already runs on the host's isolation (`EffectObservable.send` on the
    /// main actor) and passes the host's cycle runner, which the fast path then calls without any
    /// hop.
    @inlinable
    func dispatch(
        _ event: T.Event, style: DispatchStyle, onHost: ((InlineAdmission) -> InlineOutcome)? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> T.Response? {
        let kind: DispatchKind =
            switch style {
            case .send: .send
            case .request: .request
            case .uniqueRequest: .uniqueRequest
            }
        let dispatch = nextDispatch.wrappingAdd(1, ordering: .relaxed).newValue
        let instrument = recording
        let now = instrument == nil ? 0 : MonotonicClock.now()
        if isComputeTask() {
            if let instrument { control.withLock { _ in rejected(dispatch, kind, event, .reentrant, instrument) } }
            throw RuntimeError.reentrantDispatch
        }
        let task = callerTask
        if task == nil, let runInline {
            // Claim the idle gate, or learn that the admission must queue (nil: refused).
            let claim: InlineClaim = control.withLock { control in
                if let (error, reason) = refusal(fromTask: false) {
                    if let instrument { rejected(dispatch, kind, event, reason, instrument) }
                    return .refused(error)
                }
                guard control.gate.claimInline() else { return .queue }
                control.nextCycle += 1
                // Under the lock, so that the trace's dispatch order is the order of acceptance.
                if let instrument {
                    emitDispatch(
                        Admission(event: event, style: kind, waiters: [], dispatch: dispatch, enqueuedAt: now, origin: 0),
                        depth: 1, instrument)
                    let enteredAt = emitEnter(
                        cycle: control.nextCycle, dispatch: dispatch, enqueuedAt: now, queueDepth: 0, instrument)
                    return .claimed(control.nextCycle, enteredAt)
                }
                return .claimed(control.nextCycle, 0)
            }
            switch claim {
            case .refused(let error):
                throw error
            case .claimed(let cycle, let enteredAt):
                let admission = InlineAdmission(
                    event: event, style: kind, dispatch: dispatch, cycle: cycle, enqueuedAt: now, enteredAt: enteredAt,
                    recording: instrument != nil)
                let outcome: InlineOutcome
                if let onHost { outcome = onHost(admission) } else { outcome = await runInline(admission) }
                switch outcome {
                case .finished(let result): return try result.get()
                case .waiting(let waiter): return try await wait(for: waiter)
                }
            case .queue:
                break
            }
        }
        let waiter = ResponseWaiter(dispatch: dispatch, createdAt: now)
        waitersMade.wrappingAdd(1, ordering: .relaxed)
        let failure: (any Error)? = control.withLock { control in
            if let (error, reason) = refusal(fromTask: task != nil) {
                if let instrument { rejected(dispatch, kind, event, reason, instrument) }
                return error
            }
            enqueue(
                Admission(event: event, style: kind, waiters: [waiter], dispatch: dispatch, enqueuedAt: now, origin: task ?? 0),
                into: &control, instrument: instrument)
            return nil
        }
        if let failure { throw failure }
        return try await wait(for: waiter)
    }

    /// Suspends until `waiter` is resolved. Caller cancellation gives up only the wait; the
    /// admission stays queued.
    @inlinable
    func wait(for waiter: ResponseWaiter, isolation: isolated (any Actor)? = #isolation) async throws -> T.Response? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in waiter.install(continuation) }
        } onCancel: {
            resume([Resumption(waiter: waiter, result: .failure(CancellationError()))])
        }
    }

    @inlinable
    func rejected(
        _ dispatch: UInt64, _ style: DispatchKind, _ event: T.Event, _ reason: RejectionReason,
        _ instrument: any RuntimeInstrument
    ) {
        emit(
            .dispatchRejected(dispatch: dispatch, style: style, event: T.traceLabel(of: event), reason: reason), instrument,
            payload: event)
    }

    /// Appends to the queue, or to the overflow when the queue is full, and makes sure a drain
    /// runs. Call with the lock held.
    @inlinable
    func enqueue(_ admission: Admission, into control: inout Control, instrument: (any RuntimeInstrument)?) {
        // The dispatch event is stamped with the time the wait (`cycleEnter`) and the latency
        // (`requestResume`) are measured from, so enter − dispatch is the printed wait exactly.
        // It is emitted on acceptance, into the queue or the overflow (which it then counts).
        let accepted = control.gate.accept(admission)
        if let instrument { emitDispatch(admission, depth: accepted.depth, instrument) }
        guard accepted.startDrain, let hooks = control.hooks else { return }
        let task = hooks.startDrain()  // nil: the host is gone
        control.gate.drainTaskStarted(task != nil)
        control.drainTask = task
    }

    @inlinable
    func emitDispatch(_ admission: Admission, depth: Int, _ instrument: any RuntimeInstrument) {
        emit(
            .dispatch(
                dispatch: admission.dispatch, style: admission.style, event: T.traceLabel(of: admission.event),
                originTask: admission.origin, queueDepth: depth), instrument, at: admission.enqueuedAt,
            payload: admission.event)
    }

    /// Whether the caller is the task that runs this runtime's drain (an awaited dispatch from
    /// it would wait for its own gate). One atomic load while no drain task runs.
    @inlinable
    func isComputeTask() -> Bool {
        let drain = drainTaskBits.load(ordering: .acquiring)
        guard drain != 0 else { return false }
        return Self.currentTaskBits() == drain
    }

    /// The current task's identity as bits (0 outside a task), compared, never dereferenced.
    @inlinable
    static func currentTaskBits() -> UInt {
        withUnsafeCurrentTask { current in current.map { unsafeBitCast($0, to: UInt.self) } ?? 0 }
    }

    /// Marks the current task as the drain task (or none), for ``isComputeTask()``.
    @inlinable
    func setDrainTask(current: Bool) {
        drainTaskBits.store(current ? Self.currentTaskBits() : 0, ordering: .releasing)
    }
}
