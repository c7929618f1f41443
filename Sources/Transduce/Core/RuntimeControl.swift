/// Where ``RuntimeControl`` puts the trace events its transitions decide, in the order it decides
/// them: the shell's sink records them to the instrument while it holds the control lock (so the
/// trace's order is the order of the transitions); a test's sink keeps them, to assert the trace a
/// transition produces without tasks or threads.
///
/// A sink parameter rather than a returned list of events: a list would allocate on every
/// recorded transition of the fast path; the sink is specialized away.
@usableFromInline
protocol ControlTraceSink<Event> {
    associatedtype Event
    /// Whether events are wanted; when `false` the machine builds none (labels cost).
    var isRecording: Bool { get }
    /// Records `detail`, stamped `time` (0: now), with the transducer event it describes, if any.
    mutating func record(_ detail: RuntimeEvent.Detail, at time: UInt64, payload: Event?)
}

/// The runtime's control plane as one value: the lifecycle latch, the gate (its holder, the
/// queue and its overflow), the waiters of the cycle in flight, the task registry and the cycle
/// counter. Pure and synchronous, in the manner of swift-async-algorithms' channel state machine:
/// each transition changes the state, records the trace events it decides into the sink it is
/// given, and returns what the shell (``RuntimeCore``, which holds it under its lock) must do —
/// which waiters to resume, which task handles to cancel, whether to start a drain. It starts no
/// task, resumes nothing and reads no clock: times come in as arguments.
///
/// Generic over the waiter and the task handle so that its tests use plain values.
@usableFromInline
struct RuntimeControl<T: Transducer, Waiter: ControlWaiter, Handle: TaskHandle> {
    /// An accepted admission waiting for its cycle.
    @usableFromInline
    struct Admission {
        @usableFromInline
        var event: T.Event
        @usableFromInline
        var style: DispatchKind
        @usableFromInline
        var waiters: [Waiter]
        @usableFromInline
        var dispatch: UInt64
        @usableFromInline
        var enqueuedAt: UInt64
        @usableFromInline
        var origin: UInt64

        @inlinable
        init(event: T.Event, style: DispatchKind, waiters: [Waiter], dispatch: UInt64, enqueuedAt: UInt64, origin: UInt64) {
            self.event = event
            self.style = style
            self.waiters = waiters
            self.dispatch = dispatch
            self.enqueuedAt = enqueuedAt
            self.origin = origin
        }
    }

    /// A waiter to resume once the lock is released, with what and by whom.
    @usableFromInline
    struct Resumption {
        @usableFromInline
        var waiter: Waiter
        @usableFromInline
        var result: Result<T.Response?, any Error>
        @usableFromInline
        var byCycle: UInt64 = 0
        @usableFromInline
        var byTask: UInt64 = 0

        @inlinable
        init(waiter: Waiter, result: Result<T.Response?, any Error>, byCycle: UInt64 = 0, byTask: UInt64 = 0) {
            self.waiter = waiter
            self.result = result
            self.byCycle = byCycle
            self.byTask = byTask
        }
    }

    @usableFromInline
    typealias Tasks = TaskRegistry<Waiter, Handle>

    /// What the shell must do about the gate after an admission was accepted.
    @usableFromInline
    enum Drain: Equatable {
        /// Nothing: a holder will reach the admission.
        case none
        /// The gate was idle: start a drain task and hand its handle to ``drainStarted(_:)``.
        case startTask
        /// The gate was idle and the finishing task that made the admission holds it now: that
        /// task must drain it (a hop to the host, not a new task).
        case drainInCaller
    }

    /// How an admission was taken.
    @usableFromInline
    enum Admit: Equatable {
        /// Refused (the runtime stopped, the caller's task was cancelled, or a full queue refused
        /// a post): nothing was queued; the trace has its `dispatchRejected`.
        case rejected(Rejection)
        /// Queued (or put in the overflow); the trace has its `dispatch`.
        case queued(Drain)
    }

