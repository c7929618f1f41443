/// A wait that did not end in time.
public struct TimeoutError: Error, CustomStringConvertible {
    /// What was waited for.
    public var what: String
    /// The wait's name and limit.
    public var description: String { "timed out waiting for \(what)" }

    /// A timeout of the wait for `what`.
    public init(what: String = "operation") { self.what = what }
}

/// Runs `operation`, failing with ``TimeoutError`` after `seconds`. The operation must be
/// cancellable (every runtime dispatch is: cancelling the caller gives up the wait), since it is
/// cancelled when the time is up.
public func withTimeout<R: Sendable>(
    _ seconds: Double = 10, _ what: String = "operation", _ operation: @escaping @Sendable () async throws -> R
) async throws -> R {
    try await withThrowingTaskGroup(of: R.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TimeoutError(what: what)
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
