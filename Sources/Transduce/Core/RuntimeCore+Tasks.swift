import Synchronization

// The task manager: starting managed tasks by policy, their results' re-entry, cancellation.
extension RuntimeCore {
    @inlinable
    func addTask(_ spec: Effect.TaskSpec, waiters: [ResponseWaiter], policy: TaskPolicyKind, cycle: UInt64) {
        let input = taskInput
        let env = self.env
        let operation = spec.operation
        control.withLock { control in
            let instrument = recording
            let startedAt = instrument == nil ? 0 : MonotonicClock.now()
            var trace = trace(instrument)
            guard
                case .start(let instance, let key, let carried, let replaced) = control.spawn(
                    id: spec.id, policy: policy, waiters: waiters, cycle: cycle, now: startedAt, trace: &trace)
            else { return }
            replaced?.cancel()
            let context = ManagedTaskContext.Value(runtime: id, task: instance)
            let hooks = self.hooks
            // Counted before the task can run, uncounted after its last step: while any runs,
            // dispatches read the task-local that says whether they come from one.
            runningTasks.wrappingAdd(1, ordering: .releasing)
            // Created under the lock (it cannot take the lock before this section ends), so its
            // handle is registered before anything can cancel its instance.
            let task = Task(priority: spec.priority) { [self] in
                let result: Result<TaskReturn<T.Event>, any Error>
                do {
                    result = .success(try await ManagedTaskContext.run(context) { try await operation(input, env) })
                } catch {
                    result = .failure(error)
                }
                let drains = taskFinished(key: key, instance: instance, result: result)
                runningTasks.wrappingSubtract(1, ordering: .releasing)
                observer?.taskEnded(instance)
                // Its result re-entered an idle gate: this task drains it (a hop to the host, not
                // a new task).
                if drains, let hooks { await hooks.drain() }
            }
            control.taskStarted(key, instance: instance, handle: task, waiters: carried, startedAt: startedAt)
            observer?.taskStarted(
                ObservedTask(instance: instance, id: spec.id, cycle: cycle, fileID: spec.fileID, line: spec.line))
        }
    }

    /// Ends a managed task's instance with its result: settles its waiters, or enqueues its event
    /// with them. `true` when the calling task must then drain the gate (its event found it idle).
    @inlinable
    func taskFinished(key: TaskKey, instance: UInt64, result: Result<TaskReturn<T.Event>, any Error>) -> Bool {
        let finished = control.withLock { control in
            let instrument = recording
            let now = instrument == nil ? 0 : MonotonicClock.now()
            var trace = trace(instrument)
            return control.taskFinished(
                key, instance: instance, result: result,
                dispatch: { nextDispatch.wrappingAdd(1, ordering: .relaxed).newValue }, now: now, trace: &trace)
        }
        // The latch happens before any waiter resumes.
        if let failure = finished.failure { latch(.failed, error: failure) }
        resume(finished.resumptions)
        return finished.drains
    }

    @inlinable
    func cancelTask(_ key: TaskKey, reason: TaskCancelReason) {
        let resumptions: [Resumption] = control.withLock { control in
            var trace = trace(recording)
            let (handles, resumptions) = control.cancelTask(key, reason: reason, trace: &trace)
            for handle in handles { handle.cancel() }
            return resumptions
        }
        resume(resumptions)
    }

    @inlinable
    func cancelAllTasks(reason: TaskCancelReason) {
        let resumptions: [Resumption] = control.withLock { control in
            var trace = trace(recording)
            let (handles, resumptions) = control.cancelAllTasks(reason: reason, trace: &trace)
            for handle in handles { handle.cancel() }
            return resumptions
        }
        resume(resumptions)
    }

    /// Registry introspection for tests: the number of live tasks.
    @inlinable
    var liveTaskCount: Int { control.withLock { $0.tasks.count } }

    /// Whether nothing is left to happen on its own: no managed task's body runs, and the gate is
    /// idle with nothing queued (or the runtime has stopped). What a test store's `finish` waits
    /// for; ``RuntimeObserver/mayBeQuiet()`` says when to look again.
    package var isQuiet: Bool {
        guard runningTasks.load(ordering: .acquiring) == 0 else { return false }
        return !isActive || control.withLock { $0.gate.isIdle && $0.gate.depth == 0 }
    }

    /// Whether nobody holds the gate (no inline cycle, no drain), for tests.
    var gateIsIdle: Bool { control.withLock { $0.gate.isIdle } }
}