    /// Why an admission was refused.
    @usableFromInline
    enum Rejection: Equatable {
        case stopped(RuntimeLifecycle)
        case callerCancelled
        case queueFull
        /// An awaited dispatch from the runtime's own drain task (it would wait on itself).
        case reentrant
    }

    /// What a cycle starting from the queue gets.
    @usableFromInline
    struct Next {
        @usableFromInline
        var admission: Admission
        @usableFromInline
        var cycle: UInt64
        /// Admissions still queued behind it.
        @usableFromInline
        var left: Int

        @inlinable
        init(admission: Admission, cycle: UInt64, left: Int) {
            self.admission = admission
            self.cycle = cycle
            self.left = left
        }
    }

    /// How an awaited dispatch's claim of the gate went.
    @usableFromInline
    enum Claim: Equatable {
        /// It holds the gate for cycle `cycle`, which its caller runs inline.
        case claimed(cycle: UInt64)
        /// The gate is held or admissions wait: it must queue.
        case queue
        case rejected(Rejection)
    }

    /// What a stop (``stop(_:error:trace:)``) leaves the shell to do.
    @usableFromInline
    struct Stopped {
        /// Every waiter to fail, in the order of the trace: the cycle's in flight, the tasks',
        /// the queued admissions'.
        @usableFromInline
        var resumptions: [Resumption]
        /// The live tasks' handles and the drain task's, to cancel.
        @usableFromInline
        var cancel: [Handle]

        @inlinable
        init(resumptions: [Resumption], cancel: [Handle]) {
            self.resumptions = resumptions
            self.cancel = cancel
        }
    }

    @usableFromInline
    private(set) var lifecycle = RuntimeLifecycle.active
    /// The error latched by a failure.
    @usableFromInline
    private(set) var failure: (any Error)?
    @usableFromInline
    private(set) var gate: GateStateMachine<Admission, Handle>
    /// Waiters of the cycle in flight, so a stop can fail them mid-action.
    @usableFromInline
    private(set) var inflight: [Waiter] = []
    @usableFromInline
    private(set) var tasks = Tasks()
    @usableFromInline
    private(set) var lastCycle: UInt64 = 0

    @inlinable
    init(queueCapacity: Int) { gate = GateStateMachine(capacity: queueCapacity) }

    @inlinable
    var isActive: Bool { lifecycle == .active }

    // MARK: Admissions

    /// Why an admission must be refused now, or `nil`. `callerCancelled`: it comes from a managed
    /// task that was cancelled (once cancelled, nothing it dispatches enters the queue).
    @inlinable
    func refusal(callerCancelled: Bool) -> Rejection? {
        if lifecycle != .active { return .stopped(lifecycle) }
        if callerCancelled { return .callerCancelled }
        return nil
    }

    /// Takes an admission into the queue (or the overflow, when the queue is full or others wait
    /// for room), or refuses it. `isPost`: a full queue refuses it, where an awaited admission
    /// waits for room. `drainer`: the handle of the finishing task that makes the admission,
    /// which drains an idle gate itself.
    @inline(__always)
    @inlinable
    mutating func admit<Trace: ControlTraceSink<T.Event>>(
        _ admission: Admission, isPost: Bool, callerCancelled: Bool, drainer: Handle? = nil, trace: inout Trace
    ) -> Admit {
        var refused = refusal(callerCancelled: callerCancelled)
        if refused == nil && isPost && gate.refusesPost { refused = .queueFull }
        if let refused {
            reject(admission.dispatch, admission.style, admission.event, refused, trace: &trace)
            return .rejected(refused)
        }
        let accepted = gate.accept(admission)
        // Stamped with the time the wait (`cycleEnter`) and the latency (`requestResume`) are
        // measured from, so enter − dispatch is the printed wait exactly; emitted on acceptance
        // into the queue or the overflow (which its depth then counts).
        if trace.isRecording { recordDispatch(admission, depth: accepted.depth, trace: &trace) }
        guard accepted.gateWasIdle else { return .queued(.none) }
        if let drainer {
            gate.drainStarted(drainer)
            return .queued(.drainInCaller)
        }
        return .queued(.startTask)
    }

