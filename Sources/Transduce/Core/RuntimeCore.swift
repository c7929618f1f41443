import Synchronization

/// A host's drain entry points, each holding the host weakly (a runtime never keeps its host
/// alive).
///
/// - `startDrain` creates a task on the host's isolation that runs the drain; it is called with
///   the core's control lock held, so it must only create the task. It returns `nil` once the
///   host is gone.
/// - `drain` runs ``RuntimeCore/drain(until:transduce:respond:isolation:)`` on the host's
///   isolation over the host's state, on the caller's task, until the given admission has been
///   processed (the fast path of an awaited dispatch into an idle gate).
@usableFromInline
struct HostHooks: Sendable {
    @usableFromInline
    let startDrain: @Sendable () -> Task<Void, Never>?
    @usableFromInline
    let drain: @Sendable (UInt64) async -> Void

    @inlinable
    init(startDrain: @escaping @Sendable () -> Task<Void, Never>?, drain: @escaping @Sendable (UInt64) async -> Void) {
        self.startDrain = startDrain
        self.drain = drain
    }
}

/// The identity of the drain task, compared to the current task to detect re-entrant dispatch.
/// It is stored only while that task runs the drain, so the pointer it wraps stays valid.
@usableFromInline
struct TaskIdentity: Equatable, @unchecked Sendable {  // compared only, never used to act on the task
    @usableFromInline
    let task: UnsafeCurrentTask
    @inlinable
    init(_ task: UnsafeCurrentTask) { self.task = task }
}

/// The task-local context of a managed task, so dispatches from inside it name it as origin.
@usableFromInline
enum ManagedTaskContext {
    @usableFromInline
    struct Value: Sendable {
        @usableFromInline
        var runtime: RuntimeID
        @usableFromInline
        var task: UInt64

        @inlinable
        init(runtime: RuntimeID, task: UInt64) {
            self.runtime = runtime
            self.task = task
        }
    }
    @TaskLocal static var current: Value?

    /// The context of the managed task the caller runs in, if any.
    @usableFromInline
    static var value: Value? { current }

    /// Runs `operation` with `value` as the context.
    @usableFromInline
    static func run<R: Sendable>(_ value: Value, _ operation: @Sendable () async throws -> R) async throws -> R {
        try await $current.withValue(value) { try await operation() }
    }
}

