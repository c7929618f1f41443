import Observation

extension TransducerEffect where Event: Sendable, Env: Sendable {
    /// Watches `keyPath` of an `@Observable` object that `Env` holds, as a managed task: the
    /// handler receives the current value at once, then every later change, in order.
    ///
    /// - Delivery: a change that happens while the handler runs is delivered when it returns;
    ///   a burst of changes meanwhile is coalesced into the latest value (none is lost between
    ///   two deliveries). A handler that awaits `input.request(...)` therefore gives back
    ///   pressure: the next value comes after that request settles.
    /// - Lifetime: a managed task like any other: it has `id`, obeys `option`, stops on
    ///   `.cancel(id)` and when the host goes away, and ends (settles) when the object is
    ///   deallocated: the task holds it weakly, so give `Env` a `weak var` (the optional form of
    ///   this effect) when the object's life is not tied to the host's.
    /// - Failure: an error the handler throws other than `CancellationError` fails the task, which
    ///   latches the runtime's failure (its waiters get the error, later dispatches
    ///   `RuntimeError.systemError`); `CancellationError` only ends the task.
    /// - Isolation: the key path is read and the handler runs on the task, off any actor, so the
    ///   object must be `Sendable` and readable from any thread (Observation's registrar is).
    ///
    /// ```swift
    /// case .start:
    ///     return .observe(\.session, keyPath: \.user, id: "observe-user") { input, user in
    ///         try input.post(.userChanged(user))
    ///     }
    /// ```
    public static func observe<Object: AnyObject & Observable & Sendable, Value: Sendable>(
        _ object: KeyPath<Env, Object?> & Sendable, keyPath: KeyPath<Object, Value> & Sendable, id: TaskIdentifier,
        option: TaskAdditionPolicy = .switchToLatest, priority: TaskPriority? = nil,
        handler: @escaping @Sendable (TransducerInput<Event, Response>, Value) async throws -> Void
    ) -> Self {
        observeTask(
            resolve: { $0[keyPath: object] }, keyPath: keyPath, id: id, option: option, priority: priority, handler: handler)
    }

    /// ``observe(_:keyPath:id:option:priority:handler:)`` for an `Env` that holds the object
    /// strongly (it then lives at least as long as the host).
    public static func observe<Object: AnyObject & Observable & Sendable, Value: Sendable>(
        _ object: KeyPath<Env, Object> & Sendable, keyPath: KeyPath<Object, Value> & Sendable, id: TaskIdentifier,
        option: TaskAdditionPolicy = .switchToLatest, priority: TaskPriority? = nil,
        handler: @escaping @Sendable (TransducerInput<Event, Response>, Value) async throws -> Void
    ) -> Self {
        observeTask(
            resolve: { $0[keyPath: object] }, keyPath: keyPath, id: id, option: option, priority: priority, handler: handler)
    }

    private static func observeTask<Object: AnyObject & Observable & Sendable, Value: Sendable>(
        resolve: @escaping @Sendable (Env) -> Object?, keyPath: KeyPath<Object, Value> & Sendable, id: TaskIdentifier,
        option: TaskAdditionPolicy, priority: TaskPriority?,
        handler: @escaping @Sendable (TransducerInput<Event, Response>, Value) async throws -> Void
    ) -> Self {
        .task(id: id, option: option, priority: priority) { input, env -> TaskReturn in
            try await ObservationLoop.run(resolve: { resolve(env) }, keyPath: keyPath) { value in
                try await handler(input, value)
            }
            return .settle
        }
    }
}

/// The observation loop behind `.observe`: read with `withObservationTracking`, deliver, wait
/// for a change, the object's deallocation, or cancellation.
enum ObservationLoop {
    enum Wake: Sendable {
        case changed, gone, cancelled
    }

    /// A resume-once signal for one round of observation.
    final class Signal: Sendable {
        private let state = Lock<(wake: Wake?, continuation: CheckedContinuation<Wake, Never>?)>((nil, nil))

        func fire(_ wake: Wake) {
            let continuation = state.withLock { s -> CheckedContinuation<Wake, Never>? in
                guard s.wake == nil else { return nil }
                s.wake = wake
                defer { s.continuation = nil }
                return s.continuation
            }
            continuation?.resume(returning: wake)
        }

        func wait() async -> Wake {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let ready = state.withLock { s -> Wake? in
                        if let wake = s.wake { return wake }
                        s.continuation = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                fire(.cancelled)
            }
        }
    }

    /// Released with the `onChange` closure that captures it: when the observed object is
    /// deallocated its registrar drops the closure without calling it, and this says so.
    final class Sentinel: Sendable {
        let signal: Signal
        init(_ signal: Signal) { self.signal = signal }
        deinit { signal.fire(.gone) }
    }

    static func run<Object: AnyObject & Observable, Value>(
        resolve: () -> Object?, keyPath: KeyPath<Object, Value> & Sendable, deliver: (Value) async throws -> Void
    ) async throws {
        weak let target = resolve()
        while true {
            try Task.checkCancellation()
            let signal = Signal()
            let value: Value? = read(target, keyPath, signal)
            guard let value else { return }  // deallocated
            try await deliver(value)
            switch await signal.wait() {
            case .changed: continue
            case .gone: return
            case .cancelled: throw CancellationError()
            }
        }
    }

    /// Reads the value and registers for its next change; `nil` when the object is gone.
    private static func read<Object: AnyObject & Observable, Value>(
        _ target: Object?, _ keyPath: KeyPath<Object, Value>, _ signal: Signal
    ) -> Value? {
        guard let object = target else { return nil }
        let sentinel = Sentinel(signal)
        return withObservationTracking {
            object[keyPath: keyPath]
        } onChange: { [sentinel] in
            sentinel.signal.fire(.changed)
        }
    }
}
