import Synchronization

// The lifecycle latch: active until the first stop (cancel, failure, the host's deallocation),
// which cancels every task and the drain, fails every waiter and discards the queue.
extension RuntimeCore {
    @inlinable
    var lifecycle: RuntimeLifecycle { RuntimeLifecycle(rawValue: lifecycleState.load(ordering: .acquiring))! }
    @inlinable
    var isActive: Bool { lifecycleState.load(ordering: .acquiring) == RuntimeLifecycle.active.rawValue }
    @inlinable
    var failure: (any Error)? { control.withLock { $0.failure } }

    /// The error a dispatch meets at the boundary once the runtime has latched.
    @inlinable
    static func boundaryError(_ lifecycle: RuntimeLifecycle) -> RuntimeError { Control.boundaryError(lifecycle) }

    /// Latches the first terminal lifecycle: cancels every task and the drain, fails every waiter
    /// and discards the queue. Later calls do nothing. Never waits for the gate.
    @discardableResult
    @inlinable
    func latch(_ reason: RuntimeLifecycle, error: (any Error)? = nil) -> Bool {
        let resumptions: [Resumption]? = control.withLock { control in
            guard control.isActive else { return nil }
            // Published before the stop is recorded (a transduce that still sees the runtime
            // active read its time earlier: ``mayTransduce(_:_:)``) and before any handle is
            // cancelled (what cancellation wakes sees it stopped).
            lifecycleState.store(reason.rawValue, ordering: .releasing)
            var trace = trace(recording)
            guard let stopped = control.stop(reason, error: error, trace: &trace) else { return nil }
            for handle in stopped.cancel { handle.cancel() }
            return stopped.resumptions
        }
        guard let resumptions else { return false }
        resume(resumptions)
        observer?.mayBeQuiet()
        return true
    }
}
