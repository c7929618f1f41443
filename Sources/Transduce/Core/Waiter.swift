import Synchronization

/// A resume-once box around an awaiting caller's continuation (the request chart's "box").
///
/// The first ``resolve(_:)`` wins; later ones return `false` and do nothing. A result that
/// arrives before the continuation is installed (a caller cancelled before it suspended) is kept
/// and delivered by ``install(_:)``.
@usableFromInline
final class Waiter<Value: Sendable>: @unchecked Sendable {  // all mutable state is in `state` (a Lock)
    @usableFromInline
    enum State {
        case pending
        // Unsafe, not checked: the state machine already resumes it exactly once, and a
        // `CheckedContinuation` (a resilient type) would make every copy of this state go through
        // the enum's generic value witnesses, besides allocating its canary per wait.
        case waiting(UnsafeContinuation<Value, any Error>)
        case early(Result<Value, any Error>)
        case done
    }

    /// The dispatch that created this waiter.
    @usableFromInline
    let dispatch: UInt64
    /// When the caller dispatched (monotonic ns, 0 when not instrumented).
    @usableFromInline
    let createdAt: UInt64
    @usableFromInline
    let state = Lock<State>(.pending)

    @inlinable
    init(dispatch: UInt64, createdAt: UInt64) {
        self.dispatch = dispatch
        self.createdAt = createdAt
    }

    @inlinable
    func install(_ continuation: UnsafeContinuation<Value, any Error>) {
        let early: Result<Value, any Error>? = state.withLock { state in
            switch state {
            case .pending:
                state = .waiting(continuation)
                return nil
            case .early(let result):
                state = .done
                return result
            case .waiting, .done:
                preconditionFailure("waiter installed twice")
            }
        }
        if let early { continuation.resume(with: early) }
    }

    /// Resumes the caller with `result` unless it was resumed already; `true` for the first call.
    /// `onWin` runs for the first call only, after the outcome is decided and before the caller
    /// resumes (so an instrument records the resume before the caller can observe the trace).
    @inlinable
    @discardableResult
    func resolve(_ result: Result<Value, any Error>, onWin: () -> Void = {}) -> Bool {
        let continuation: UnsafeContinuation<Value, any Error>?
        let won: Bool
        (continuation, won) = state.withLock { state in
            switch state {
            case .pending:
                state = .early(result)
                return (nil, true)
            case .waiting(let c):
                state = .done
                return (c, true)
            case .early, .done:
                return (nil, false)
            }
        }
        if won { onWin() }
        continuation?.resume(with: result)
        return won
    }
}

extension Waiter: ControlWaiter {}
