import Synchronization

/// A thread-safe counter: how many times something ran, from any thread.
package final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    package init() {}
    /// Adds one and returns the new count.
    @discardableResult package func increment() -> Int { value.wrappingAdd(1, ordering: .relaxed).newValue }
    package var count: Int { value.load(ordering: .relaxed) }
}
