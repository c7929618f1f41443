import Transduce

/// A clock whose time moves only when the test moves it.
///
/// Give it to the code under test where that code would use a real clock — an `Env` field of
/// type `any Clock<Duration>` — and a `sleep` on it then waits until the test calls
/// ``advance(by:)``, ``advance(to:)`` or ``run()`` past its deadline: a debounce of an hour is
/// tested in microseconds, and the same way on a busy machine as on a quiet one.
///
/// - Sleepers due by an advance are resumed in deadline order, sleepers with equal deadlines in
///   the order they began to sleep. The advance only resumes them: what the resumed tasks do next
///   runs concurrently with the test, which waits for it on a signal of its own (a response, an
///   instrument's event).
/// - A sleep whose deadline has passed returns at once; a cancelled sleeper throws
///   `CancellationError` at once, and leaves the clock.
/// - ``sleepers(atLeast:timeout:)`` waits until the code under test has begun to sleep, so a
///   test never guesses how long that takes.
///
/// ```swift
/// let clock = TestClock()
/// let runtime = BaseRuntime(of: Search.self, env: Search.Env(clock: clock))
/// try await runtime.input.send(.typed("abc"))      // starts a debounced search
/// try await clock.sleepers(atLeast: 1)             // its task is sleeping now
/// clock.advance(by: .milliseconds(300))            // and is resumed
/// ```
public final class TestClock: Clock, Sendable {
    /// A point in a ``TestClock``'s time: how far it is from the clock's start.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the clock's start.
        public var offset: Duration

        /// The instant `offset` after the clock's start.
        public init(offset: Duration = .zero) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Whether `a` comes before `b`.
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }

        /// The offset, as `Duration` prints it.
        public var description: String { "\(offset)" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Instant
        var nextID: UInt64 = 0
        /// In the order they began to sleep.
        var sleepers: [Sleeper] = []
        var watchers: [UInt64: Watcher] = [:]

        /// Takes the waits of ``TestClock/sleepers(atLeast:timeout:)`` that the sleepers now satisfy.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let ready = watchers.filter { $0.value.count <= sleepers.count }
            for key in ready.keys { watchers[key] = nil }
            return ready.values.map(\.continuation)
        }
    }

    // Transduce's pthread-based lock: ThreadSanitizer sees it (it does not see Mutex's futex).
    private let state: Lock<State>

    /// A clock at `now` (by default, its start), with nobody sleeping.
    public init(now: Instant = Instant()) { state = Lock(State(now: now)) }

    /// The current time: it moves only through ``advance(by:)``, ``advance(to:)`` and ``run()``.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: the clock has no granularity of its own.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on the clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The deadlines of the tasks sleeping now, earliest first.
    public var deadlines: [Instant] { state.withLock { $0.sleepers.map(\.deadline) }.sorted() }

    /// Suspends until the clock is advanced to `deadline` (at once when it is there already).
    /// `tolerance` is ignored.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the deadline.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (now, ready) = state.withLock { s -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    // Under the lock, so a cancellation either came before (and is seen here) or
                    // waits for the lock and then finds the sleeper to remove.
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    if deadline <= s.now { return (.success(()), []) }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, s.satisfiedWatchers())
                }
                for watcher in ready { watcher.resume() }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let cancelled = state.withLock { s -> Sleeper? in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: i)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the time forward by `duration`, resuming every sleeper whose deadline it reaches
    /// (in deadline order). A negative or zero duration changes nothing.
    public func advance(by duration: Duration = .zero) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves the time forward to `instant`, resuming every sleeper whose deadline it reaches (in
    /// deadline order, equal deadlines in the order they began to sleep). An instant not after
    /// ``now`` changes nothing.
    public func advance(to instant: Instant) {
        let due = state.withLock { s -> [Sleeper] in
            guard instant > s.now else { return [] }
            s.now = instant
            let due = s.sleepers.enumerated().filter { $0.element.deadline <= instant }
                .sorted { ($0.element.deadline, $0.offset) < ($1.element.deadline, $1.offset) }.map(\.element)
            s.sleepers.removeAll { $0.deadline <= instant }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves the time to the latest deadline of the tasks sleeping now, resuming them all in
    /// deadline order. Sleeps that the resumed tasks begin afterwards wait for the next advance.
    public func run() {
        if let last = deadlines.last { advance(to: last) }
    }

    /// Waits until at least `count` tasks are sleeping on the clock: a signal, not a guess, that
    /// the code under test has reached its sleep.
    ///
    /// - Throws: ``Timeout`` after `timeout` of real time (the test's guard against a sleep that
    ///   never comes); `CancellationError` when the waiting task is cancelled.
    public func sleepers(atLeast count: Int, timeout: Duration = .seconds(10)) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.waitForSleepers(count) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw Timeout(wanted: count, sleeping: self.sleeperCount, after: timeout)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// ``sleepers(atLeast:timeout:)`` did not see its sleepers in time.
    public struct Timeout: Error, CustomStringConvertible {
        /// The sleepers waited for.
        public var wanted: Int
        /// The tasks sleeping when the wait gave up.
        public var sleeping: Int
        /// How long it waited.
        public var after: Duration

        /// What was waited for and what was found.
        public var description: String {
            "TestClock: waited \(after) for \(wanted) sleeper(s); \(sleeping) sleeping"
        }
    }

    private func waitForSleepers(_ count: Int) async throws {
        let key = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if Task.isCancelled || s.sleepers.count >= count { return true }
                    s.watchers[key] = Watcher(count: count, continuation: continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.watchers.removeValue(forKey: key) }?.continuation.resume()
        }
        try Task.checkCancellation()
    }
}
