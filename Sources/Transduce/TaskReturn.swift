/// How a task's result re-enters the runtime.
public enum TaskReturn<Event> {
    /// Terminal: waiters resume with `nil`.
    case settle
    /// Re-enter `event` as a new cycle; waiters follow the chain, possibly into further tasks.
    case request(Event)
    /// Re-enter `event` as a new cycle; waiters resume when that one cycle ends.
    case response(Event)
}

extension TaskReturn: Sendable where Event: Sendable {}

/// What a task effect does when a live task with the same identifier exists.
public enum TaskAdditionPolicy: Hashable, Sendable {
    /// Cancel the live instance, start the new one, and move the old waiters to it. The default.
    case switchToLatest
    /// Keep the live instance; a new waiter subscribes to it and the new operation never runs.
    case shareable
}
