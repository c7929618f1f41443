import Synchronization

// Resuming waiters, and the instrument calls every part of the core makes.
extension RuntimeCore {
    /// Resumes waiters; must be called without the control lock held.
    @inlinable
    func resume(_ resumptions: [Resumption]) {
        for r in resumptions {
            guard let instrument = recording else {
                r.waiter.resolve(r.result)
                continue
            }
            r.waiter.resolve(r.result) { emitResume(r, instrument) }
        }
    }

    @inlinable
    func emitResume(_ r: Resumption, _ instrument: Recording) {
        emitResume(
            dispatch: r.waiter.dispatch, createdAt: r.waiter.createdAt, result: r.result, byCycle: r.byCycle, byTask: r.byTask,
            instrument)
    }

    /// The `requestResume` of the caller of `dispatch` (dispatched at `createdAt`), resumed now.
    @inlinable
    func emitResume(
        dispatch: UInt64, createdAt: UInt64, result: Result<T.Response?, any Error>, byCycle: UInt64, byTask: UInt64,
        _ instrument: Recording
    ) {
        let now = MonotonicClock.now()
        let outcome: ResumeOutcome
        var errorLabel: EventLabel?
        switch result {
        case .success(.some): outcome = .response
        case .success(.none): outcome = .nil
        case .failure(let error):
            outcome = .error
            errorLabel = EventLabel(reflecting: error)
        }
        emit(
            .requestResume(
                dispatch: dispatch, outcome: outcome, error: errorLabel, byCycle: byCycle, byTask: byTask,
                latencyNanos: MonotonicClock.nanos(from: createdAt, to: now)), instrument, at: now)
    }

    @inlinable
    func emit(
        _ detail: RuntimeEvent.Detail, _ instrument: Recording, at time: UInt64 = 0, payload: T.Event? = nil
    ) {
        let event = RuntimeEvent(time: time == 0 ? MonotonicClock.now() : time, runtime: id, detail: detail)
        // Through the runtime's `let`, not a copy carried in the cycle's context (which every
        // copy of the context retained), and by optional chaining, which borrows the instrument
        // for the witness call: `unsafelyUnwrapped` copied it out, a retain and a release around
        // every event (about 44 instructions of callgrind's count each).
        if capturesPayloads, let payload {
            self.instrument?.record(event, payload: payload)
        } else {
            self.instrument?.record(event)
        }
    }
}

/// The proof that the runtime's instrument was recording where an instrumentation point began:
/// the points pass it on instead of the instrument, which they reach through the runtime's `let`,
/// so the cycle's context and the dispatch values carry no reference to retain. `nil` where the
/// instrument was not recording.
@usableFromInline
struct Recording: Sendable {
    @inlinable
    init() {}
}

/// The sink ``RuntimeControl`` records into in the shell: the runtime's instrument, called while
/// the control lock is held. Holds the core unmanaged: it lives only inside a core's method.
@usableFromInline
struct InstrumentSink<T: Transducer>: ControlTraceSink
where
    T.Event: Sendable, T.Env: Sendable, T.Response: Sendable,
    T.Effect == TransducerEffect<T.Event, T.Env, T.Response>
{
    /// Unmanaged, and called through `_withUnsafeGuaranteedRef`: an `unowned(unsafe)` reference
    /// is made strong for each call, a retain and a release around every event it records.
    @usableFromInline
    let core: Unmanaged<RuntimeCore<T>>
    @usableFromInline
    let isRecording: Bool

    @inlinable
    init(core: RuntimeCore<T>, isRecording: Bool) {
        self.core = .passUnretained(core)
        self.isRecording = isRecording
    }

    @inlinable
    func record(_ detail: RuntimeEvent.Detail, at time: UInt64, payload: T.Event?) {
        core._withUnsafeGuaranteedRef { $0.emit(detail, Recording(), at: time, payload: payload) }
    }
}
