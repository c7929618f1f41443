import Testing
import TransduceTestSupport

@testable import TransduceTrace

/// `LatencyHistogram` against the samples themselves: every percentile is the lower bound of
/// the bucket the sorted samples put that rank in (capped at the largest), every power-of-two
/// count is the samples' own; and it holds only the powers of two between its extremes, so a
/// view that keeps one per runtime keeps what they hold.
@Suite struct HistogramTests {
    @Test(arguments: [1, 2, 3, 4, 5]) func percentilesAndRangesAreTheSamples(_ seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var histogram = LatencyHistogram()
        var samples: [UInt64] = []
        for _ in 0..<5_000 {
            // Magnitudes from 0 to 2^63, so buckets are added below and above those held.
            let magnitude = UInt64.random(in: 0...63, using: &random)
            let value = magnitude == 0 ? 0 : UInt64.random(in: (1 << (magnitude - 1))...(1 << magnitude), using: &random)
            histogram.record(value)
            samples.append(value)
        }
        samples.sort()
        #expect(histogram.count == UInt64(samples.count) && histogram.max == samples.last && histogram.min == samples.first)
        for q in [0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0] {
            let rank = max(1, Int((q * Double(samples.count)).rounded(.up)))
            let expected = min(LatencyHistogram.lowerBound(LatencyHistogram.index(samples[rank - 1])), samples.last!)
            #expect(histogram.percentile(q) == expected, "p\(q)")
        }
        var perPower: [Int: UInt64] = [:]
        for v in samples { perPower[v == 0 ? 0 : 64 - v.leadingZeroBitCount, default: 0] += 1 }
        for r in histogram.powerOfTwoRanges {
            let power = r.lower == 0 ? 0 : 64 - r.lower.leadingZeroBitCount
            #expect(r.count == perPower[power] ?? 0, "[\(r.lower), \(r.upper))")
        }
        #expect(histogram.powerOfTwoRanges.reduce(0) { $0 + $1.count } == UInt64(samples.count))
    }

    @Test func itHoldsOnlyThePowersOfTwoItsSamplesSpan() {
        var empty = LatencyHistogram()
        #expect(empty.heldBuckets == 0 && empty.percentile(0.99) == 0 && empty.powerOfTwoRanges.isEmpty)
        // Microseconds: 1,024 to 4,095 ns spans two powers of two.
        for v in stride(from: UInt64(1_024), to: 4_096, by: 7) { empty.record(v) }
        #expect(empty.heldBuckets == 2 * 32)
        // The same samples in any order give the same histogram.
        var reversed = LatencyHistogram()
        for v in stride(from: UInt64(1_024), to: 4_096, by: 7).reversed() { reversed.record(v) }
        #expect(reversed == empty)
        var extremes = LatencyHistogram()
        extremes.record(.max)
        extremes.record(0)
        // (2^64 − 1's bucket is the 60th power of two's last: 0 to 2^64 take 60 × 32 buckets.)
        #expect(extremes.heldBuckets == 60 * 32 && extremes.percentile(0.5) == 0)
        #expect(extremes.percentile(1) == LatencyHistogram.lowerBound(LatencyHistogram.index(.max)))
    }
}