    /// Records that `dispatch` was refused for `reason`.
    @inlinable
    func reject<Trace: ControlTraceSink<T.Event>>(
        _ dispatch: UInt64, _ style: DispatchKind, _ event: T.Event, _ reason: Rejection, trace: inout Trace
    ) {
        guard trace.isRecording else { return }
        let code: RejectionReason =
            switch reason {
            case .stopped(let lifecycle): Self.rejection(lifecycle)
            case .callerCancelled: .cancelled
            case .queueFull: .queueFull
            case .reentrant: .reentrant
            }
        trace.record(
            .dispatchRejected(dispatch: dispatch, style: style, event: T.traceLabel(of: event), reason: code), at: 0,
            payload: event)
    }

    /// The fast path: an awaited dispatch (not from a managed task) claims the idle gate with
    /// nothing queued for a cycle of its own, run inline by its caller. `now`: the entry time
    /// (when recording).
    @inline(__always)
    @inlinable
    mutating func claim<Trace: ControlTraceSink<T.Event>>(
        _ admission: Admission, now: UInt64, trace: inout Trace
    ) -> Claim {
        if let refused = refusal(callerCancelled: false) {
            reject(admission.dispatch, admission.style, admission.event, refused, trace: &trace)
            return .rejected(refused)
        }
        guard gate.claimInline() else { return .queue }
        lastCycle += 1
        if trace.isRecording {
            recordDispatch(admission, depth: 1, trace: &trace)
            recordEnter(cycle: lastCycle, admission, queueDepth: 0, now: now, trace: &trace)
        }
        return .claimed(cycle: lastCycle)
    }

    /// The shell started the drain task ``admit(_:isPost:callerCancelled:drainer:trace:)`` asked
    /// for; `nil` when the host is gone (the gate stays idle).
    @inlinable
    mutating func drainStarted(_ handle: Handle?) {
        if let handle { gate.drainStarted(handle) }
    }

    /// The drain task takes the next admission for a cycle (its waiters become the cycle's in
    /// flight, and the trace gets its `cycleEnter` at `now`), or `nil`: the queue is empty or the
    /// runtime stopped, and the drain task lets go of the gate.
    @inlinable
    mutating func next<Trace: ControlTraceSink<T.Event>>(now: UInt64, trace: inout Trace) -> Next? {
        guard lifecycle == .active, let (admission, left) = gate.next() else {
            gate.drainEnded()
            return nil
        }
        lastCycle += 1
        inflight = admission.waiters
        if trace.isRecording { recordEnter(cycle: lastCycle, admission, queueDepth: left, now: now, trace: &trace) }
        return Next(admission: admission, cycle: lastCycle, left: left)
    }

    /// Ends an inline cycle: the gate goes back to idle, or (``Drain/startTask``) a drain task
    /// must take it over for the admissions that arrived meanwhile.
    @inline(__always)
    @inlinable
    mutating func endInlineCycle() -> Drain {
        let admissionsWait = gate.releaseInline()
        return admissionsWait && lifecycle == .active ? .startTask : .none
    }

    /// An inline cycle met an async action and moved on to the drain task `handle`, which holds
    /// the gate now. `false` when the runtime stopped meanwhile: cancel it.
    @inlinable
    mutating func handInlineCycle(to handle: Handle) -> Bool {
        gate.handInline(to: handle)
        return lifecycle == .active
    }

    /// Makes `waiter` the cycle's in flight, so that a stop fails it; `false` (and nothing
    /// changes) when the runtime has stopped: the cycle must end.
    @inlinable
    mutating func attachInflight(_ waiter: Waiter) -> Bool {
        guard lifecycle == .active else { return false }
        inflight = [waiter]
        return true
    }

