import CTraceRing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ring recorder's memory: one ``TraceRingBuffer`` per lane, each runtime's events in the lane of
/// its id, read back merged by time.
///
/// Producers that record at once into one ring contend for its ticket counter and its slots'
/// cache lines. Here the runtimes of a process spread over the lanes (runtime ids count up, so
/// consecutive runtimes take consecutive lanes), and runtimes in different lanes never contend.
/// Lanes are per runtime, not per thread, for the trace's order: a runtime's events are recorded
/// from many threads in the order its locks and gate impose, and some are stamped before the lock
/// that orders them (a dispatch carries the time its latency is measured from). Kept in one lane,
/// they stay in recording order; merged by time across threads, a dispatch accepted second could
/// read as accepted first. Lanes are merged by each lane's next event, so every lane's order is
/// kept.
///
/// The rule for memory: `capacity` slots in all (104 bytes each), allocated once, split evenly
/// into the lanes, whatever the number of threads or runtimes. A runtime keeps at least
/// `capacity ÷ lanes` of its newest events (more when it has its lane alone); a runtime that
/// stopped leaves its events until later ones of its lane overwrite them. Every guarantee of
/// ``TraceRingBuffer`` holds per lane (never blocks, never allocates, no torn event, exact loss
/// counts); the counts here are the lanes' sums, and ``TraceRingBuffer/Mode/discardNewest``
/// discards when the event's lane is full.
package final class TraceRings: @unchecked Sendable {  // the lanes are Sendable; the rest is immutable
    package typealias Mode = TraceBufferMode
    package typealias Counts = TraceRingBuffer.Counts
    package typealias Batch = TraceRingBuffer.Batch

    /// The lanes, each over its share of ``slotMemory``.
    package let lanes: [TraceRingBuffer]
    /// The lanes again, unretained, for the record path (an array element is retained per use).
    private let unretained: UnsafeMutableBufferPointer<Unmanaged<TraceRingBuffer>>
    private let laneMask: Int
    /// Slots in all (a power of two).
    package let capacity: Int
    package let mode: Mode
    private let slots: UnsafeMutablePointer<UInt64>

    /// The fewest slots a lane gets: below twice this, a recorder keeps one lane (a small ring
    /// split further would keep too little of each runtime).
    package static let minimumLaneCapacity = 1_024

    /// Lanes for `capacity` slots on this machine: twice the processors (a power of two, at most
    /// 16), fewer where a lane would hold less than ``minimumLaneCapacity``.
    package static func defaultLanes(capacity: Int) -> Int {
        let processors = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var lanes = 1
        while lanes < min(16, 2 * processors) && capacity / (lanes * 2) >= minimumLaneCapacity { lanes <<= 1 }
        return lanes
    }

    /// Rings of at least `capacity` slots in all (rounded up to a power of two), split into
    /// `lanes` lanes (a power of two; by default ``defaultLanes(capacity:)``).
    package init(capacity: Int, mode: Mode = .overwriteOldest, lanes requested: Int? = nil) {
        precondition(capacity > 0 && capacity <= 1 << 30, "capacity must be in 1...2^30")
        var size = 2
        while size < capacity { size <<= 1 }
        let lanes = min(requested ?? Self.defaultLanes(capacity: size), size / 2)
        precondition(lanes > 0 && lanes & (lanes - 1) == 0, "lanes must be a power of two")
        self.capacity = size
        self.mode = mode
        let slots = TraceRingBuffer.allocateSlots(size)
        self.slots = slots
        let laneCapacity = size / lanes
        let made = (0..<lanes).map {
            TraceRingBuffer(
                slots: slots + $0 * laneCapacity * Int(CLTTNG_SLOT_WORDS), capacity: laneCapacity, mode: mode, owned: false)
        }
        self.lanes = made
        let unretained = UnsafeMutableBufferPointer<Unmanaged<TraceRingBuffer>>.allocate(capacity: lanes)
        for (index, lane) in made.enumerated() { unretained[index] = Unmanaged.passUnretained(lane) }
        self.unretained = unretained
        laneMask = lanes - 1
    }

    deinit {
        unretained.deallocate()
        slots.deallocate()
    }

    /// The slot memory of every lane, lane after lane, for the async-signal-safe dump
    /// (clttng_dump.h). Valid while the rings live.
    var slotMemory: UnsafePointer<UInt64> { UnsafePointer(slots) }

    /// Records one event into its runtime's lane. Never blocks, never allocates. Returns `false`
    /// when the event was discarded (discard mode, lane full) or dropped to contention.
    @inline(__always) @discardableResult
    package func record(_ record: RawRecord) -> Bool {
        self.record(runtime: record.runtime) { record.words }
    }

    /// Records the event whose words `encode` gives into the lane of `runtime`; `encode` runs
    /// once the slot is claimed (see ``TraceRingBuffer/record(encoding:)``).
    @inline(__always) @discardableResult
    package func record(runtime: UInt64, encoding encode: () -> RawRecord.Words) -> Bool {
        let lane = unretained[Int(truncatingIfNeeded: runtime) & laneMask]
        return lane._withUnsafeGuaranteedRef { $0.record(encoding: encode) }
    }

    /// What the lanes have seen, summed.
    package var counts: Counts {
        lanes.reduce(.zero) { $0 + $1.counts }
    }

    /// Copies every committed event held, merged by time, without consuming them.
    package func snapshot() -> Batch {
        var records: [RawRecord] = []
        let (counts, unreadable) = walk(chunk: 1 << 16) { records.append(contentsOf: $0) }
        return Batch(records: records, counts: counts, unreadable: unreadable)
    }

    /// What ``snapshot()`` reads, handed to `body` a chunk of at most `chunk` events at a time in
    /// time order (each lane read in ticket order, the lanes merged by their next event's time),
    /// with the summed counts of the windows read. Memory: one chunk.
    package func walk(
        chunk: Int, _ body: (UnsafeBufferPointer<RawRecord>) throws -> Void
    ) rethrows -> (counts: Counts, unreadable: UInt64) {
        var readings = lanes.map { $0.beginReading() }
        let buffer = UnsafeMutableBufferPointer<RawRecord>.allocate(
            capacity: max(1, min(chunk, readings.reduce(0) { $0 + $1.remaining })))
        defer { buffer.deallocate() }
        // Lanes are read through `unretained`: an element of `lanes` is retained per use.
        let unretained = self.unretained
        var held = 0
        try Self.merge(
            lanes.count,
            next: { lane, into in unretained[lane]._withUnsafeGuaranteedRef { $0.next(&readings[lane], into: into) } }
        ) { record in
            buffer[held] = record.pointee
            held += 1
            if held == buffer.count {
                try body(UnsafeBufferPointer(buffer))
                held = 0
            }
        }
        if held > 0 { try body(UnsafeBufferPointer(rebasing: buffer[..<held])) }
        var sum = Counts.zero
        var unreadable: UInt64 = 0
        for (lane, reading) in zip(lanes, readings) {
            let (counts, lost) = lane.counts(of: reading)
            sum = sum + counts
            unreadable += lost
        }
        return (sum, unreadable)
    }

    /// Removes and returns every committed event recorded since the last drain, merged by time
    /// as ``walk(chunk:_:)`` merges. One drainer at a time.
    package func drain() -> Batch {
        let batches = lanes.map { $0.drain() }
        var positions = Array(repeating: 0, count: batches.count)
        var records: [RawRecord] = []
        records.reserveCapacity(batches.reduce(0) { $0 + $1.records.count })
        Self.merge(batches.count) { lane, into in
            guard positions[lane] < batches[lane].records.count else { return false }
            into.pointee = batches[lane].records[positions[lane]]
            positions[lane] += 1
            return true
        } into: {
            records.append($0.pointee)
        }
        return Batch(records: records, counts: counts, unreadable: batches.reduce(0) { $0 + $1.unreadable })
    }

    /// Merges `count` sequences, each taken in its own order (`next(lane, into)` reads a lane's
    /// next event into `into`, `false` once the lane is done), by the time of each one's next
    /// event, the lowest lane first on a tie, into `emit`.
    ///
    /// Each lane's next event is kept in place and its time in a row of words apart (`.max` once
    /// the lane is done): the merge compares words, not whole events (an optional event a lane
    /// was copied at every comparison), and reads an event once. (A tournament tree instead of
    /// the scan measured no faster at 16 lanes: its matches are dependent loads.)
    @inline(__always)
    private static func merge(
        _ count: Int, next: (Int, UnsafeMutablePointer<RawRecord>) -> Bool,
        into emit: (UnsafePointer<RawRecord>) throws -> Void
    ) rethrows {
        guard count > 0 else { return }
        let heads = UnsafeMutableBufferPointer<RawRecord>.allocate(capacity: count)
        heads.initialize(repeating: RawRecord())
        let times = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: count)
        let done = UnsafeMutableBufferPointer<Bool>.allocate(capacity: count)
        defer {
            heads.deallocate()
            times.deallocate()
            done.deallocate()
        }
        func advance(_ lane: Int) {
            let more = next(lane, heads.baseAddress! + lane)
            times[lane] = more ? heads[lane].time : .max
            done[lane] = !more
        }
        for lane in 0..<count { advance(lane) }
        while true {
            // The earliest, the lowest lane on a tie.
            var first = 0
            for lane in 1..<count where times[lane] < times[first] { first = lane }
            if times[first] == .max && done[first] {
                // Only lanes at `.max` are left: one not done has an event stamped `.max`.
                guard let open = done.firstIndex(of: false) else { return }
                first = open
            }
            try emit(heads.baseAddress! + first)
            advance(first)
        }
    }
}
