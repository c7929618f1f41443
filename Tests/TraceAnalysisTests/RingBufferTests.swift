import Foundation
import RingStress
import Synchronization
import Testing
import TransduceTestSupport

@testable import TransduceTrace

private func stamped(producer: UInt64, sequence: UInt64) -> RawRecord {
    RingStress.stamped(producer: producer, sequence: sequence)
}

private func isWhole(_ r: RawRecord) -> Bool { RingStress.isWhole(r) }

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

    /// A snapshot taken while a producer writes and a drainer drains never accounts for more
    /// events than were offered up to its window (kept + overwritten + unreadable ≤ offered): at
    /// capacity 2, where the producer laps the reader constantly, counts taken from a later head
    /// and tail counted events twice.
    @Test func concurrentSnapshotsNeverCountMoreThanWasOffered() {
        let ring = TraceRingBuffer(capacity: 2)
        let writing = Atomic<Bool>(true)
        let producer = Thread {
            for s in 0..<400_000 { _ = ring.record(stamped(producer: 1, sequence: UInt64(s))) }
            writing.store(false, ordering: .releasing)
        }
        // A drainer too, now and then: what it takes is neither kept nor overwritten.
        let drained = Atomic<UInt64>(0)
        let drainer = Thread {
            while writing.load(ordering: .acquiring) {
                let batch = ring.drain(limit: 1)
                drained.add(UInt64(batch.records.count), ordering: .relaxed)
            }
        }
        producer.start()
        drainer.start()
        var snapshots = 0
        var wrong: [String] = []
        while writing.load(ordering: .acquiring) || snapshots == 0 {
            let batch = ring.snapshot()
            let accounted = UInt64(batch.records.count) + batch.counts.overwritten + batch.unreadable
            // Drained events are out of both: what is accounted can only fall short of offered.
            if accounted > batch.counts.offered, wrong.count < 5 {
                wrong.append(
                    "kept \(batch.records.count) + overwritten \(batch.counts.overwritten) + unreadable \(batch.unreadable) "
                        + "!= offered \(batch.counts.offered)")
            }
            snapshots += 1
        }
        #expect(wrong.isEmpty, "\(wrong) in \(snapshots) snapshots")
        #expect(snapshots > 10)
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

    /// Producers, a drainer and a snapshotter on threads of their own at once (a snapshot racing a
    /// drain used to trap on `end - start`). The cases run one at a time: each keeps up to five
    /// threads busy, and four at once starved the rest of the suite on two cores (a runtime test
    /// under ThreadSanitizer timed out).
    @Test(.serialized, arguments: [TraceRingBuffer.Mode.overwriteOldest, .discardNewest], [1, 3])
    func producersDrainerAndSnapshotterAtOnce(_ mode: TraceRingBuffer.Mode, producers: Int) {
        let report = RingStress.run(producers: producers, capacity: 256, mode: mode, seconds: 0.3, minimumPasses: 200)
        #expect(report.failures.isEmpty, "\(report)")
        #expect(report.snapshots >= 200 && report.produced > 0, "\(report)")
    }
}
