import Transduce

/// A one-way latch: closed until ``open()``, then open for good. The one synchronisation
/// primitive of the tests: work under test waits on it (``wait()``, which ignores cancellation as
/// blocking work does, or ``waitCooperatively()``), and the test waits for that work to arrive
/// (``waitForArrivals(_:timeout:)``) or for someone to open it (``wait(timeout:)``), always with a
/// deadline, never by sleeping.
///
/// Thread-safe; every method may be called from any isolation.
public final class Latch: Sendable {
    private struct State {
        var open = false
        var arrivals = 0
        var nextKey = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Tests waiting for arrivals: how many each needs.
        var watchers: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
    }
    // Transduce's pthread-based Lock, not Synchronization.Mutex: ThreadSanitizer does not see
    // Mutex's futex as synchronization and reports false races through it.
    private let state = Lock(State())
    /// Named in timeouts.
    public let name: String

    /// A closed latch called `name` in timeout errors.
    public init(_ name: String = "latch") { self.name = name }

    /// Opens the latch: every waiter resumes, and later waits return at once. Idempotent.
    public func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            guard !s.open else { return [] }
            s.open = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether ``open()`` was called.
    public var isOpen: Bool { state.withLock { $0.open } }

    /// How many times work arrived at ``wait()`` or ``waitCooperatively()``.
    public var arrivals: Int { state.withLock { $0.arrivals } }

    /// Arrives, then waits until the latch is open, ignoring cancellation (like blocking work).
    public func wait() async {
        let key = arrive()
        await withCheckedContinuation { continuation in
            let now = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiters[key] = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Arrives, then waits until the latch is open; throws `CancellationError` when the waiting
    /// task is cancelled first.
    public func waitCooperatively() async throws { try await waitUntilOpen(key: arrive()) }

    /// Waits (the test's side) until the latch is open; throws ``TimeoutError`` after `timeout`
    /// seconds.
    public func wait(timeout: Double) async throws {
        try await withTimeout(timeout, name) { [self] in try await waitUntilOpen(key: newKey()) }
    }

    /// Waits until work has arrived `count` times in all; throws ``TimeoutError`` after `timeout`
    /// seconds.
    public func waitForArrivals(_ count: Int = 1, timeout: Double = 10) async throws {
        try await withTimeout(timeout, "\(count) arrival(s) at \(name)") { [self] in
            let key = newKey()
            try await suspend(
                register: { continuation in
                    state.withLock { s -> Bool in
                        if s.arrivals >= count || Task.isCancelled { return true }
                        s.watchers[key] = (count, continuation)
                        return false
                    }
                },
                withdraw: { state.withLock { $0.watchers.removeValue(forKey: key) }?.continuation })
        }
    }

    private func waitUntilOpen(key: Int) async throws {
        try await suspend(
            register: { continuation in
                state.withLock { s -> Bool in
                    if s.open || Task.isCancelled { return true }
                    s.waiters[key] = continuation
                    return false
                }
            },
            withdraw: { state.withLock { $0.waiters.removeValue(forKey: key) } })
    }

    private func newKey() -> Int {
        state.withLock { s -> Int in
            s.nextKey += 1
            return s.nextKey
        }
    }

    /// Counts an arrival, resumes the watchers it satisfies, and returns a waiter key.
    private func arrive() -> Int {
        let (key, ready) = state.withLock { s -> (Int, [CheckedContinuation<Void, Never>]) in
            s.arrivals += 1
            s.nextKey += 1
            let arrivals = s.arrivals
            let keys = s.watchers.filter { $0.value.count <= arrivals }.map(\.key)
            return (s.nextKey, keys.compactMap { s.watchers.removeValue(forKey: $0)?.continuation })
        }
        for continuation in ready { continuation.resume() }
        return key
    }
}
