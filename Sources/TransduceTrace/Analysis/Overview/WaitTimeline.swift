/// The waits for a gate by when they ended, in the buckets of its contention report's depth
/// timeline: per bucket, how many waits fell in each of ``LatencyHistogram``'s buckets (about
/// 3 % wide), merged pairwise when the timeline's are. Memory is bounded by the timeline's 48
/// buckets whatever the number of cycles (a list of every wait was 16 bytes a cycle: 230 MB at
/// 100M events); a p99 is exact to its histogram bucket.
package struct WaitTimeline {
    private var width: UInt64 = 0
    private var buckets = [[Int: UInt64]](repeating: [:], count: DepthTimeline.bucketCount)

    /// Records a wait that ended at `time`, on `timeline` as it stands once that time is in it.
    package mutating func record(time: UInt64, wait: UInt64, on timeline: DepthTimeline) {
        guard let start = timeline.start else { return }
        if width == 0 { width = timeline.width }
        while width < timeline.width {
            var merged = [[Int: UInt64]](repeating: [:], count: buckets.count)
            for i in buckets.indices { merged[i / 2].merge(buckets[i], uniquingKeysWith: +) }
            buckets = merged
            width *= 2
        }
        let i = time <= start ? 0 : Int(min(UInt64(buckets.count - 1), (time - start) / width))
        buckets[i][LatencyHistogram.index(wait), default: 0] += 1
    }

    /// The p99 of each of the first `count` groups of `group` buckets (0 for none): the lower
    /// bound of the histogram bucket that holds it.
    package func p99s(group: Int, count: Int) -> [UInt64] {
        (0..<count).map { g in
            var counts: [Int: UInt64] = [:]
            for i in (g * group)..<min((g + 1) * group, buckets.count) { counts.merge(buckets[i], uniquingKeysWith: +) }
            let n = counts.values.reduce(0, +)
            guard n > 0 else { return 0 }
            // The sample at index ⌊0.99 n⌋ (0-based) of the sorted waits, as it was computed
            // from the waits themselves.
            let rank = min(n - 1, UInt64(Double(n) * 0.99)) + 1
            var seen: UInt64 = 0
            for (index, c) in counts.sorted(by: { $0.key < $1.key }) {
                seen += c
                if seen >= rank { return LatencyHistogram.lowerBound(index) }
            }
            return 0
        }
    }
}
