import Transduce

/// A clock on which every sleep ends at once, its time moving to the sleep's deadline.
///
/// For tests that need the code's timing logic to run but none of its waiting: a retry with
/// backoff, a timeout that must not fire, a debounce whose outcome, not its timing, is under test.
/// A cancelled task's sleep still throws `CancellationError`. To control when sleeps end, use
/// ``TestClock``.
public final class ImmediateClock: Clock, Sendable {
    /// The same instants as a ``TestClock``'s: offsets from the clock's start.
    public typealias Instant = TestClock.Instant

    private let current: Lock<Instant>

    /// A clock at `now` (by default, its start).
    public init(now: Instant = Instant()) { current = Lock(now) }

    /// The current time: the latest deadline slept until so far.
    public var now: Instant { current.withLock { $0 } }

    /// Zero: the clock has no granularity of its own.
    public var minimumResolution: Duration { .zero }

    /// Returns at once, moving the time to `deadline` if it is later. `tolerance` is ignored.
    ///
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { $0 = max($0, deadline) }
    }
}
