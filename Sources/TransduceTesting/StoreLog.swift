import Transduce

/// What a ``TestStore``'s runtime did, as it did it: every transduce step with the state it
/// committed, every managed task with where it came from and whether it has ended. The runtime
/// reports into it (``RuntimeObserver``); the store reads it and waits on it.
///
/// Waiting is by generation: every report bumps it and wakes every waiter, which looks again.
/// A waiter reads the generation before it looks, so a report that lands between the look and
/// the wait is never missed.
final class StoreLog<Event: Sendable, State: Sendable>: RuntimeObserver, Sendable {
    /// One transduce step.
    struct Step: Sendable {
        let event: Event
        let state: State
        let observed: ObservedStep

        /// Whether the step's event came from outside the runtime (a `send` of the test) rather
        /// than from one of its tasks or a chain.
        var isExternal: Bool { observed.step == 0 && observed.origin == 0 }
    }

    /// One managed task.
    struct TaskRecord: Sendable {
        let task: ObservedTask
        /// The event of the step whose effect started it.
        let spawnedBy: Event?
        let startedAt: ContinuousClock.Instant
        var endedAt: ContinuousClock.Instant?
    }

    struct Contents: Sendable {
        var steps: [Step] = []
        var tasks: [UInt64: TaskRecord] = [:]
        var generation: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0

        /// Counts a report and hands back the waiters to wake (outside the lock).
        mutating func changed() -> [CheckedContinuation<Void, Never>] {
            generation &+= 1
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
    }

    // Transduce's pthread-based lock, not `Mutex`: ThreadSanitizer does not see Mutex's futex
    // on Linux and reported the generation's guarded read and write as a race (CI, once).
    let contents = Lock(Contents())

    // MARK: RuntimeObserver

    func transduced(_ event: Event, state: Any, _ step: ObservedStep) {
        guard let state = state as? State else { return }
        wake(
            contents.withLock { c in
                c.steps.append(Step(event: event, state: state, observed: step))
                return c.changed()
            })
    }

    func taskStarted(_ task: ObservedTask) {
        let now = ContinuousClock.now
        wake(
            contents.withLock { c in
                // The runtime reports a task's start right after the step whose effect started it.
                let spawnedBy = c.steps.last(where: { $0.observed.cycle == task.cycle })?.event
                c.tasks[task.instance] = TaskRecord(task: task, spawnedBy: spawnedBy, startedAt: now)
                return c.changed()
            })
    }

    func taskEnded(_ instance: UInt64) {
        let now = ContinuousClock.now
        wake(
            contents.withLock { c in
                c.tasks[instance]?.endedAt = now
                return c.changed()
            })
    }

    func mayBeQuiet() { wake(contents.withLock { $0.changed() }) }

    private func wake(_ waiters: [CheckedContinuation<Void, Never>]) {
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Waiting

    /// Waits until `ready` holds, looking again after every report, for at most `timeout` of real
    /// time; `false` when it still does not hold then. `ready` must not take the log's lock (it
    /// is given a copy) and may look at the runtime: it runs with no lock held.
    func wait(timeout: Duration, until ready: (Contents) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let seen = contents.withLock { $0 }
            if ready(seen) { return true }
            if ContinuousClock.now >= deadline { return false }
            await change(after: seen.generation, deadline: deadline)
        }
    }

    /// Returns after the next report past `generation` (at once if there was one) or at
    /// `deadline`, whichever is first.
    private func change(after generation: UInt64, deadline: ContinuousClock.Instant) async {
        let key = contents.withLock { c -> UInt64 in
            c.nextWaiter &+= 1
            return c.nextWaiter
        }
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            contents.withLock { $0.waiters.removeValue(forKey: key) }?.resume()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = contents.withLock { c -> Bool in
                if c.generation != generation || ContinuousClock.now >= deadline { return true }
                c.waiters[key] = continuation
                return false
            }
            if now { continuation.resume() }
        }
        timer.cancel()
    }
}