    /// The cycle ended: it has no waiters in flight any more.
    @inlinable
    mutating func clearInflight() {
        inflight = []
    }

    // MARK: Tasks

    /// What a task effect asks of the shell.
    @usableFromInline
    enum Spawn {
        /// Nothing to start (the runtime stopped, or the waiters joined a shareable instance).
        case none
        /// Start instance `instance` under `key`, carrying `waiters`, then register its handle
        /// with ``taskStarted(_:instance:handle:waiters:startedAt:)``; `cancel` is the replaced
        /// instance's handle, if any.
        case start(instance: UInt64, key: Tasks.Key, waiters: [Waiter], cancel: Handle?)
    }

    /// A task effect `id` (nil: anonymous) of cycle `cycle` under `policy`, carrying `waiters`.
    /// `now`: its spawn time.
    @inlinable
    mutating func spawn<Trace: ControlTraceSink<T.Event>>(
        id: TaskIdentifier?, policy: TaskPolicyKind, waiters: [Waiter], cycle: UInt64, now: UInt64,
        trace: inout Trace
    ) -> Spawn {
        guard lifecycle == .active else { return .none }  // the stop already failed these waiters
        switch tasks.spawn(id: id, policy: policy, waiters: waiters) {
        case .joined(let joined):
            if trace.isRecording {
                for waiter in waiters { trace.record(.taskJoin(task: joined, dispatch: waiter.dispatch), at: 0, payload: nil) }
            }
            return .none
        case .start(let instance, let key, let carried, let replaced):
            if trace.isRecording {
                if let replaced { trace.record(.taskCancel(task: replaced.instance, reason: .replaced), at: 0, payload: nil) }
                trace.record(
                    .taskSpawn(
                        task: instance, name: id?.label, policy: policy, cycle: cycle, waiters: carried.count,
                        replaces: replaced?.instance ?? 0), at: now, payload: nil)
            }
            return .start(instance: instance, key: key, waiters: carried, cancel: replaced?.handle)
        }
    }

    /// Registers the task the shell started for ``spawn(id:policy:waiters:cycle:now:trace:)``.
    @inlinable
    mutating func taskStarted(_ key: Tasks.Key, instance: UInt64, handle: Handle, waiters: [Waiter], startedAt: UInt64) {
        tasks.started(key, Tasks.Entry(instance: instance, handle: handle, waiters: waiters, startedAt: startedAt))
    }

    /// What a task's end leaves the shell to do.
    @usableFromInline
    struct Finished {
        @usableFromInline
        var resumptions: [Resumption] = []
        /// The task failed: latch this error (before any waiter resumes).
        @usableFromInline
        var failure: (any Error)?
        /// Its event was queued into an idle gate: the finishing task drains it.
        @usableFromInline
        var drains = false

        @inlinable
        init() {}
    }

