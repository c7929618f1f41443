/// A wait that did not end in time.
public struct TimeoutError: Error, CustomStringConvertible {
    /// What was waited for.
    public var what: String
    /// How long it was waited for, in seconds (0 when not said).
    public var seconds: Double
    /// The wait's name and limit.
    public var description: String {
        let limit =
            seconds > 0 ? " (\(Int(seconds)) s: \(Int(Patience.minimumSeconds)) s or more × patience \(Patience.factor))" : ""
        return "timed out waiting for \(what)\(limit)"
    }

    /// A timeout of the wait for `what` after `seconds`.
    public init(what: String = "operation", seconds: Double = 0) {
        self.what = what
        self.seconds = seconds
    }
}

/// Runs `operation`, failing with ``TimeoutError`` when it has not ended in
/// ``Patience/guarding(_:)`` of `seconds`: a hang guard, which waits at least two minutes times
/// the machine's slowness, never a measure of speed. The operation must be cancellable (every
/// runtime dispatch is: cancelling the caller gives up the wait), since it is cancelled when the
/// time is up.
public func withTimeout<R: Sendable>(
    _ seconds: Double = 10, _ what: String = "operation", _ operation: @escaping @Sendable () async throws -> R
) async throws -> R {
    let limit = Patience.guarding(seconds)
    return try await withThrowingTaskGroup(of: R.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .seconds(limit))
            throw TimeoutError(what: what, seconds: limit)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// Checks `condition` every millisecond until it holds; fails with ``TimeoutError`` after
/// `timeout`. For state reached through work the test cannot otherwise observe (prefer a
/// ``Latch`` or ``TestInstrument/waitFor(_:timeout:_:)`` where the work can signal).
public func eventually(
    _ what: String, timeout: Double = 10, _ condition: @escaping @Sendable () async -> Bool
) async throws {
    try await withTimeout(timeout, what) {
        while !(await condition()) { try await Task.sleep(for: .milliseconds(1)) }
    }
}
