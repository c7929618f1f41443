#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`.
///
/// Used instead of `Synchronization.Mutex` because on Linux that one is built on raw futexes,
/// which ThreadSanitizer cannot see, so every `--sanitize=thread` run reported false races. An
/// uncontended lock/unlock pair costs about the same (~20 ns). Not reentrant.
///
/// `Value` must not be empty (`Void`, an empty struct): ThreadSanitizer reports the `inout`
/// access of an empty stored property as racing with reads of the object's header by other
/// threads (a false race it found in CI). Guard a counter instead.
///
/// The value lives in memory of its own, not in a stored property: an `inout` access of a class's
/// stored property costs a dynamic exclusivity check on every `withLock`, which the lock already
/// makes unnecessary.
@usableFromInline
package final class Lock<Value>: @unchecked Sendable {  // `value` is only touched with `mutex` held
    @usableFromInline
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline
    let value: UnsafeMutablePointer<Value>

    @usableFromInline
    package init(_ initial: Value) {
        value = .allocate(capacity: 1)
        value.initialize(to: initial)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let rc = pthread_mutex_init(mutex, nil)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with exclusive access to the value. `body` must not block or suspend.
    @inlinable
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
