import Synchronization

// The control plane's admissions: post, awaited dispatch, the queue and its back pressure, the
// re-entrancy check. Synchronous except for the awaited dispatch's wait.
extension RuntimeCore {
    /// Whether the instrument records right now, as the token the instrumentation points pass
    /// on. Asks through optional chaining, which borrows the instrument.
    @inlinable
    var recording: Recording? {
        instrument?.isRecording == true ? Recording() : nil
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

    /// Admits an awaited dispatch (the fast path's first half): one that does not come from a
    /// managed task and finds the gate idle and the queue empty claims the gate, in the same lock
    /// section that checks the lifecycle; any other must queue, as every dispatch of a managed task
    /// does. Synchronous and callable from any thread: the claim is made before the hop to the
    /// host, so a dispatch that arrives while the cycle runs (or waits for the host's isolation)
    /// sees the gate held and queues, and the trace shows its wait. `task` is the caller's
    /// ``callerTask``.
    @inlinable
    func admit(_ event: T.Event, style: DispatchStyle, task: UInt64?) throws -> Admitted {
        let start = try startDispatch(event, style: style)
        guard task == nil else { return .queue(start, task: task) }
        return try claimIdleGate(event, start)
    }

    /// Runs a claimed admission's cycle (the fast path's second half), on the host's isolation:
    /// synchronously, through `runInline` (the host's
    /// ``runInlineCycle(_:transduce:respond:continueInDrainTask:)``). No waiter exists unless the
    /// cycle must be waited for: an async action (the rest moves to a drain task) or a task that
    /// carries a request's waiter. The host calls it, lets go of itself (a waiting caller must not
    /// keep the host alive), and then, unless the answer is `finished`, awaits
    /// ``complete(_:_:style:isolation:)``.
    @inlinable
    func runClaimed(_ admission: InlineAdmission, runInline: (InlineAdmission) -> InlineOutcome) throws -> DispatchRest {
        switch runInline(admission) {
        case .finished(let result): return .finished(try result.get())
        case .waiting(let waiter): return .wait(waiter)
        }
    }

    /// Does what an admission left to do: waits for the waiter, or queues and waits.
    @inlinable
    func complete(
        _ admission: DispatchRest, _ event: T.Event, style: DispatchStyle, isolation: isolated (any Actor)? = #isolation
    ) async throws -> T.Response? {
        switch admission {
        case .finished(let response): return response
        case .wait(let waiter): return try await wait(for: waiter)
        case .queue(let start, let task): return try await enqueueAndWait(event, start, task: task)
        case .notAdmitted: return try await dispatch(event, style: style)
        }
    }

    /// Dispatches an awaited admission by queueing it (a managed task's dispatch, or one whose
    /// host is gone): the caller suspends until its waiter is resolved.
    @inlinable
    func dispatch(_ event: T.Event, style: DispatchStyle) async throws -> T.Response? {
        let start = try startDispatch(event, style: style)
        return try await enqueueAndWait(event, start, task: callerTask)
    }

    /// Numbers an awaited dispatch and reads the instrument once; throws
    /// ``RuntimeError/reentrantDispatch`` when the caller is this runtime's drain task (it would
    /// wait for its own gate).
    @inlinable
    func startDispatch(_ event: T.Event, style: DispatchStyle) throws -> DispatchStart {
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
        return DispatchStart(kind: kind, dispatch: dispatch, instrument: instrument, now: now)
    }

    /// Claims the idle gate for an inline cycle, or learns that the admission must queue, in one
    /// lock section; throws the refusal when the runtime has stopped.
    @inlinable
    func claimIdleGate(_ event: T.Event, _ start: DispatchStart) throws -> Admitted {
        try control.withLock { control in
            if let (error, reason) = refusal(fromTask: false) {
                if let instrument = start.instrument { rejected(start.dispatch, start.kind, event, reason, instrument) }
                throw error
            }
            guard control.gate.claimInline() else { return .queue(start, task: nil) }
            control.nextCycle += 1
            var enteredAt: UInt64 = 0
            // Under the lock, so that the trace's dispatch order is the order of acceptance.
            if let instrument = start.instrument {
                emitDispatch(
                    Admission(
                        event: event, style: start.kind, waiters: [], dispatch: start.dispatch, enqueuedAt: start.now,
                        origin: 0), depth: 1, instrument)
                enteredAt = emitEnter(
                    cycle: control.nextCycle, dispatch: start.dispatch, enqueuedAt: start.now, queueDepth: 0, instrument)
            }
            return .claimed(
                InlineAdmission(
                    event: event, style: start.kind, dispatch: start.dispatch, cycle: control.nextCycle,
                    enqueuedAt: start.now, enteredAt: enteredAt, recording: start.instrument != nil))
        }
    }

    /// Queues an awaited admission with a new waiter, and waits for it.
    @inlinable
    func enqueueAndWait(
        _ event: T.Event, _ start: DispatchStart, task: UInt64?, isolation: isolated (any Actor)? = #isolation
    ) async throws -> T.Response? {
        let waiter = ResponseWaiter(dispatch: start.dispatch, createdAt: start.now)
        waitersMade.wrappingAdd(1, ordering: .relaxed)
        let failure: (any Error)? = control.withLock { control in
            if let (error, reason) = refusal(fromTask: task != nil) {
                if let instrument = start.instrument { rejected(start.dispatch, start.kind, event, reason, instrument) }
                return error
            }
            enqueue(
                Admission(
                    event: event, style: start.kind, waiters: [waiter], dispatch: start.dispatch, enqueuedAt: start.now,
                    origin: task ?? 0), into: &control, instrument: start.instrument)
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
            try await withUnsafeThrowingContinuation { continuation in waiter.install(continuation) }
        } onCancel: {
            resume([Resumption(waiter: waiter, result: .failure(CancellationError()))])
        }
    }

    @inlinable
    func rejected(
        _ dispatch: UInt64, _ style: DispatchKind, _ event: T.Event, _ reason: RejectionReason,
        _ instrument: Recording
    ) {
        emit(
            .dispatchRejected(dispatch: dispatch, style: style, event: T.traceLabel(of: event), reason: reason), instrument,
            payload: event)
    }

    /// Appends to the queue, or to the overflow when the queue is full, and makes sure a drain
    /// runs: a new drain task, or, when `drainer` is given (a finishing managed task's handle),
    /// that task, which must then call the hooks' `drain` (the result says so). Call with the lock
    /// held.
    @discardableResult
    @inlinable
    func enqueue(
        _ admission: Admission, into control: inout Control, instrument: Recording?,
        drainer: Task<Void, Never>? = nil
    ) -> Bool {
        // The dispatch event is stamped with the time the wait (`cycleEnter`) and the latency
        // (`requestResume`) are measured from, so enter − dispatch is the printed wait exactly.
        // It is emitted on acceptance, into the queue or the overflow (which it then counts).
        let accepted = control.gate.accept(admission)
        if let instrument { emitDispatch(admission, depth: accepted.depth, instrument) }
        guard accepted.startDrain, let hooks = control.hooks else { return false }
        if let drainer {
            control.gate.drainTaskStarted(true)
            control.drainTask = drainer
            return true
        }
        let task = hooks.startDrain()  // nil: the host is gone
        if task != nil { drainTasksStarted.wrappingAdd(1, ordering: .relaxed) }
        control.gate.drainTaskStarted(task != nil)
        control.drainTask = task
        return false
    }

    @inlinable
    func emitDispatch(_ admission: Admission, depth: Int, _ instrument: Recording) {
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
