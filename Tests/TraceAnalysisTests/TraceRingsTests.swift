import Foundation
import Synchronization
import Testing
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

/// An event of runtime `runtime`, its `sequence`-th, stamped now; every word derived from the two,
/// so a torn copy shows.
private func event(runtime: UInt64, sequence: UInt64, time: UInt64 = MonotonicClock.now()) -> RawRecord {
    var r = RawRecord()
    r.kindCode = TraceEvent.Kind.transduce.rawValue
    r.time = time
    r.runtime = runtime
    r.dispatch = runtime << 32 | sequence
    r.cycle = sequence
    r.task = ~(runtime << 32 | sequence)
    r.otherTask = runtime &* 0x9E37_79B9_7F4A_7C15 ^ sequence
    return r
}

private func isWhole(_ r: RawRecord) -> Bool {
    r.dispatch == r.runtime << 32 | r.cycle && r.task == ~r.dispatch
        && r.otherTask == r.runtime &* 0x9E37_79B9_7F4A_7C15 ^ r.cycle
}

/// The lanes of a ring recorder: each runtime's events in its lane, merged by time, with the
/// guarantees of one ring held across them.
@Suite struct TraceRingsTests {
    @Test func memoryIsTheCapacityWhateverTheLanes() {
        for lanes in [1, 2, 4, 8] {
            let rings = TraceRings(capacity: 1 << 12, lanes: lanes)
            #expect(rings.lanes.count == lanes)
            #expect(rings.lanes.map(\.capacity).reduce(0, +) == rings.capacity)
        }
        // A small ring is not split below the least lane.
        #expect(TraceRings.defaultLanes(capacity: 256) == 1)
    }

    /// Lanes are merged by their next event's time; each lane keeps its own order, even where
    /// its times are not in order (a runtime's events are recorded in the order its locks impose,
    /// not always the order of their stamps).
    @Test func lanesMergeByTimeAndKeepTheirOwnOrder() {
        let rings = TraceRings(capacity: 64, lanes: 2)
        for (sequence, time) in [5, 1, 9].enumerated() {
            rings.record(event(runtime: 1, sequence: UInt64(sequence), time: UInt64(time)))
        }
        for (sequence, time) in [2, 6].enumerated() {
            rings.record(event(runtime: 2, sequence: UInt64(sequence), time: UInt64(time)))
        }
        #expect(rings.snapshot().records.map(\.time) == [2, 5, 1, 6, 9])
        #expect(rings.drain().records.map(\.time) == [2, 5, 1, 6, 9])
        #expect(rings.drain().records.isEmpty)
        #expect(rings.counts.offered == 5)
    }

    /// A walk in chunks merges as a drain does: ties go to the lower lane, and an event stamped
    /// with the largest time (which the walk also uses for a finished lane) is not lost.
    @Test func walkInChunksMergesTiesAndTheLastTimeAsADrainDoes() {
        let rings = TraceRings(capacity: 64, lanes: 4)
        let times: [UInt64: [UInt64]] = [1: [3, 3, .max], 2: [3, 7], 3: [], 4: [1, .max]]
        for (runtime, stamps) in times {
            for (sequence, time) in stamps.enumerated() {
                rings.record(event(runtime: runtime, sequence: UInt64(sequence), time: time))
            }
        }
        // Runtime 4 is lane 0, runtime 1 lane 1, runtime 2 lane 2.
        let expected: [(UInt64, UInt64)] = [(4, 1), (1, 3), (1, 3), (2, 3), (2, 7), (4, .max), (1, .max)]
        for chunk in [1, 2, 3, 64] {
            var walked: [RawRecord] = []
            let (counts, unreadable) = rings.walk(chunk: chunk) { batch in
                #expect(batch.count <= chunk)
                walked += batch
            }
            #expect(walked.map { [$0.runtime, $0.time] } == expected.map { [$0.0, $0.1] }, "chunk \(chunk)")
            #expect(walked.allSatisfy(isWhole))
            #expect(counts.offered == 7 && unreadable == 0)
        }
        #expect(rings.drain().records.map { [$0.runtime, $0.time] } == expected.map { [$0.0, $0.1] })
    }