/// The runtime shared by every host: a lock-based control plane and a compute plane that the
/// host runs on its own isolation.
///
/// Control plane: `control` (a `Lock`) holds the lifecycle latch, the admission FIFO, the task
/// registry and the drain flag. Every control operation is synchronous, never suspends, and runs
/// on any thread. Continuations are always resumed after the lock is released.
///
/// Compute plane: ``drain(transduce:respond:isolation:)`` runs on the host's isolation, one cycle
/// at a time; state is touched only there, through the closures the host passes in.
@usableFromInline
// @unchecked: the mutable state is in `control` (a Lock) and `lifecycleState` (an Atomic).
final class RuntimeCore<T: Transducer>: @unchecked Sendable
where
    T.Event: Sendable, T.Env: Sendable, T.Response: Sendable,
    T.Effect == TransducerEffect<T.Event, T.Env, T.Response>
{
    @usableFromInline
    typealias Effect = TransducerEffect<T.Event, T.Env, T.Response>
    @usableFromInline
    typealias ResponseWaiter = Waiter<T.Response?>

    @usableFromInline
    struct Admission {
        @usableFromInline
        var event: T.Event
        @usableFromInline
        var style: DispatchKind
        @usableFromInline
        var waiters: [ResponseWaiter]
        @usableFromInline
        var dispatch: UInt64
        @usableFromInline
        var enqueuedAt: UInt64
        @usableFromInline
        var origin: UInt64

        @inlinable
        init(event: T.Event, style: DispatchKind, waiters: [ResponseWaiter], dispatch: UInt64, enqueuedAt: UInt64, origin: UInt64)
        {
            self.event = event
            self.style = style
            self.waiters = waiters
            self.dispatch = dispatch
            self.enqueuedAt = enqueuedAt
            self.origin = origin
        }
    }

    @usableFromInline
    enum TaskKey: Hashable, Sendable {
        case named(TaskIdentifier)
        case anonymous(UInt64)
    }

    @usableFromInline
    struct Entry {
        @usableFromInline
        var instance: UInt64
        @usableFromInline
        var task: Task<Void, Never>?
        @usableFromInline
        var waiters: [ResponseWaiter]
        @usableFromInline
        var startedAt: UInt64

        @inlinable
        init(instance: UInt64, task: Task<Void, Never>?, waiters: [ResponseWaiter], startedAt: UInt64) {
            self.instance = instance
            self.task = task
            self.waiters = waiters
            self.startedAt = startedAt
        }
    }

    @usableFromInline
    struct Control {
        @usableFromInline
        var failure: (any Error)?
        @usableFromInline
        var queue = FIFO<Admission>()
        /// Awaited admissions and task re-entries that found the queue full, in arrival order.
        @usableFromInline
        var overflow = FIFO<Admission>()
        @usableFromInline
        var draining = false
        @usableFromInline
        var drainTask: Task<Void, Never>?
        @usableFromInline
        var drainIdentity: TaskIdentity?
        /// Waiters of the cycle in flight, so the control plane can fail them mid-action.
        @usableFromInline
        var inflight: [ResponseWaiter] = []
        @usableFromInline
        var entries: [TaskKey: Entry] = [:]
        /// How to reach the host; every closure holds it weakly.
        @usableFromInline
        var hooks: HostHooks?
        @usableFromInline
        var nextCycle: UInt64 = 0
        @usableFromInline
        var nextTask: UInt64 = 0

        @inlinable
        init() {}
    }

    /// A resumption to perform once the control lock is released.
    @usableFromInline
    struct Resumption {
        @usableFromInline
        var waiter: ResponseWaiter
        @usableFromInline
        var result: Result<T.Response?, any Error>
        @usableFromInline
        var byCycle: UInt64 = 0
        @usableFromInline
        var byTask: UInt64 = 0

        @inlinable
        init(waiter: ResponseWaiter, result: Result<T.Response?, any Error>, byCycle: UInt64 = 0, byTask: UInt64 = 0) {
            self.waiter = waiter
            self.result = result
            self.byCycle = byCycle
            self.byTask = byTask
        }
    }

    @usableFromInline
    let id: RuntimeID
    @usableFromInline
    let env: T.Env
    @usableFromInline
    let instrument: (any RuntimeInstrument)?
    @usableFromInline
    let queueCapacity: Int
    @usableFromInline
    let stepLimit: Int
    @usableFromInline
    let lifecycleState = Atomic<UInt8>(RuntimeLifecycle.active.rawValue)
    @usableFromInline
    let nextDispatch = Atomic<UInt64>(0)
    @usableFromInline
    let control = Lock(Control())

    @inlinable
    init(env: T.Env, instrument: (any RuntimeInstrument)?, queueCapacity: Int, stepLimit: Int, hostKind: StaticString) {
        precondition(queueCapacity > 0, "queueCapacity must be positive")
        precondition(stepLimit > 0, "stepLimit must be positive")
        self.id = RuntimeID.next()
        self.env = env
        self.instrument = instrument ?? RuntimeInstrumentation.current
        self.queueCapacity = queueCapacity
        self.stepLimit = stepLimit
        if let instrument = self.instrument, instrument.isRecording {
            emit(
                .runtimeStart(
                    transducer: EventLabel(_typeName(T.self, qualified: false)), host: EventLabel(hostKind),
                    queueCapacity: queueCapacity), instrument)
        }
    }

    /// Connects the host. Each host builds its hooks itself, so that they call its own methods
    /// directly: a client module then specializes the whole compute path for its transducer.
    @inlinable
    func attach(_ hooks: HostHooks) {
        control.withLock { $0.hooks = hooks }
    }

    /// The `Input` of this runtime. It holds the core, never the host.
    @inlinable
    func makeInput() -> TransducerInput<T.Event, T.Response> {
        TransducerInput(
            id: id,
            post: { [self] event in try post(event, style: .post) },
            dispatch: { [self] event, style in try await dispatch(event, style: style) })
    }

    // MARK: - Lifecycle

    @inlinable
    var lifecycle: RuntimeLifecycle { RuntimeLifecycle(rawValue: lifecycleState.load(ordering: .acquiring))! }
    @inlinable
    var isActive: Bool { lifecycleState.load(ordering: .acquiring) == RuntimeLifecycle.active.rawValue }
    @inlinable
    var failure: (any Error)? { control.withLock { $0.failure } }

    /// The error a dispatch meets at the boundary once the runtime has latched.
    @inlinable
    static func boundaryError(_ lifecycle: RuntimeLifecycle) -> RuntimeError {
        switch lifecycle {
        case .active, .failed: .systemError
        case .cancelled: .cancelled
        case .deallocated: .deallocated
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

    /// Latches the first terminal lifecycle: cancels every task and the drain, fails every waiter
    /// and discards the queue. Later calls do nothing. Never waits for the gate.
    @discardableResult
    @inlinable
    func latch(_ reason: RuntimeLifecycle, error: (any Error)? = nil) -> Bool {
        precondition(reason != .active)
        let resumptions: [Resumption]? = control.withLock { control in
            guard
                lifecycleState.compareExchange(
                    expected: RuntimeLifecycle.active.rawValue, desired: reason.rawValue, ordering: .acquiringAndReleasing
                ).exchanged
            else { return nil }
            control.failure = reason == .failed ? error : nil
            let attachedError: any Error = (reason == .failed ? error : nil) ?? Self.boundaryError(reason)
            let queuedError: any Error = Self.boundaryError(reason)
            var out: [Resumption] = []
            for waiter in control.inflight { out.append(Resumption(waiter: waiter, result: .failure(attachedError))) }
            control.inflight = []
            out += cancelEntries(&control, reason: .runtimeStop, error: attachedError)
            for admission in control.queue.removeAll() + control.overflow.removeAll() {
                if let instrument = recording {
                    emit(
                        .eventDropped(cycle: 0, event: T.traceLabel(of: admission.event), reason: .discardedOnStop),
                        instrument, payload: admission.event)
                }
                for waiter in admission.waiters { out.append(Resumption(waiter: waiter, result: .failure(queuedError))) }
            }
            control.drainTask?.cancel()
            if let instrument = recording {
                emit(.runtimeStop(reason: reason, error: error.map { EventLabel(reflecting: $0) }), instrument)
            }
            return out
        }
        guard let resumptions else { return false }
        resume(resumptions)
        return true
    }

    // MARK: - Dispatch (control plane)

    @inlinable
    var recording: (any RuntimeInstrument)? {
        if let instrument, instrument.isRecording { return instrument }
        return nil
    }

    /// The managed task of this runtime that the caller runs in, if any.
    @inlinable
    var callerTask: UInt64? {
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
            if control.queue.count >= queueCapacity || !control.overflow.isEmpty {
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

    /// Enqueues an awaited admission and suspends until its waiter is resolved.
    @inlinable
    func dispatch(_ event: T.Event, style: DispatchStyle) async throws -> T.Response? {
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
        let waiter = ResponseWaiter(dispatch: dispatch, createdAt: now)
        let (failure, drainsInline): ((any Error)?, Bool) = control.withLock { control in
            if let (error, reason) = refusal(fromTask: task != nil) {
                if let instrument { rejected(dispatch, kind, event, reason, instrument) }
                return (error, false)
            }
            let admission = Admission(
                event: event, style: kind, waiters: [waiter], dispatch: dispatch, enqueuedAt: now, origin: task ?? 0)
            return (nil, enqueue(admission, into: &control, instrument: instrument, inline: task == nil))
        }
        if let failure { throw failure }
        // An idle gate: run this admission's cycle on the caller's task, like an actor call,
        // instead of waking a drain task and then the caller (two thread hand-offs).
        if drainsInline {
            await drainInline(until: dispatch)
            // Settled during the inline cycle: no continuation, no suspension.
            if let result = waiter.takeEarlyResult() { return try result.get() }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in waiter.install(continuation) }
        } onCancel: {
            // Caller cancellation gives up only the wait; the admission stays queued.
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
    /// runs. With `inline`, an idle gate is handed to the caller instead: `true` is returned and
    /// the caller must run ``drainInline(until:)``. Call with the lock held.
    @discardableResult
    @inlinable
    func enqueue(
        _ admission: Admission, into control: inout Control, instrument: (any RuntimeInstrument)?, inline: Bool = false
    ) -> Bool {
        // The dispatch event is stamped with the time the wait (`cycleEnter`) and the latency
        // (`requestResume`) are measured from, so enter − dispatch is the printed wait exactly.
        // It is emitted on acceptance, into the queue or the overflow (which it then counts).
        if control.queue.count >= queueCapacity || !control.overflow.isEmpty {
            control.overflow.append(admission)
        } else {
            control.queue.append(admission)
        }
        if let instrument {
            emitDispatch(admission, depth: control.queue.count + control.overflow.count, instrument)
        }
        guard !control.draining, let hooks = control.hooks else { return false }
        if inline {
            control.draining = true
            return true
        }
        guard let task = hooks.startDrain() else { return false }  // the host is gone
        control.draining = true
        control.drainTask = task
        return false
    }

    @inlinable
    func emitDispatch(_ admission: Admission, depth: Int, _ instrument: any RuntimeInstrument) {
        emit(
            .dispatch(
                dispatch: admission.dispatch, style: admission.style, event: T.traceLabel(of: admission.event),
                originTask: admission.origin, queueDepth: depth), instrument, at: admission.enqueuedAt,
            payload: admission.event)
    }

    @inlinable
    func isComputeTask() -> Bool {
        withUnsafeCurrentTask { current in
            guard let current else { return false }
            let identity = TaskIdentity(current)
            return control.withLock { $0.drainIdentity == identity }
        }
    }

    // MARK: - Compute plane

    /// Runs queued admissions one cycle at a time until the queue is empty or the runtime stops.
    ///
    /// Must run on the host's isolation; `transduce` and `respond` touch the host's state.
    ///
    /// With `until` (the inline fast path, on a caller's task), it stops after that dispatch's
    /// admission and hands anything queued meanwhile to a drain task.
    @inlinable
    func drain(
        until inlineDispatch: UInt64? = nil, transduce: @escaping (T.Event) -> Effect,
        respond: @escaping (T.Event) -> T.Response,
        isolation: isolated (any Actor) = #isolation
    ) async {
        withUnsafeCurrentTask { current in
            let identity = current.map(TaskIdentity.init)
            control.withLock { $0.drainIdentity = identity }
        }
        while let (admission, cycle, depth) = nextAdmission() {
            let stayed = await runCycle(
                admission, cycle: cycle, queueDepth: depth, inline: inlineDispatch != nil, transduce: transduce,
                respond: respond)
            // The rest of the cycle moved to a drain task, which now owns the gate.
            if !stayed { return }
            if let inlineDispatch, admission.dispatch == inlineDispatch {
                return handOffInlineDrain()
            }
        }
    }

    /// Runs the inline drain on the host. The host is held only for the drain, never while the
    /// caller then waits (a waiting caller must not keep its host alive).
    @inlinable
    func drainInline(until dispatch: UInt64) async {
        guard let hooks = control.withLock({ $0.hooks }) else { return }
        await hooks.drain(dispatch)
    }

    /// Ends an inline drain: the gate goes back to idle, or to a drain task when admissions
    /// arrived meanwhile.
    @inlinable
    func handOffInlineDrain() {
        control.withLock { control in
            control.drainIdentity = nil
            if isActive && !control.queue.isEmpty, let task = control.hooks?.startDrain() {
                control.drainTask = task
            } else {
                control.draining = false
                control.drainTask = nil
            }
        }
    }

    @inlinable
    func nextAdmission() -> (Admission, UInt64, Int)? {
        control.withLock { control in
            guard isActive, let admission = control.queue.popFirst() else {
                control.draining = false
                control.drainTask = nil
                control.drainIdentity = nil
                return nil
            }
            if let moved = control.overflow.popFirst() { control.queue.append(moved) }
            control.nextCycle += 1
            control.inflight = admission.waiters
            return (admission, control.nextCycle, control.queue.count)
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
        /// Running on a caller's task (the inline fast path) rather than a drain task.
        @usableFromInline
        var inline: Bool
        @usableFromInline
        var step = 0
        /// Request-style waiters still owned by the cycle.
        @usableFromInline
        var waiters: [ResponseWaiter]

        @inlinable
        init(cycle: UInt64, style: DispatchKind, inline: Bool, waiters: [ResponseWaiter]) {
            self.cycle = cycle
            self.style = style
            self.inline = inline
            self.waiters = waiters
        }
        @inlinable
        var followsChain: Bool {
            switch style {
            case .request, .uniqueRequest, .taskRequest: true
            case .post, .send, .initial, .taskResponse: false
            }
        }
    }

    /// Runs one cycle. Returns `false` when an inline cycle moved to a drain task (see
    /// ``moveToDrainTask(_:effect:_:enteredAt:transduce:respond:isolation:)``).
    @inlinable
    func runCycle(
        _ admission: Admission, cycle: UInt64, queueDepth: Int, inline: Bool, transduce: @escaping (T.Event) -> Effect,
        respond: @escaping (T.Event) -> T.Response, isolation: isolated (any Actor) = #isolation
    ) async -> Bool {
        let enteredAt: UInt64
        if let instrument = recording {
            enteredAt = MonotonicClock.now()
            emit(
                .cycleEnter(
                    cycle: cycle, dispatch: admission.dispatch,
                    waitedNanos: admission.enqueuedAt == 0 ? 0 : enteredAt &- admission.enqueuedAt, queueDepth: queueDepth),
                instrument, at: enteredAt)
        } else {
            enteredAt = 0
        }
        if admission.style == .uniqueRequest { cancelAllTasks(reason: .uniqueRequest) }
        var context = CycleContext(cycle: cycle, style: admission.style, inline: inline, waiters: admission.waiters)
        return await cycleLoop(
            admission.event, effect: nil, &context, enteredAt: enteredAt, transduce: transduce, respond: respond)
    }

    /// The chain of one cycle, from `start` (or from executing `pending`, the effect `start`
    /// produced). Returns `false` when the rest moved to a drain task.
    @inlinable
    func cycleLoop(
        _ start: T.Event, effect pending: Effect?, _ context: inout CycleContext, enteredAt: UInt64,
        transduce: @escaping (T.Event) -> Effect, respond: @escaping (T.Event) -> T.Response,
        isolation: isolated (any Actor) = #isolation
    ) async -> Bool {
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
                guard isActive else { break }
                if context.step >= stepLimit {
                    latch(
                        .failed,
                        error: RuntimeError.runawayEventChain(event: T.traceLabel(of: event).description, limit: stepLimit))
                    break
                }
                if let instrument = recording {
                    emit(
                        .transduce(cycle: context.cycle, step: context.step, event: T.traceLabel(of: event)), instrument,
                        payload: event)
                }
                effect = transduce(event)
                // An async action may suspend for long: a caller must not be the one that waits
                // for it, or cancelling runtime or caller could not resume it promptly.
                if context.inline && Self.containsAsyncAction(effect) {
                    moveToDrainTask(event, effect: effect, context, enteredAt: enteredAt, transduce: transduce, respond: respond)
                    return false
                }
            }
            switch await execute(effect, carrying: true, &context) {
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
        control.withLock { $0.inflight = [] }
        if let instrument = recording {
            let now = MonotonicClock.now()
            emit(
                .cycleLeave(
                    cycle: context.cycle, outcome: outcome, steps: context.step + (outcome == .aborted ? 0 : 1),
                    heldNanos: enteredAt == 0 ? 0 : now &- enteredAt), instrument, at: now)
        }
        // Callers resume after the gate is released (the chart's `leave` before `resume`).
        if outcome != .aborted {
            resume(context.waiters.map { Resumption(waiter: $0, result: .success(response), byCycle: context.cycle) })
        }
        return true
    }

    /// Moves the rest of an inline cycle (executing `effect` and what follows) and the rest of
    /// the queue to a new drain task on the host's isolation; the caller goes back to waiting.
    @inlinable
    func moveToDrainTask(
        _ event: T.Event, effect: Effect, _ context: CycleContext, enteredAt: UInt64,
        transduce: @escaping (T.Event) -> Effect, respond: @escaping (T.Event) -> T.Response,
        isolation: isolated (any Actor) = #isolation
    ) {
        var moved = context
        moved.inline = false
        let task = Task { [self] in
            _ = isolation
            withUnsafeCurrentTask { current in
                let identity = current.map(TaskIdentity.init)
                control.withLock { $0.drainIdentity = identity }
            }
            guard await cycleLoop(event, effect: effect, &moved, enteredAt: enteredAt, transduce: transduce, respond: respond)
            else { return }
            await drain(transduce: transduce, respond: respond)
        }
        control.withLock { control in
            // The task cannot start before this returns: it needs the isolation this runs on.
            control.drainTask = task
            control.drainIdentity = nil
            if !isActive { task.cancel() }
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

    @inlinable
    func execute(
        _ effect: Effect, carrying: Bool, _ context: inout CycleContext, isolation: isolated (any Actor) = #isolation
    ) async -> Step {
        let startedAt = recording == nil ? 0 : MonotonicClock.now()
        var taskName: TaskIdentifier?
        let step: Step
        switch effect.kind {
        case .none:
            step = .settled
        case .event(let next):
            step = .next(next)
        case .action(let body):
            step = body(env).map(Step.next) ?? .settled
        case .asyncAction(let body):
            do {
                let next = try await body(env)
                // The lifecycle may have latched while the action was suspended.
                step = isActive ? (next.map(Step.next) ?? .settled) : .aborted
            } catch is CancellationError {
                resume(
                    context.waiters.map { Resumption(waiter: $0, result: .failure(CancellationError()), byCycle: context.cycle) })
                context.waiters = []
                step = .aborted
            } catch {
                latch(.failed, error: error)
                step = .aborted
            }
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
            step = await executeSequence(effects, carrying: carrying, &context)
        }
        if let instrument = recording {
            let now = MonotonicClock.now()
            emit(
                .effect(
                    cycle: context.cycle, step: context.step, kind: Self.kind(of: effect), task: taskName,
                    durationNanos: now &- startedAt), instrument, at: now)
        }
        return step
    }

    @inlinable
    func executeSequence(
        _ effects: [Effect], carrying: Bool, _ context: inout CycleContext, isolation: isolated (any Actor) = #isolation
    ) async -> Step {
        guard let last = effects.last else { return .settled }
        for effect in effects.dropLast() {
            switch await execute(effect, carrying: false, &context) {
            case .aborted: return .aborted
            case .next(let dropped):
                if let instrument = recording {
                    emit(
                        .eventDropped(cycle: context.cycle, event: T.traceLabel(of: dropped), reason: .sequenceIntermediate),
                        instrument, payload: dropped)
                }
            case .settled, .handedOff: break
            }
            guard isActive else { return .aborted }
        }
        return await execute(last, carrying: carrying, &context)
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

    // MARK: - Task manager (control plane)

    @inlinable
    func addTask(_ spec: Effect.TaskSpec, waiters: [ResponseWaiter], unique: Bool, cycle: UInt64) {
        let input = makeInput()
        let env = self.env
        let operation = spec.operation
        control.withLock { control in
            guard isActive else { return }  // the latch already failed these waiters' cycle
            let instrument = recording
            var allWaiters = waiters
            var replaces: UInt64 = 0
            if let id = spec.id, let existing = control.entries[.named(id)] {
                if spec.option == .shareable && !unique {
                    control.entries[.named(id)]!.waiters += waiters
                    if let instrument {
                        for waiter in waiters { emit(.taskJoin(task: existing.instance, dispatch: waiter.dispatch), instrument) }
                    }
                    return
                }
                existing.task?.cancel()
                replaces = existing.instance
                allWaiters = existing.waiters + waiters
                if let instrument { emit(.taskCancel(task: existing.instance, reason: .replaced), instrument) }
            }
            control.nextTask += 1
            let instance = control.nextTask
            let key: TaskKey = spec.id.map(TaskKey.named) ?? .anonymous(instance)
            let startedAt = instrument == nil ? 0 : MonotonicClock.now()
            if let instrument {
                emit(
                    .taskSpawn(
                        task: instance, name: spec.id,
                        policy: unique ? .unique : (spec.option == .shareable ? .shareable : .switchToLatest),
                        cycle: cycle, waiters: allWaiters.count, replaces: replaces), instrument, at: startedAt)
            }
            let context = ManagedTaskContext.Value(runtime: id, task: instance)
            let task = Task(priority: spec.priority) { [self] in
                let result: Result<TaskReturn<T.Event>, any Error>
                do {
                    result = .success(try await ManagedTaskContext.run(context) { try await operation(input, env) })
                } catch {
                    result = .failure(error)
                }
                taskFinished(key: key, instance: instance, result: result)
            }
            control.entries[key] = Entry(instance: instance, task: task, waiters: allWaiters, startedAt: startedAt)
        }
    }

    @inlinable
    func taskFinished(key: TaskKey, instance: UInt64, result: Result<TaskReturn<T.Event>, any Error>) {
        var failedWith: (any Error)?
        let resumptions: [Resumption] = control.withLock { control in
            let instrument = recording
            guard let entry = control.entries[key], entry.instance == instance else {
                // Replaced, cancelled or stopped: the late outcome is discarded.
                if let instrument { emit(.taskSettle(task: instance, outcome: .cancelled, label: nil, ranNanos: 0), instrument) }
                return []
            }
            // Removed before its event is processed, so a later `.shareable` starts fresh work.
            control.entries[key] = nil
            let now = instrument == nil ? 0 : MonotonicClock.now()
            let ran = now &- entry.startedAt
            func settle(_ outcome: TaskOutcome, _ label: EventLabel?) {
                if let instrument {
                    emit(.taskSettle(task: instance, outcome: outcome, label: label, ranNanos: ran), instrument, at: now)
                }
            }
            switch result {
            case .success(.settle):
                settle(.settle, nil)
                return entry.waiters.map { Resumption(waiter: $0, result: .success(nil), byTask: instance) }
            case .success(.request(let event)), .success(.response(let event)):
                let isRequest: Bool
                if case .success(.request) = result { isRequest = true } else { isRequest = false }
                settle(isRequest ? .request : .response, instrument == nil ? nil : T.traceLabel(of: event))
                let dispatch = nextDispatch.wrappingAdd(1, ordering: .relaxed).newValue
                enqueue(
                    Admission(
                        event: event, style: isRequest ? .taskRequest : .taskResponse, waiters: entry.waiters,
                        dispatch: dispatch, enqueuedAt: now, origin: instance), into: &control, instrument: instrument)
                return []
            case .failure(let error) where error is CancellationError:
                settle(.cancelled, nil)
                return entry.waiters.map { Resumption(waiter: $0, result: .failure(error), byTask: instance) }
            case .failure(let error):
                settle(.failed, instrument == nil ? nil : EventLabel(reflecting: error))
                failedWith = error
                return entry.waiters.map { Resumption(waiter: $0, result: .failure(error), byTask: instance) }
            }
        }
        // The latch happens before any waiter resumes.
        if let failedWith { latch(.failed, error: failedWith) }
        resume(resumptions)
    }

    @inlinable
    func cancelTask(_ key: TaskKey, reason: TaskCancelReason) {
        let resumptions: [Resumption] = control.withLock { control in
            guard let entry = control.entries.removeValue(forKey: key) else { return [] }
            return cancel(entry, reason: reason, error: CancellationError())
        }
        resume(resumptions)
    }

    /// Cancels one removed entry's task, reports it, and returns its waiters' failures.
    /// Call with the lock held.
    @inlinable
    func cancel(_ entry: Entry, reason: TaskCancelReason, error: any Error) -> [Resumption] {
        entry.task?.cancel()
        if let instrument = recording { emit(.taskCancel(task: entry.instance, reason: reason), instrument) }
        return entry.waiters.map { Resumption(waiter: $0, result: .failure(error), byTask: entry.instance) }
    }

    /// Removes and cancels every live entry, oldest first. Call with the lock held.
    @inlinable
    func cancelEntries(_ control: inout Control, reason: TaskCancelReason, error: any Error) -> [Resumption] {
        let entries = control.entries.values.sorted { $0.instance < $1.instance }
        control.entries = [:]
        return entries.flatMap { cancel($0, reason: reason, error: error) }
    }

    @inlinable
    func cancelAllTasks(reason: TaskCancelReason) {
        let resumptions = control.withLock { cancelEntries(&$0, reason: reason, error: CancellationError()) }
        resume(resumptions)
    }

    /// Registry introspection for tests: the number of live tasks.
    @inlinable
    var liveTaskCount: Int { control.withLock { $0.entries.count } }

    // MARK: - Resumption and emission

    /// Resumes waiters; must be called without the control lock held.
    @inlinable
    func resume(_ resumptions: [Resumption]) {
        for r in resumptions {
            guard let instrument = recording else {
                r.waiter.resolve(r.result)
                continue
            }
            r.waiter.resolve(r.result) { emitResume(r, instrument) }
        }
    }

    @inlinable
    func emitResume(_ r: Resumption, _ instrument: any RuntimeInstrument) {
        let now = MonotonicClock.now()
        let outcome: ResumeOutcome
        var errorLabel: EventLabel?
        switch r.result {
        case .success(.some): outcome = .response
        case .success(.none): outcome = .nil
        case .failure(let error):
            outcome = .error
            errorLabel = EventLabel(reflecting: error)
        }
        emit(
            .requestResume(
                dispatch: r.waiter.dispatch, outcome: outcome, error: errorLabel, byCycle: r.byCycle, byTask: r.byTask,
                latencyNanos: r.waiter.createdAt == 0 ? 0 : now &- r.waiter.createdAt), instrument, at: now)
    }

    @inlinable
    func emit(
        _ detail: RuntimeEvent.Detail, _ instrument: any RuntimeInstrument, at time: UInt64 = 0, payload: T.Event? = nil
    ) {
        let boxed: (any Sendable)? = payload != nil && instrument.capturesPayloads ? payload : nil
        instrument.record(
            RuntimeEvent(time: time == 0 ? MonotonicClock.now() : time, runtime: id, detail: detail, payload: boxed))
    }
}