    /// Instance `instance` under `key` ended with `result` at `now`: its waiters settle, or its
    /// event is queued with them, numbered by `dispatch` (called only then: a discarded or
    /// settling end takes no dispatch number); when that finds the gate idle, the
    /// finishing task (its handle the entry's) holds it and drains it. A replaced, cancelled or
    /// stopped instance's late outcome is discarded.
    @inlinable
    mutating func taskFinished<Trace: ControlTraceSink<T.Event>>(
        _ key: Tasks.Key, instance: UInt64, result: Result<TaskReturn<T.Event>, any Error>,
        dispatch: () -> UInt64, now: UInt64, trace: inout Trace
    ) -> Finished {
        var finished = Finished()
        guard let entry = tasks.finish(key, instance: instance) else {
            if trace.isRecording {
                trace.record(.taskSettle(task: instance, outcome: .cancelled, label: nil, ranNanos: 0), at: 0, payload: nil)
            }
            return finished
        }
        // Removed (by `finish`) before its event is processed, so a later `.shareable` starts
        // fresh work.
        let ran = now &- entry.startedAt
        func settle(_ outcome: TaskOutcome, _ label: EventLabel?, _ trace: inout Trace) {
            if trace.isRecording {
                trace.record(.taskSettle(task: instance, outcome: outcome, label: label, ranNanos: ran), at: now, payload: nil)
            }
        }
        func fail(_ error: any Error) -> [Resumption] {
            entry.waiters.map { Resumption(waiter: $0, result: .failure(error), byTask: instance) }
        }
        switch result {
        case .success(.settle):
            settle(.settle, nil, &trace)
            finished.resumptions = entry.waiters.map { Resumption(waiter: $0, result: .success(nil), byTask: instance) }
        case .success(.request(let event)), .success(.response(let event)):
            let isRequest: Bool
            if case .success(.request) = result { isRequest = true } else { isRequest = false }
            settle(isRequest ? .request : .response, trace.isRecording ? T.traceLabel(of: event) : nil, &trace)
            let admission = Admission(
                event: event, style: isRequest ? .taskRequest : .taskResponse, waiters: entry.waiters, dispatch: dispatch(),
                enqueuedAt: now, origin: instance)
            // A re-entry is never refused: the instance was live, so the runtime is active.
            if case .queued(.drainInCaller) = admit(
                admission, isPost: false, callerCancelled: false, drainer: entry.handle, trace: &trace)
            {
                finished.drains = true
            }
        case .failure(let error) where error is CancellationError:
            settle(.cancelled, nil, &trace)
            finished.resumptions = fail(error)
        case .failure(let error):
            settle(.failed, trace.isRecording ? EventLabel(reflecting: error) : nil, &trace)
            finished.failure = error
            finished.resumptions = fail(error)
        }
        return finished
    }

    /// A `.cancel` effect: the instance under `key`, if live, is removed; the shell cancels the
    /// returned handle and resumes the waiters with cancellation.
    @inlinable
    mutating func cancelTask<Trace: ControlTraceSink<T.Event>>(
        _ key: Tasks.Key, reason: TaskCancelReason, trace: inout Trace
    ) -> (cancel: [Handle], resumptions: [Resumption]) {
        guard let entry = tasks.cancel(key) else { return ([], []) }
        var resumptions: [Resumption] = []
        let handle = cancelled(entry, reason: reason, error: CancellationError(), into: &resumptions, trace: &trace)
        return (handle.map { [$0] } ?? [], resumptions)
    }

    /// Every live instance is removed, oldest first (a `uniqueRequest` cycle).
    @inlinable
    mutating func cancelAllTasks<Trace: ControlTraceSink<T.Event>>(
        reason: TaskCancelReason, trace: inout Trace
    ) -> (cancel: [Handle], resumptions: [Resumption]) {
        var resumptions: [Resumption] = []
        let handles = cancelEntries(reason: reason, error: CancellationError(), into: &resumptions, trace: &trace)
        return (handles, resumptions)
    }

    @inlinable
    mutating func cancelEntries<Trace: ControlTraceSink<T.Event>>(
        reason: TaskCancelReason, error: any Error, into resumptions: inout [Resumption], trace: inout Trace
    ) -> [Handle] {
        tasks.cancelAll().compactMap { cancelled($0, reason: reason, error: error, into: &resumptions, trace: &trace) }
    }

    /// Reports a removed entry cancelled and fails its waiters with `error`; its handle.
    @inlinable
    func cancelled<Trace: ControlTraceSink<T.Event>>(
        _ entry: Tasks.Entry, reason: TaskCancelReason, error: any Error, into resumptions: inout [Resumption],
        trace: inout Trace
    ) -> Handle? {
        if trace.isRecording { trace.record(.taskCancel(task: entry.instance, reason: reason), at: 0, payload: nil) }
        for waiter in entry.waiters {
            resumptions.append(Resumption(waiter: waiter, result: .failure(error), byTask: entry.instance))
        }
        return entry.handle
    }

    // MARK: The lifecycle

