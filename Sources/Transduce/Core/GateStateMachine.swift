/// The compute gate as a value: who holds it, the admission FIFO, the overflow of admissions
/// waiting for room in it, and back pressure. Pure and synchronous, a part of
/// ``RuntimeControl``: each method changes the state and says what the caller must do; it starts
/// no task and calls nothing.
///
/// The gate is held by nobody (`idle`), by a caller running its own cycle on its task (`inline`,
/// the fast path), or by a drain task, whose handle the case holds (a stop cancels it).
/// Admissions enter the queue in the order they were accepted; once the queue is full, awaited
/// admissions and task re-entries wait in the overflow, in order, and move into the queue as
/// cycles free room, while `post` is refused so that it cannot overtake them.
@usableFromInline
struct GateStateMachine<Admission, Handle> {
    @usableFromInline
    enum Holder {
        case idle
        case inline
        case drainTask(Handle)
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

    /// Whether nobody holds the gate.
    @inlinable
    var isIdle: Bool {
        if case .idle = holder { true } else { false }
    }

    /// The drain task's handle while one holds the gate.
    @inlinable
    var drainHandle: Handle? {
        if case .drainTask(let handle) = holder { handle } else { nil }
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
        guard isIdle, queue.isEmpty, overflow.isEmpty else { return false }
        holder = .inline
        return true
    }

    /// What accepting an admission found.
    @usableFromInline
    struct Accepted: Equatable {
        /// Accepted admissions after this one (it included), for the trace.
        @usableFromInline
        let depth: Int
        /// The gate was idle: a drain must start (``drainStarted(_:)`` when it has).
        @usableFromInline
        let gateWasIdle: Bool

        @inlinable
        init(depth: Int, gateWasIdle: Bool) {
            self.depth = depth
            self.gateWasIdle = gateWasIdle
        }
    }

    /// Accepts an admission into the queue, or into the overflow when the queue is full or
    /// others already wait for room. (A `post` checks ``refusesPost`` first.)
    @inlinable
    mutating func accept(_ admission: Admission) -> Accepted {
        if refusesPost { overflow.append(admission) } else { queue.append(admission) }
        return Accepted(depth: depth, gateWasIdle: isIdle)
    }

    /// The drain task `handle` holds the gate.
    @inlinable
    mutating func drainStarted(_ handle: Handle) {
        holder = .drainTask(handle)
    }

    /// The drain task takes the next admission for a cycle (one from the overflow moves up into
    /// the room it frees), with the admissions left queued; `nil` when there is none (the
    /// caller then ends the drain with ``drainEnded()``).
    @inlinable
    mutating func next() -> (admission: Admission, left: Int)? {
        guard let admission = queue.popFirst() else { return nil }
        if let moved = overflow.popFirst() { queue.append(moved) }
        return (admission, queue.count)
    }

    /// The drain task lets go of the gate: it is idle.
    @inlinable
    mutating func drainEnded() {
        holder = .idle
    }

    /// Ends the inline holder's cycle: `true` when admissions arrived meanwhile and a drain task
    /// must take the gate over (then call ``drainStarted(_:)``); the gate is idle meanwhile.
    @inlinable
    mutating func releaseInline() -> Bool {
        precondition(isInline, "only the inline holder releases the gate")
        holder = .idle
        return !queue.isEmpty
    }

    /// An inline cycle moved on to the drain task `handle`, which now holds the gate.
    @inlinable
    mutating func handInline(to handle: Handle) {
        precondition(isInline, "only the inline holder hands the gate on")
        holder = .drainTask(handle)
    }

    @inlinable
    var isInline: Bool {
        if case .inline = holder { true } else { false }
    }

    /// The runtime stopped: every admission accepted and not yet in a cycle, oldest first. The
    /// holder keeps the gate until its cycle ends.
    @inlinable
    mutating func removeAll() -> [Admission] {
        Array(queue.removeAll()) + Array(overflow.removeAll())
    }
}

extension GateStateMachine.Holder: Equatable where Handle: Equatable {}
