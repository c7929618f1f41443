// The values an awaited dispatch passes between its steps: its start, the claim's answer, the
// claimed admission the host's cycle runner gets, the inline cycle's outcome, and what is left to
// do after the cycle (the fast path is described in docs/DECISIONS.md).
extension RuntimeCore {
    /// An awaited admission that claimed the idle gate, as the host's cycle runner gets it.
    @usableFromInline
    struct InlineAdmission: Sendable {
        @usableFromInline
        let event: T.Event
        @usableFromInline
        let style: DispatchKind
        @usableFromInline
        let dispatch: UInt64
        @usableFromInline
        let cycle: UInt64
        /// Dispatch and entry times (0 when not recording).
        @usableFromInline
        let enqueuedAt: UInt64
        @usableFromInline
        let enteredAt: UInt64
        /// Whether the instrument was recording at the dispatch: read once per cycle.
        @usableFromInline
        let recording: Bool

        @inlinable
        init(
            event: T.Event, style: DispatchKind, dispatch: UInt64, cycle: UInt64, enqueuedAt: UInt64, enteredAt: UInt64,
            recording: Bool
        ) {
            self.event = event
            self.style = style
            self.dispatch = dispatch
            self.cycle = cycle
            self.enqueuedAt = enqueuedAt
            self.enteredAt = enteredAt
            self.recording = recording
        }
    }

    /// How an inline cycle ended for its caller.
    @usableFromInline
    enum InlineOutcome: Sendable {
        /// The caller's result, without a wait.
        case finished(Result<T.Response?, any Error>)
        /// The caller must wait for this waiter (a task or a drain task carries it).
        case waiting(ResponseWaiter)
    }

    /// How ``admit(_:style:task:)`` admitted an awaited dispatch.
    @usableFromInline
    enum Admitted {
        /// It holds the gate: run its cycle on the host (``runClaimed(_:transduce:respond:continueInDrainTask:)``).
        case claimed(InlineAdmission)
        /// It must queue, from the managed task `task` if not `nil`.
        case queue(DispatchStart, task: UInt64?)
    }

    /// What is left of an awaited dispatch; ``complete(_:_:style:isolation:)`` does it.
    @usableFromInline
    enum DispatchRest: Sendable {
        /// Its inline cycle ran: the caller's response.
        case finished(T.Response?)
        /// Its inline cycle goes on without the caller (a task or a drain task): wait for this.
        case wait(ResponseWaiter)
        /// It must queue, from the managed task `task` if not `nil`.
        case queue(DispatchStart, task: UInt64?)
        /// It was not admitted (a managed task's dispatch, or the host is gone): it queues from
        /// the start.
        case notAdmitted
    }

    /// An awaited dispatch as it starts: its number, and the instrument and time when recording.
    @usableFromInline
    struct DispatchStart: Sendable {
        @usableFromInline
        let kind: DispatchKind
        @usableFromInline
        let dispatch: UInt64
        @usableFromInline
        let instrument: Recording?
        @usableFromInline
        let now: UInt64

        @inlinable
        init(kind: DispatchKind, dispatch: UInt64, instrument: Recording?, now: UInt64) {
            self.kind = kind
            self.dispatch = dispatch
            self.instrument = instrument
            self.now = now
        }
    }
}
