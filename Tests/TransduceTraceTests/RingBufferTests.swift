import Foundation
import Synchronization
import Testing

@testable import TransduceTrace

/// A record whose words check each other, so a torn read is detectable.
func stamped(producer: UInt64, sequence: UInt64) -> RawRecord {
    var r = RawRecord()
    r.kindCode = 2
    r.time = sequence
    r.runtime = producer
    r.dispatch = producer << 32 | sequence
    r.cycle = ~(producer << 32 | sequence)
    r.task = sequence &* 0x9E37_79B9_7F4A_7C15
    r.otherTask = producer &+ sequence
    r.nanos = sequence ^ 0xDEAD_BEEF
    r.count = UInt32(truncatingIfNeeded: sequence)
    r.thread = UInt32(producer)
    r.label = sequence &+ 1
    r.label2 = producer &* 31
    return r
}

func isWhole(_ r: RawRecord) -> Bool {
    let p = r.runtime
    let s = r.time
    return r.dispatch == p << 32 | s && r.cycle == ~(p << 32 | s) && r.task == s &* 0x9E37_79B9_7F4A_7C15
        && r.otherTask == p &+ s && r.nanos == s ^ 0xDEAD_BEEF && r.count == UInt32(truncatingIfNeeded: s)
        && r.thread == UInt32(p) && r.label == s &+ 1 && r.label2 == p &* 31 && r.kindCode == 2
}

@Suite struct RingBufferTests {
    @Test func capacityRoundsUpToAPowerOfTwo() {
        #expect(TraceRingBuffer(capacity: 5).capacity == 8)
        #expect(TraceRingBuffer(capacity: 1).capacity == 2)
        #expect(TraceRingBuffer(capacity: 1024).capacity == 1024)
    }

    @Test func overwriteKeepsTheNewestAcrossWrapAround() {
        let ring = TraceRingBuffer(capacity: 8)
        for s in 0..<20 { #expect(ring.record(stamped(producer: 1, sequence: UInt64(s)))) }
        let batch = ring.snapshot()
        #expect(batch.records.map(\.time) == Array(12..<20).map(UInt64.init))
        #expect(batch.records.allSatisfy(isWhole))
        #expect(batch.counts.offered == 20)
        #expect(batch.counts.overwritten == 12)
        #expect(batch.counts.discarded == 0)
        // A snapshot consumes nothing.
        #expect(ring.snapshot().records.count == 8)
    }

    @Test func drainConsumesAndCountsWhatWasLapped() {
        let ring = TraceRingBuffer(capacity: 8)
        for s in 0..<5 { ring.record(stamped(producer: 1, sequence: UInt64(s))) }
        #expect(ring.drain().records.map(\.time) == [0, 1, 2, 3, 4])
        #expect(ring.drain().records.isEmpty)
        for s in 5..<30 { ring.record(stamped(producer: 1, sequence: UInt64(s))) }
        let batch = ring.drain(limit: 3)
        #expect(batch.records.map(\.time) == [22, 23, 24])
        #expect(ring.drain().records.map(\.time) == [25, 26, 27, 28, 29])
        #expect(ring.counts.overwritten == 17)
    }

    @Test func discardModeKeepsTheFirstUntilDrained() {
        let ring = TraceRingBuffer(capacity: 8, mode: .discardNewest)
        var accepted = 0
        for s in 0..<20 where ring.record(stamped(producer: 1, sequence: UInt64(s))) { accepted += 1 }
        #expect(accepted == 8)
        #expect(ring.counts.discarded == 12)
        #expect(ring.drain().records.map(\.time) == Array(0..<8).map(UInt64.init))
        #expect(ring.record(stamped(producer: 1, sequence: 99)))
        #expect(ring.drain().records.map(\.time) == [99])
        #expect(ring.counts.overwritten == 0)
    }

    @Test(arguments: [TraceRingBuffer.Mode.overwriteOldest, .discardNewest])
    func producersRaceAConcurrentReader(_ mode: TraceRingBuffer.Mode) async throws {
        let ring = TraceRingBuffer(capacity: 1 << 10, mode: mode)
        let producers = 4
        let perProducer = 50_000
        let done = Atomic<Int>(0)
        // Producers on threads of their own, so that the reader's loop below cannot starve them
        // of the shared thread pool (two cores).
        let threads = (0..<producers).map { p in
            Thread {
                for s in 0..<perProducer { ring.record(stamped(producer: UInt64(p + 1), sequence: UInt64(s))) }
                done.wrappingAdd(1, ordering: .releasing)
            }
        }
        threads.forEach { $0.start() }
        var delivered: [RawRecord] = []
        var snapshotsWhole = true
        while done.load(ordering: .acquiring) < producers {
            delivered += ring.drain().records
            snapshotsWhole = snapshotsWhole && ring.snapshot().records.allSatisfy(isWhole)
        }
        delivered += ring.drain().records
        #expect(snapshotsWhole)
        #expect(delivered.allSatisfy(isWhole))
        // Each event appears once, in its producer's order.
        var last = [UInt64: UInt64]()
        var duplicates = 0
        var reordered = 0
        var seen = Set<UInt64>()
        for r in delivered {
            if !seen.insert(r.dispatch).inserted { duplicates += 1 }
            if let previous = last[r.runtime], previous >= r.time { reordered += 1 }
            last[r.runtime] = r.time
        }
        #expect(duplicates == 0)
        #expect(reordered == 0)
        let counts = ring.counts
        let produced = UInt64(producers * perProducer)
        #expect(counts.offered + counts.discarded == produced)
        #expect(UInt64(delivered.count) + counts.overwritten + counts.discarded == produced)
        #expect(counts.contended <= counts.overwritten)
        if mode == .discardNewest { #expect(counts.overwritten == 0) } else { #expect(counts.discarded == 0) }
    }
}
