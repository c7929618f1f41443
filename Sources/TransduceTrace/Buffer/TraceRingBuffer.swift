import CTraceRing
import Synchronization
import Transduce

/// A bounded, lock-free, multi-producer event buffer: the embedded flight recorder.
///
/// - Producers never block and never allocate: one atomic increment claims a ticket, a per-slot
///   sequence lock guards the slot while its 11 words are stored.
/// - ``Mode/overwriteOldest`` (the default) keeps the newest `capacity` events;
///   ``Mode/discardNewest`` keeps the first ones until a ``drain(limit:)`` frees room.
/// - Readers (``snapshot()`` and ``drain(limit:)``) run while producers write and never see a torn
///   event: a slot changed during the copy is counted as overwritten instead.
/// - Every loss is counted exactly: ``Counts/overwritten`` (lapped before being read),
///   ``Counts/discarded`` (refused in discard mode). A producer that finds its slot still being
///   written by a producer one whole lap behind drops its event rather than wait; such events are
///   part of ``Counts/overwritten`` and also counted on their own in ``Counts/contended``.
/// - So at any quiet moment, offered = read + overwritten + still held (overwrite mode), and
///   offered + discarded = read + still held (discard mode), exactly.
// Sendable by hand: slots are touched only through the clttng_slot_* atomics, counters are
// Atomic, and the drain cursor is guarded by `drainLock`.
package final class TraceRingBuffer: @unchecked Sendable {
    package typealias Mode = TraceBufferMode

    /// What a buffer has seen, at one moment.
    package struct Counts: Sendable, Equatable {
        /// Tickets taken by producers (every event offered, minus those discarded).
        package var offered: UInt64
        /// Events lapped by newer ones before a drain read them (overwrite mode), including
        /// those dropped to contention.
        package var overwritten: UInt64
        /// Events refused because the buffer was full (discard mode).
        package var discarded: UInt64
        /// Of the overwritten events, those dropped because their slot was still being written a
        /// lap earlier.
        package var contended: UInt64

        /// Nothing seen.
        package static let zero = Counts(offered: 0, overwritten: 0, discarded: 0, contended: 0)

        /// What two buffers have seen together.
        package static func + (a: Counts, b: Counts) -> Counts {
            Counts(
                offered: a.offered + b.offered, overwritten: a.overwritten + b.overwritten,
                discarded: a.discarded + b.discarded, contended: a.contended + b.contended)
        }
    }

    /// Events read by one snapshot or drain, with what was lost around them.
    package struct Batch: Sendable {
        package var records: [RawRecord]
        package var counts: Counts
        /// Tickets in the read window that were not committed yet (or were dropped to contention).
        package var unreadable: UInt64
    }

    package let capacity: Int
    package let mode: Mode
    private let mask: UInt64
    private let slots: UnsafeMutablePointer<UInt64>
    private let head = Atomic<UInt64>(0)
    /// Everything before `tail` has been drained (or counted as lost).
    private let tail = Atomic<UInt64>(0)
    private let discardedCount = Atomic<UInt64>(0)
    private let contendedCount = Atomic<UInt64>(0)
    /// Overwritten events found by drains (lapped before the drain reached them).
    private let drainOverwritten = Atomic<UInt64>(0)
    /// A sequence lock over `tail` and `drainOverwritten` (odd while a drain updates them), so
    /// a snapshot reads the two as one drain left them: read apart, a drain between the reads
    /// made a snapshot count the events it passed twice.
    private let drainSequence = Atomic<UInt64>(0)
    /// Serializes drains; counts them (a `Lock` never guards an empty value, see ``Lock``).
    private let drainLock = Lock(UInt64(0))

    /// Whether `slots` is this buffer's own allocation (not a lane of a ``TraceRings``).
    private let ownsSlots: Bool

    /// Creates a buffer of at least `capacity` events (rounded up to a power of two, at least 2).
    /// Allocates `capacity × 104` bytes once (13 words a slot).
    package convenience init(capacity: Int, mode: Mode = .overwriteOldest) {
        precondition(capacity > 0 && capacity <= 1 << 30, "capacity must be in 1...2^30")
        var size = 2
        while size < capacity { size <<= 1 }
        self.init(slots: Self.allocateSlots(size), capacity: size, mode: mode, owned: true)
    }

    /// A buffer over `capacity` (a power of two) zeroed slots at `slots`, which it frees when
    /// `owned`; otherwise they must outlive it.
    package init(slots: UnsafeMutablePointer<UInt64>, capacity: Int, mode: Mode, owned: Bool) {
        precondition(capacity >= 2 && capacity & (capacity - 1) == 0, "capacity must be a power of two")
        self.capacity = capacity
        self.mode = mode
        self.mask = UInt64(capacity - 1)
        self.slots = slots
        ownsSlots = owned
    }

    /// `count` zeroed slots, 64-byte aligned. Ticket 0 must not look dropped: drop words hold
    /// ticket + 1, and 0 means none.
    package static func allocateSlots(_ count: Int) -> UnsafeMutablePointer<UInt64> {
        let words = count * Int(CLTTNG_SLOT_WORDS)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: words * 8, alignment: 64)
        return raw.initializeMemory(as: UInt64.self, repeating: 0, count: words)
    }

    deinit { if ownsSlots { slots.deallocate() } }

    /// The slot memory, for the async-signal-safe dump (clttng_dump.h), which reads it with the
    /// slot protocol. Valid while the buffer lives.
    var slotMemory: UnsafePointer<UInt64> { UnsafePointer(slots) }

    /// Records one event. Never blocks, never allocates. Returns `false` when the event was
    /// discarded (discard mode, full) or dropped to contention.
    @inline(__always) @discardableResult
    package func record(_ record: RawRecord) -> Bool { self.record { record.words } }

    /// Records the event whose words `encode` gives, calling it once the slot is claimed (not at
    /// all when the event is discarded): words read from the caller's event right before they
    /// are stored are not kept in registers, or saved to the stack, across the claim's atomics.
    @inline(__always) @discardableResult
    package func record(encoding encode: () -> RawRecord.Words) -> Bool {
        let ticket: UInt64
        switch mode {
        case .overwriteOldest:
            ticket = head.wrappingAdd(1, ordering: .relaxed).oldValue
        case .discardNewest:
            var current = head.load(ordering: .relaxed)
            while true {
                if current &- tail.load(ordering: .acquiring) >= UInt64(capacity) {
                    discardedCount.wrappingAdd(1, ordering: .relaxed)
                    return false
                }
                let (exchanged, original) = head.weakCompareExchange(
                    expected: current, desired: current &+ 1, ordering: .relaxed)
                if exchanged { break }
                current = original
            }
            ticket = current
        }
        let slot = slot(of: ticket)
        let claim = clttng_slot_claim(slot, ticket)
        if claim == 0 {
            contendedCount.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        let w = encode()
        clttng_slot_commit(slot, claim, w.0, w.1, w.2, w.3, w.4, w.5, w.6, w.7, w.8, w.9, w.10)
        return true
    }

    /// `tail` and `drainOverwritten` as one drain left them (``drainSequence``).
    private func drainState() -> (tail: UInt64, overwritten: UInt64) {
        while true {
            let before = drainSequence.load(ordering: .acquiring)
            let drained = tail.load(ordering: .acquiring)
            let overwritten = drainOverwritten.load(ordering: .acquiring)
            if before & 1 == 0 && drainSequence.load(ordering: .acquiring) == before { return (drained, overwritten) }
        }
    }

    package var counts: Counts {
        // Tail first (see ``snapshot()``): a head read afterwards is at least that tail.
        let (drained, drainedOverwritten) = drainState()
        let offered = head.load(ordering: .acquiring)
        let lapped: UInt64
        if mode == .overwriteOldest {
            let oldest = offered > UInt64(capacity) ? offered - UInt64(capacity) : 0
            lapped = drainedOverwritten + (oldest > drained ? oldest - drained : 0)
        } else {
            lapped = 0
        }
        return Counts(
            offered: offered, overwritten: lapped, discarded: discardedCount.load(ordering: .relaxed),
            contended: contendedCount.load(ordering: .relaxed))
    }

    /// Copies every committed event currently held, oldest first, without consuming them.
    ///
    /// O(capacity); allocates the result array.
    package func snapshot() -> Batch {
        var reading = beginReading()
        var records: [RawRecord] = []
        records.reserveCapacity(reading.remaining)
        while let record = next(&reading) { records.append(record) }
        let (counts, unreadable) = counts(of: reading)
        return Batch(records: records, counts: counts, unreadable: unreadable)
    }

    /// A window of tickets being read by a snapshot (``beginReading()``, ``next(_:)``), and what
    /// it has found lost so far.
    package struct Reading {
        fileprivate let start: UInt64
        fileprivate let end: UInt64
        fileprivate let drained: UInt64
        fileprivate let drainedOverwritten: UInt64
        fileprivate var ticket: UInt64
        fileprivate var lapped: UInt64 = 0
        fileprivate var unreadable: UInt64 = 0
        /// Tickets not read yet.
        package var remaining: Int { Int(end - ticket) }
    }

    /// Starts reading every committed event held now, oldest first.
    package func beginReading() -> Reading {
        // Tail first: a drain may move it at any moment, but never past the head of that moment,
        // so a head read afterwards is at least the tail read before it (reading them the other
        // way round let a concurrent drain put `start` past `end`).
        let (drained, drainedOverwritten) = drainState()
        let end = head.load(ordering: .acquiring)
        let start = min(max(end > UInt64(capacity) ? end - UInt64(capacity) : 0, drained), end)
        return Reading(start: start, end: end, drained: drained, drainedOverwritten: drainedOverwritten, ticket: start)
    }

    /// The next committed event of `reading`, passing over (and counting) tickets lapped or not
    /// committed; `nil` at the end of its window.
    package func next(_ reading: inout Reading) -> RawRecord? {
        var record = RawRecord()
        return next(&reading, into: &record) ? record : nil
    }

    /// Reads the next committed event of `reading` into `record`, as ``next(_:)`` does, without
    /// copying it again: `false` at the end of its window (`record` then holds no event).
    package func next(_ reading: inout Reading, into record: UnsafeMutablePointer<RawRecord>) -> Bool {
        while reading.ticket < reading.end {
            let ticket = reading.ticket
            reading.ticket += 1
            switch copy(ticket, into: record) {
            case 1: return true
            case -1: reading.lapped += 1
            default:
                if clttng_slot_dropped(slot(of: ticket), ticket) != 0 {
                    reading.lapped += 1
                } else {
                    reading.unreadable += 1
                }
            }
        }
        return false
    }

    /// The counts of the window `reading` read (as of its end, so a snapshot never counts more
    /// events than were offered), and the tickets in it it could not read.
    package func counts(of reading: Reading) -> (counts: Counts, unreadable: UInt64) {
        // Counted from a later head, the counts included events the walk never saw (and counted
        // some lapped ones twice).
        var counts = Counts(
            offered: reading.end, overwritten: 0, discarded: discardedCount.load(ordering: .relaxed),
            contended: contendedCount.load(ordering: .relaxed))
        if mode == .overwriteOldest {
            counts.overwritten =
                reading.drainedOverwritten + (reading.start > reading.drained ? reading.start - reading.drained : 0)
        }
        counts.overwritten += reading.lapped
        return (counts, reading.unreadable)
    }

    /// Removes and returns up to `limit` committed events, oldest first. One drainer at a time.
    ///
    /// Stops at the first ticket not committed yet, so an event still being written is never
    /// skipped; tickets dropped to contention are passed over and counted as overwritten.
    package func drain(limit: Int = .max) -> Batch {
        drainLock.withLock { drains in
            drains &+= 1
            let end = head.load(ordering: .acquiring)
            var ticket = tail.load(ordering: .relaxed)
            var records: [RawRecord] = []
            var lapped: UInt64 = 0
            if mode == .overwriteOldest, end > UInt64(capacity), ticket < end - UInt64(capacity) {
                lapped += end - UInt64(capacity) - ticket
                ticket = end - UInt64(capacity)
            }
            var unreadable: UInt64 = 0
            while ticket < end && records.count < limit {
                // Stop at the first ticket not committed yet, so a slow writer is never skipped,
                // unless its producer dropped it to contention.
                guard let result = read(ticket) else {
                    let slot = slot(of: ticket)
                    if clttng_slot_dropped(slot, ticket) != 0 {
                        lapped += 1
                        ticket += 1
                        continue
                    }
                    unreadable = end - ticket
                    break
                }
                if let record = result { records.append(record) } else { lapped += 1 }
                ticket += 1
            }
            drainSequence.wrappingAdd(1, ordering: .acquiringAndReleasing)
            drainOverwritten.wrappingAdd(lapped, ordering: .releasing)
            tail.store(ticket, ordering: .releasing)
            drainSequence.wrappingAdd(1, ordering: .releasing)
            return Batch(records: records, counts: counts, unreadable: unreadable)
        }
    }

    /// The slot of `ticket`. Wrapping arithmetic: the index is below the capacity (at most
    /// 2^30), so neither the conversion nor the product can overflow, and their checks were a
    /// test and a branch each on every record.
    @inline(__always)
    private func slot(of ticket: UInt64) -> UnsafeMutablePointer<UInt64> {
        slots + Int(truncatingIfNeeded: ticket & mask) &* Int(CLTTNG_SLOT_WORDS)
    }

    /// `.some(record)` when whole, `.some(nil)` when overwritten, `nil` when not committed.
    private func read(_ ticket: UInt64) -> RawRecord?? {
        var record = RawRecord()
        switch copy(ticket, into: &record) {
        case 1: return .some(record)
        case -1: return .some(nil)
        default: return nil
        }
    }

    /// Copies the event of `ticket` into `record` (`clttng_slot_read`): 1 when it was whole, 0
    /// when its slot does not (yet) hold it committed, -1 when a newer ticket overwrote it.
    @inline(__always)
    private func copy(_ ticket: UInt64, into record: UnsafeMutablePointer<RawRecord>) -> Int32 {
        let slot = slot(of: ticket)
        return record.withMemoryRebound(to: UInt64.self, capacity: RawRecord.wordCount) {
            clttng_slot_read(slot, ticket, $0)
        }
    }
}