    /// On random lanes, with times drawn from a few values (ties everywhere, `.max` among them)
    /// and out of order within a lane, the walk (in random chunks) and the drain each give what a
    /// merge written here gives: each lane in its order, the lane with the earliest next event
    /// first, the lowest lane on a tie.
    @Test func walkAndDrainMergeAsAReferenceMerge() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<40 {
            let lanes = [2, 4, 8][round % 3]
            let rings = TraceRings(capacity: 1 << 10, lanes: lanes)
            var sequences: [UInt64: UInt64] = [:]
            // What each lane holds, in its order: (runtime, sequence, time).
            var held = Array(repeating: [(UInt64, UInt64, UInt64)](), count: lanes)
            for _ in 0..<Int.random(in: 0...300, using: &generator) {
                let runtime = UInt64.random(in: 1...UInt64(lanes + 2), using: &generator)
                let time = [1, 2, 3, 5, 8, UInt64.max].randomElement(using: &generator)!
                let sequence = sequences[runtime, default: 0]
                rings.record(event(runtime: runtime, sequence: sequence, time: time))
                held[Int(runtime) % lanes].append((runtime, sequence, time))
                sequences[runtime] = sequence + 1
            }
            var expected: [[UInt64]] = []
            var positions = Array(repeating: 0, count: lanes)
            while let lane = (0..<lanes).filter({ positions[$0] < held[$0].count }).min(by: {
                (held[$0][positions[$0]].2, $0) < (held[$1][positions[$1]].2, $1)
            }) {
                let (runtime, sequence, time) = held[lane][positions[lane]]
                expected.append([runtime, sequence, time])
                positions[lane] += 1
            }
            func merged(_ records: [RawRecord]) -> [[UInt64]] { records.map { [$0.runtime, $0.cycle, $0.time] } }
            var walked: [RawRecord] = []
            _ = rings.walk(chunk: Int.random(in: 1...64, using: &generator)) { walked += $0 }
            #expect(merged(walked) == expected, "round \(round): the walk")
            #expect(merged(rings.drain().records) == expected, "round \(round): the drain")
        }
    }

    /// Runtimes on threads of their own (as many as lanes, or more, so that some share one), a
    /// drainer and a snapshotter meanwhile: every event whole, once, in its runtime's order;
    /// offered = read + overwritten (+ discarded) exactly; and with a lane each, every batch in
    /// time order across runtimes (two threads sharing a lane record in ticket order, which their
    /// stamps, read before the ticket, may not follow by a few nanoseconds).
    @Test(.serialized, arguments: [TraceBufferMode.overwriteOldest, .discardNewest], [4, 6])
    func runtimesRaceADrainerAndASnapshotter(_ mode: TraceBufferMode, runtimes: Int) {
        let rings = TraceRings(capacity: 1 << 11, mode: mode, lanes: 4)
        let laneEach = runtimes <= rings.lanes.count
        let perRuntime = 40_000
        let done = Atomic<Int>(0)
        let threads = (1...runtimes).map { runtime in
            Thread {
                for s in 0..<perRuntime { rings.record(event(runtime: UInt64(runtime), sequence: UInt64(s))) }
                done.wrappingAdd(1, ordering: .releasing)
            }
        }
        threads.forEach { $0.start() }
        var delivered: [RawRecord] = []
        var snapshotsWhole = true
        var batchesInOrder = true
        func inOrder(_ records: [RawRecord]) -> Bool {
            !laneEach || zip(records, records.dropFirst()).allSatisfy { $0.time <= $1.time }
        }
        while done.load(ordering: .acquiring) < runtimes {
            let batch = rings.drain().records
            batchesInOrder = batchesInOrder && inOrder(batch)
            delivered += batch
            let snapshot = rings.snapshot().records
            snapshotsWhole = snapshotsWhole && snapshot.allSatisfy(isWhole) && inOrder(snapshot)
        }
        delivered += rings.drain().records
        #expect(snapshotsWhole)
        #expect(batchesInOrder)
        #expect(delivered.allSatisfy(isWhole))
        var last: [UInt64: UInt64] = [:]
        var seen = Set<UInt64>()
        var duplicates = 0
        var reordered = 0
        for r in delivered {
            if !seen.insert(r.dispatch).inserted { duplicates += 1 }
            if let previous = last[r.runtime], previous >= r.cycle { reordered += 1 }
            last[r.runtime] = r.cycle
        }
        #expect(duplicates == 0)
        #expect(reordered == 0)
        let counts = rings.counts
        let produced = UInt64(runtimes * perRuntime)
        #expect(counts.offered + counts.discarded == produced)
        #expect(UInt64(delivered.count) + counts.overwritten + counts.discarded == produced)
        if mode == .discardNewest { #expect(counts.overwritten == 0) } else { #expect(counts.discarded == 0) }
    }
}
