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

    /// The sink ``Control``'s transitions record into: the instrument, under the lock.
    @inlinable
    func trace(_ recording: Recording?) -> InstrumentSink<T> {
        InstrumentSink(core: self, isRecording: recording != nil)
    }

    /// Starts the drain task a transition asked for. Called with the lock held: it only creates
    /// the task (which cannot take the lock before this section ends), so that its handle is in
    /// the state before anything can stop the runtime.
    @inlinable
    func startDrainTask(_ control: inout Control) {
        let task = hooks?.startDrain()  // nil: the host is gone
        if task != nil { drainTasksStarted.wrappingAdd(1, ordering: .relaxed) }
        control.drainStarted(task)
    }

    /// Queues `admission` under the lock and starts the drain it asks for; throws the refusal.
    /// `fromTask`: made by a managed task, refused once that task is cancelled (read under the
    /// lock, where cancellation happens, so nothing a cancelled instance dispatches is queued).
    @inlinable
    func queue(_ admission: Admission, isPost: Bool, fromTask: Bool, recording: Recording?) throws {
        let admitted = control.withLock { control in
            var trace = trace(recording)
            let admitted = control.admit(
                admission, isPost: isPost, callerCancelled: fromTask && Task.isCancelled, trace: &trace)
            if case .queued(.startTask) = admitted { startDrainTask(&control) }
            return admitted
        }
        if case .rejected(let rejection) = admitted { throw Control.error(of: rejection, capacity: queueCapacity) }
    }

    /// Enqueues a post-style admission; never suspends.
    @inlinable
    func post(_ event: T.Event, style: DispatchKind) throws {
        let dispatch = nextDispatch.wrappingAdd(1, ordering: .relaxed).newValue
        let instrument = recording
        let now = instrument == nil ? 0 : MonotonicClock.now()
        let task = callerTask
        if let instrument, task == nil { emitTraceContext(of: dispatch, at: now, instrument) }
        try queue(
            Admission(event: event, style: style, waiters: [], dispatch: dispatch, enqueuedAt: now, origin: task ?? 0),
            isPost: true, fromTask: task != nil, recording: instrument)
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
        let start = try startDispatch(event, style: style, task: task)
        guard task == nil else { return .queue(start, task: task) }
        return try claimIdleGate(event, start)
    }

    /// Runs a claimed admission's cycle (the fast path's second half), on the host's isolation:
    /// synchronously, through ``runInlineCycle(_:transduce:respond:continueInDrainTask:)``. No
    /// waiter exists unless the cycle must be waited for: an async action (the rest moves to a
    /// drain task, through `continueInDrainTask`) or a task that carries a request's waiter. The
    /// host calls it, lets go of itself (a waiting caller must not keep the host alive), and
    /// then, unless the answer is `finished`, awaits ``complete(_:_:style:isolation:)``.
    @inline(__always)
    @inlinable
    func runClaimed(
        _ admission: InlineAdmission, transduce: (T.Event) -> Effect, respond: (T.Event) -> T.Response,
        continueInDrainTask: (InlineRest) -> Void
    ) throws -> DispatchRest {
        switch runInlineCycle(admission, transduce: transduce, respond: respond, continueInDrainTask: continueInDrainTask) {
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
        let task = callerTask
        let start = try startDispatch(event, style: style, task: task)
        return try await enqueueAndWait(event, start, task: task)
    }

    /// Numbers an awaited dispatch, reads the instrument once and records the caller's trace
    /// context (`task`: the caller's ``callerTask``); throws ``RuntimeError/reentrantDispatch``
    /// when the caller is this runtime's drain task (it would wait for its own gate).
    @inlinable
    func startDispatch(_ event: T.Event, style: DispatchStyle, task: UInt64?) throws -> DispatchStart {
        let kind: DispatchKind =
            switch style {
            case .send: .send
            case .request: .request
            case .uniqueRequest: .uniqueRequest
            }
        let dispatch = nextDispatch.wrappingAdd(1, ordering: .relaxed).newValue
        let instrument = recording
        let now = instrument == nil ? 0 : MonotonicClock.now()
        if let instrument, task == nil { emitTraceContext(of: dispatch, at: now, instrument) }
        if isComputeTask() {
            if let instrument {
                control.withLock { control in
                    var trace = trace(instrument)
                    control.reject(dispatch, kind, event, .reentrant, trace: &trace)
                }
            }
            throw RuntimeError.reentrantDispatch
        }
        return DispatchStart(kind: kind, dispatch: dispatch, instrument: instrument, now: now)
    }

    /// Records the ``TraceContext`` the caller of `dispatch` runs under, if one is set: before
    /// the dispatch, stamped with its time, so a reader has it when the dispatch comes.
    /// Costs a recording dispatch one atomic load until a context is first set in the process,
    /// then a task-local read. Only for dispatches from outside the runtime's managed tasks: a
    /// task's own dispatches belong to the request whose cycle started it (their `originTask`
    /// says so), whatever context the task inherited.
    @inlinable
    func emitTraceContext(of dispatch: UInt64, at now: UInt64, _ instrument: Recording) {
        guard let context = TraceContext.currentIfAny else { return }
        emit(.traceContext(dispatch: dispatch, context: context), instrument, at: now)
    }

    /// Claims the idle gate for an inline cycle, or learns that the admission must queue, in one
    /// lock section; throws the refusal when the runtime has stopped.
    @inlinable
    func claimIdleGate(_ event: T.Event, _ start: DispatchStart) throws -> Admitted {
        let (claimed, enteredAt) = control.withLock { control in
            // Under the lock, so that the trace's dispatch order is the order of acceptance.
            let enteredAt = start.instrument == nil ? 0 : MonotonicClock.now()
            var trace = trace(start.instrument)
            let claimed = control.claim(
                Admission(
                    event: event, style: start.kind, waiters: [], dispatch: start.dispatch, enqueuedAt: start.now, origin: 0),
                now: enteredAt, trace: &trace)
            return (claimed, enteredAt)
        }
        switch claimed {
        case .rejected(let rejection): throw Control.error(of: rejection, capacity: queueCapacity)
        case .queue: return .queue(start, task: nil)
        case .claimed(let cycle):
            return .claimed(
                InlineAdmission(
                    event: event, style: start.kind, dispatch: start.dispatch, cycle: cycle, enqueuedAt: start.now,
                    enteredAt: enteredAt, recording: start.instrument != nil))
        }
    }

    /// Queues an awaited admission with a new waiter, and waits for it.
    @inlinable
    func enqueueAndWait(
        _ event: T.Event, _ start: DispatchStart, task: UInt64?, isolation: isolated (any Actor)? = #isolation
    ) async throws -> T.Response? {
        let waiter = ResponseWaiter(dispatch: start.dispatch, createdAt: start.now)
        waitersMade.wrappingAdd(1, ordering: .relaxed)
        try queue(
            Admission(
                event: event, style: start.kind, waiters: [waiter], dispatch: start.dispatch, enqueuedAt: start.now,
                origin: task ?? 0), isPost: false, fromTask: task != nil, recording: start.instrument)
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
