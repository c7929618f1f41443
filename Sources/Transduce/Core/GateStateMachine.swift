/// The compute gate as a value: who holds it, the admission FIFO, the overflow of admissions
/// waiting for room in it, and back pressure. Pure and synchronous, in the manner of
/// swift-async-algorithms' state machines: each method changes the state and says what the shell
/// (``RuntimeCore``, which holds it under its lock) must do; it starts no task and calls nothing.
///
/// The gate is held by nobody (`idle`), by a caller running its own cycle on its task (`inline`,
/// the fast path), or by a drain task. Admissions enter the queue in the order they were
/// accepted; once the queue is full, awaited admissions and task re-entries wait in the overflow,
/// in order, and move into the queue as cycles free room, while `post` is refused so that it
/// cannot overtake them.
@usableFromInline
struct GateStateMachine<Admission> {
    @usableFromInline
    enum Holder: Equatable {
        case idle
        case inline
        case drainTask
    }

    @usableFromInline
    private(set) var holder = Holder.idle
    @usableFromInline
    private(set) var queue = FIFO<Admission>()
    @usableFromInline
    private(set) var overflow = FIFO<Admission>()
    @usableFromInline
    let capacity: Int

    @inlinable
    init(capacity: Int) {
        precondition(capacity > 0, "queueCapacity must be positive")
        self.capacity = capacity
    }

    /// Admissions accepted and not yet in a cycle (the queue and the overflow).
    @inlinable
    var depth: Int { queue.count + overflow.count }

    /// Whether a `post` must be refused: the queue is full, or admissions wait for room.
    @inlinable
    var refusesPost: Bool { queue.count >= capacity || !overflow.isEmpty }

    /// The fast path: an idle gate with nothing queued becomes the caller's. `false` when the
    /// caller must queue instead.
    @inlinable
    mutating func claimInline() -> Bool {
        guard holder == .idle, queue.isEmpty, overflow.isEmpty else { return false }
        holder = .inline
        return true
    }

    /// What accepting an admission asks of the shell.
    @usableFromInline
    struct Accepted: Equatable {
        /// Accepted admissions after this one (it included), for the trace.
        @usableFromInline
        let depth: Int
        /// The gate was idle: start a drain task (and then call ``drainTaskStarted(_:)``).
        @usableFromInline
        let startDrain: Bool

        @inlinable
        init(depth: Int, startDrain: Bool) {
            self.depth = depth
            self.startDrain = startDrain
        }
    }

    /// Accepts an admission into the queue, or into the overflow when the queue is full or
    /// others already wait for room. (A `post` checks ``refusesPost`` first.)
    @inlinable
    mutating func accept(_ admission: Admission) -> Accepted {
        if refusesPost { overflow.append(admission) } else { queue.append(admission) }
        return Accepted(depth: depth, startDrain: holder == .idle)
    }

    /// The shell tried to start the drain task `accept` asked for: with `false` (the host is
    /// gone) the gate stays idle.
    @inlinable
    mutating func drainTaskStarted(_ started: Bool) {
        if started { holder = .drainTask }
    }

    /// The drain task takes the next admission for a cycle (one from the overflow moves up into
    /// the room it frees), with the admissions left queued; `nil` when there is none, and the
    /// gate is idle again.
    @inlinable
    mutating func next() -> (admission: Admission, left: Int)? {
        guard let admission = queue.popFirst() else {
            holder = .idle
            return nil
        }
        if let moved = overflow.popFirst() { queue.append(moved) }
        return (admission, queue.count)
    }

    /// The drain task stops because the runtime stopped: the gate is idle.
    @inlinable
    mutating func drainEnded() {
        holder = .idle
    }

    /// Ends the inline holder's cycle: `true` when admissions arrived meanwhile and a drain task
    /// must take the gate over (then call ``drainTaskStarted(_:)``); otherwise the gate is idle.
    @inlinable
    mutating func releaseInline() -> Bool {
        precondition(holder == .inline, "only the inline holder releases the gate")
        holder = .idle
        return !queue.isEmpty
    }

    /// An inline cycle moved on to a drain task, which now holds the gate.
    @inlinable
    mutating func handInlineToDrainTask() {
        precondition(holder == .inline, "only the inline holder hands the gate on")
        holder = .drainTask
    }

    /// The runtime stopped: every admission accepted and not yet in a cycle, oldest first. The
    /// holder keeps the gate until its cycle ends.
    @inlinable
    mutating func removeAll() -> [Admission] {
        Array(queue.removeAll()) + Array(overflow.removeAll())
    }
}
