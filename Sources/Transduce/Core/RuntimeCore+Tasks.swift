import Synchronization

// The task manager: starting managed tasks by policy, their results' re-entry, cancellation.
extension RuntimeCore {
    @inlinable
    func addTask(_ spec: Effect.TaskSpec, waiters: [ResponseWaiter], unique: Bool, cycle: UInt64) {
        let input = taskInput
        let env = self.env
        let operation = spec.operation
        control.withLock { control in
            guard isActive else { return }  // the latch already failed these waiters' cycle
            let instrument = recording
            let (instance, key, allWaiters, replaced): (UInt64, TaskKey, [ResponseWaiter], Entry?)
            switch control.tasks.spawn(id: spec.id, shareable: spec.option == .shareable, unique: unique, waiters: waiters) {
            case .joined(let joined):
                if let instrument {
                    for waiter in waiters { emit(.taskJoin(task: joined, dispatch: waiter.dispatch), instrument) }
                }
                return
            case .start(let started, let startedKey, let carried, let old):
                (instance, key, allWaiters, replaced) = (started, startedKey, carried, old)
            }
            if let replaced {
                replaced.handle?.cancel()
                if let instrument { emit(.taskCancel(task: replaced.instance, reason: .replaced), instrument) }
            }
            let replaces = replaced?.instance ?? 0
            let startedAt = instrument == nil ? 0 : MonotonicClock.now()
            if let instrument {
                emit(
                    .taskSpawn(
                        task: instance, name: spec.id?.label,
                        policy: unique ? .unique : (spec.option == .shareable ? .shareable : .switchToLatest),
                        cycle: cycle, waiters: allWaiters.count, replaces: replaces), instrument, at: startedAt)
            }
            let context = ManagedTaskContext.Value(runtime: id, task: instance)
            let hooks = control.hooks
            // Counted before the task can run, uncounted after its last step: while any runs,
            // dispatches read the task-local that says whether they come from one.
            runningTasks.wrappingAdd(1, ordering: .releasing)
            let task = Task(priority: spec.priority) { [self] in
                let result: Result<TaskReturn<T.Event>, any Error>
                do {
                    result = .success(try await ManagedTaskContext.run(context) { try await operation(input, env) })
                } catch {
                    result = .failure(error)
                }
                let drains = taskFinished(key: key, instance: instance, result: result)
                runningTasks.wrappingSubtract(1, ordering: .releasing)
                // Its result re-entered an idle gate: this task drains it (a hop to the host, not
                // a new task).
                if drains, let hooks { await hooks.drain() }
            }
            control.tasks.started(key, Entry(instance: instance, handle: task, waiters: allWaiters, startedAt: startedAt))
        }
    }

    /// Ends a managed task's instance with its result: settles its waiters, or enqueues its event
    /// with them. `true` when the calling task must then drain the gate (its event found it idle).
    @inlinable
    func taskFinished(key: TaskKey, instance: UInt64, result: Result<TaskReturn<T.Event>, any Error>) -> Bool {
        var failedWith: (any Error)?
        var drains = false
        let resumptions: [Resumption] = control.withLock { control in
            let instrument = recording
            guard let entry = control.tasks.finish(key, instance: instance) else {
                // Replaced, cancelled or stopped: the late outcome is discarded.
                if let instrument { emit(.taskSettle(task: instance, outcome: .cancelled, label: nil, ranNanos: 0), instrument) }
                return []
            }
            // Removed (by `finish`) before its event is processed, so a later `.shareable` starts
            // fresh work.
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
                drains = enqueue(
                    Admission(
                        event: event, style: isRequest ? .taskRequest : .taskResponse, waiters: entry.waiters,
                        dispatch: dispatch, enqueuedAt: now, origin: instance), into: &control, instrument: instrument,
                    drainer: entry.handle)
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
        return drains
    }

    @inlinable
    func cancelTask(_ key: TaskKey, reason: TaskCancelReason) {
        let resumptions: [Resumption] = control.withLock { control in
            guard let entry = control.tasks.cancel(key) else { return [] }
            return cancel(entry, reason: reason, error: CancellationError())
        }
        resume(resumptions)
    }

    /// Cancels one removed entry's task, reports it, and returns its waiters' failures.
    /// Call with the lock held.
    @inlinable
    func cancel(_ entry: Entry, reason: TaskCancelReason, error: any Error) -> [Resumption] {
        entry.handle?.cancel()
        if let instrument = recording { emit(.taskCancel(task: entry.instance, reason: reason), instrument) }
        return entry.waiters.map { Resumption(waiter: $0, result: .failure(error), byTask: entry.instance) }
    }

    /// Removes and cancels every live entry, oldest first. Call with the lock held.
    @inlinable
    func cancelEntries(_ control: inout Control, reason: TaskCancelReason, error: any Error) -> [Resumption] {
        control.tasks.cancelAll().flatMap { cancel($0, reason: reason, error: error) }
    }

    @inlinable
    func cancelAllTasks(reason: TaskCancelReason) {
        let resumptions = control.withLock { cancelEntries(&$0, reason: reason, error: CancellationError()) }
        resume(resumptions)
    }

    /// Registry introspection for tests: the number of live tasks.
    @inlinable
    var liveTaskCount: Int { control.withLock { $0.tasks.count } }

    /// Whether nobody holds the gate (no inline cycle, no drain), for tests.
    var gateIsIdle: Bool { control.withLock { $0.gate.holder == .idle } }
}
