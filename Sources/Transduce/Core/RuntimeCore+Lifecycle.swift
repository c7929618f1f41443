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
    static func boundaryError(_ lifecycle: RuntimeLifecycle) -> RuntimeError {
        switch lifecycle {
        case .active, .failed: .systemError
        case .cancelled: .cancelled
        case .deallocated: .deallocated
        }
    }

    @inlinable
    static func rejection(_ lifecycle: RuntimeLifecycle) -> RejectionReason {
        switch lifecycle {
        case .active, .failed: .systemError
        case .cancelled: .cancelled
        case .deallocated: .deallocated
        }
    }

    /// Latches the first terminal lifecycle: cancels every task and the drain, fails every waiter
    /// and discards the queue. Later calls do nothing. Never waits for the gate.
    @discardableResult
    @inlinable
    func latch(_ reason: RuntimeLifecycle, error: (any Error)? = nil) -> Bool {
        precondition(reason != .active)
        let resumptions: [Resumption]? = control.withLock { control in
            guard
                lifecycleState.compareExchange(
                    expected: RuntimeLifecycle.active.rawValue, desired: reason.rawValue, ordering: .acquiringAndReleasing
                ).exchanged
            else { return nil }
            control.failure = reason == .failed ? error : nil
            let attachedError: any Error = (reason == .failed ? error : nil) ?? Self.boundaryError(reason)
            let queuedError: any Error = Self.boundaryError(reason)
            var out: [Resumption] = []
            for waiter in control.inflight { out.append(Resumption(waiter: waiter, result: .failure(attachedError))) }
            control.inflight = []
            out += cancelEntries(&control, reason: .runtimeStop, error: attachedError)
            for admission in control.gate.removeAll() {
                if let instrument = recording {
                    emit(
                        .eventDropped(cycle: 0, event: T.traceLabel(of: admission.event), reason: .discardedOnStop),
                        instrument, payload: admission.event)
                }
                for waiter in admission.waiters { out.append(Resumption(waiter: waiter, result: .failure(queuedError))) }
            }
            control.drainTask?.cancel()
            if let instrument = recording {
                emit(.runtimeStop(reason: reason, error: error.map { EventLabel(reflecting: $0) }), instrument)
            }
            return out
        }
        guard let resumptions else { return false }
        resume(resumptions)
        return true
    }
}
