import Transduce

/// A recording instrument for tests: keeps every ``RuntimeEvent`` and lets a test wait for one,
/// on a signal rather than by polling.
///
/// Thread-safe: the runtime records from any thread.
public final class TestInstrument: RuntimeInstrument {
    private struct State {
        var events: [RuntimeEvent] = []
        var nextKey = 0
        /// Waits for events: the predicate, how many more matches are needed, and the waiter.
        var watchers:
            [Int: (matches: @Sendable (RuntimeEvent) -> Bool, needed: Int, continuation: CheckedContinuation<Void, Never>)] =
                [:]
    }
    // Transduce's pthread-based Lock, not Synchronization.Mutex: ThreadSanitizer does not see
    // Mutex's futex as synchronization and reports false races through it.
    private let state = Lock(State())

    /// An empty recording.
    public init() {}

    /// Always `true`.
    public var isRecording: Bool { true }

    /// Keeps `event` and resumes the waits it satisfies.
    public func record(_ event: RuntimeEvent) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.events.append(event)
            var ready: [CheckedContinuation<Void, Never>] = []
            for (key, watcher) in s.watchers where watcher.matches(event) {
                if watcher.needed <= 1 {
                    ready.append(watcher.continuation)
                    s.watchers[key] = nil
                } else {
                    s.watchers[key]?.needed -= 1
                }
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Every event so far, in recording order.
    public var all: [RuntimeEvent] { state.withLock { $0.events } }

    /// Waits until `count` events matching `matches` have been recorded (already or later);
    /// throws ``TimeoutError`` after `timeout` seconds. `matches` runs under the instrument's lock:
    /// it must only look at the event.
    public func waitFor(
        _ what: String, count: Int = 1, timeout: Double = 10, _ matches: @escaping @Sendable (RuntimeEvent) -> Bool
    ) async throws {
        try await withTimeout(timeout, what) { [self] in
            let key = state.withLock { s -> Int in
                s.nextKey += 1
                return s.nextKey
            }
            try await suspend(
                register: { continuation in
                    state.withLock { s -> Bool in
                        let needed = count - s.events.filter(matches).count
                        if Task.isCancelled || needed <= 0 { return true }
                        s.watchers[key] = (matches, needed, continuation)
                        return false
                    }
                },
                withdraw: { state.withLock { $0.watchers.removeValue(forKey: key) }?.continuation })
        }
    }

    /// Waits until an admission of the event labelled `label` has been accepted into the queue
    /// (its `dispatch` event), the `count`-th such one when `count` is given.
    public func waitForDispatch(of label: String, count: Int = 1, timeout: Double = 10) async throws {
        try await waitFor("\(count) dispatch(es) of \(label)", count: count, timeout: timeout) {
            if case .dispatch(_, _, let event, _, _) = $0.detail { return event.description == label }
            return false
        }
    }
}