    /// Latches the first terminal lifecycle: every task and the drain task cancelled, every
    /// waiter failed, the queue discarded (each admission's `eventDropped`), then `runtimeStop`.
    /// `nil` when the runtime had stopped already (only the first stop counts).
    @inlinable
    mutating func stop<Trace: ControlTraceSink<T.Event>>(
        _ reason: RuntimeLifecycle, error: (any Error)?, trace: inout Trace
    ) -> Stopped? {
        precondition(reason != .active)
        guard lifecycle == .active else { return nil }
        lifecycle = reason
        failure = reason == .failed ? error : nil
        let attachedError: any Error = (reason == .failed ? error : nil) ?? Self.boundaryError(reason) as any Error
        let queuedError: any Error = Self.boundaryError(reason)
        var stopped = Stopped(resumptions: [], cancel: [])
        for waiter in inflight { stopped.resumptions.append(Resumption(waiter: waiter, result: .failure(attachedError))) }
        inflight = []
        stopped.cancel = cancelEntries(reason: .runtimeStop, error: attachedError, into: &stopped.resumptions, trace: &trace)
        for admission in gate.removeAll() {
            if trace.isRecording {
                trace.record(
                    .eventDropped(cycle: 0, event: T.traceLabel(of: admission.event), reason: .discardedOnStop), at: 0,
                    payload: admission.event)
            }
            for waiter in admission.waiters {
                stopped.resumptions.append(Resumption(waiter: waiter, result: .failure(queuedError)))
            }
        }
        if let drain = gate.drainHandle { stopped.cancel.append(drain) }
        if trace.isRecording {
            trace.record(.runtimeStop(reason: reason, error: error.map { EventLabel(reflecting: $0) }), at: 0, payload: nil)
        }
        return stopped
    }

    /// The error a dispatch meets at the boundary once the runtime has stopped.
    @inlinable
    static func boundaryError(_ lifecycle: RuntimeLifecycle) -> RuntimeError {
        switch lifecycle {
        case .active, .failed: .systemError
        case .cancelled: .cancelled
        case .deallocated: .deallocated
        }
    }

    /// The error a refusal throws.
    @inlinable
    static func error(of rejection: Rejection, capacity: Int) -> any Error {
        switch rejection {
        case .stopped(let lifecycle): boundaryError(lifecycle)
        case .callerCancelled: CancellationError()
        case .queueFull: RuntimeError.queueFull(capacity: capacity)
        case .reentrant: RuntimeError.reentrantDispatch
        }
    }

    @inlinable
    static func rejection(_ lifecycle: RuntimeLifecycle) -> RejectionReason {
        switch lifecycle {
        case .active, .failed: .systemError
        case .cancelled: .cancelled
        case .deallocated: .deallocated
        }
    }

    // MARK: Trace events

    @inlinable
    func recordDispatch<Trace: ControlTraceSink<T.Event>>(_ admission: Admission, depth: Int, trace: inout Trace) {
        trace.record(
            .dispatch(
                dispatch: admission.dispatch, style: admission.style, event: T.traceLabel(of: admission.event),
                originTask: admission.origin, queueDepth: depth), at: admission.enqueuedAt, payload: admission.event)
    }

    @inlinable
    func recordEnter<Trace: ControlTraceSink<T.Event>>(
        cycle: UInt64, _ admission: Admission, queueDepth: Int, now: UInt64, trace: inout Trace
    ) {
        trace.record(
            .cycleEnter(
                cycle: cycle, dispatch: admission.dispatch,
                waitedNanos: admission.enqueuedAt == 0 ? 0 : now &- admission.enqueuedAt, queueDepth: queueDepth), at: now,
            payload: nil)
    }
}

/// What the control plane needs of a waiter: the dispatch it answers (for `taskJoin`).
@usableFromInline
protocol ControlWaiter {
    var dispatch: UInt64 { get }
}

/// What the control plane needs of a task handle: nothing but to hold it (the shell cancels).
@usableFromInline
protocol TaskHandle {}

extension Task: TaskHandle {}
