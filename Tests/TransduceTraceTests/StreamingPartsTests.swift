import Testing

@testable import TransduceTrace

/// The small structures the streaming analyses keep their memory bounded with, against the plain
/// collections they stand for.
@Suite struct StreamingPartsTests {
    /// A fixed pseudo-random sequence (SplitMix64), so a failure repeats.
    struct Numbers {
        var state: UInt64
        mutating func next(below n: UInt64) -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return (z ^ (z >> 31)) % n
        }
    }

    @Test func idRangesHoldWhatASetHolds() {
        var numbers = Numbers(state: 7)
        var ranges = IDRanges()
        var set = Set<UInt64>()
        // Mostly ascending ids with stragglers, as objects end in a trace.
        for i in 0..<20_000 as Range<UInt64> {
            let id = numbers.next(below: 4) == 0 ? numbers.next(below: i + 1) : i
            ranges.insert(id)
            set.insert(id)
        }
        for id in 0..<20_100 as Range<UInt64> { #expect(ranges.contains(id) == set.contains(id), "id \(id)") }
        // Runs of consecutive ids are kept as one range each.
        let runs = (0..<20_100 as Range<UInt64>).filter { set.contains($0) && !set.contains($0 &- 1) }.count
        #expect(ranges.rangeCount == runs)
    }

    @Test func topHeapKeepsTheBestInOrder() {
        var numbers = Numbers(state: 11)
        let values = (0..<5_000).map { _ in numbers.next(below: 1_000) }
        for capacity in [1, 7, 100, 10_000] {
            var heap = TopHeap<UInt64>(capacity: capacity, better: >)
            for v in values { heap.insert(v) }
            #expect(heap.sortedBest() == Array(values.sorted(by: >).prefix(capacity)))
        }
    }

    @Test func recentlyDoneHandsBackTheOldest() {
        var recent = RecentlyDone<Int, String>(capacity: 3)
        #expect(recent.insert(1, "a") == nil)
        #expect(recent.insert(2, "b") == nil)
        #expect(recent.insert(3, "c") == nil)
        #expect(recent.remove(2) == "b")
        let pushed = recent.insert(4, "d")
        #expect(pushed?.0 == 1 && pushed?.1 == "a")
        // 2 was taken out: its turn hands back nothing.
        #expect(recent.insert(5, "e") == nil)
        #expect(recent.remove(3) == "c" && recent.remove(4) == "d" && recent.remove(5) == "e")
    }
}
