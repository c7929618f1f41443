/// Suspends the current task until resumed, or until it is cancelled: the plumbing every wait of
/// the test support shares.
///
/// - Parameters:
///   - register: called with the continuation, under the caller's own lock discipline; returns
///     `true` to resume at once (the condition already holds, or the task is already cancelled)
///     or keeps the continuation to resume later and returns `false`.
///   - withdraw: on cancellation, takes the kept continuation back (`nil` when it was resumed
///     meanwhile); it is resumed here.
/// - Throws: `CancellationError` when the task was cancelled before the condition held.
func suspend(
    register: (CheckedContinuation<Void, Never>) -> Bool,
    withdraw: @Sendable () -> CheckedContinuation<Void, Never>?
) async throws {
    await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            if register(continuation) { continuation.resume() }
        }
    } onCancel: {
        withdraw()?.resume()
    }
    try Task.checkCancellation()
}
