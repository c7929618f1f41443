/// Maximum queue depth per time bucket, in fixed memory: 48 buckets whose width doubles (merging
/// neighbours) whenever the trace outgrows them.
public struct DepthTimeline: Sendable {
    /// How many buckets the timeline has.
    public static let bucketCount = 48
    /// The time of the first depth recorded.
    public private(set) var start: UInt64?
    /// Nanoseconds a bucket covers (doubles as the trace outgrows the buckets).
    public private(set) var width: UInt64 = 1_000_000
    /// The deepest queue seen in each bucket.
    public private(set) var buckets = [UInt32](repeating: 0, count: DepthTimeline.bucketCount)
    /// How many buckets hold data.
    public private(set) var used = 0

    /// Records a queue depth at `time` (times before the first are counted in the first bucket).
    public mutating func record(time: UInt64, depth: UInt32) {
        if start == nil { start = time }
        guard let start, time >= start else { return }
        while (time - start) / width >= UInt64(Self.bucketCount) {
            var merged = [UInt32](repeating: 0, count: Self.bucketCount)
            for i in 0..<Self.bucketCount { merged[i / 2] = max(merged[i / 2], buckets[i]) }
            buckets = merged
            width *= 2
            used = (used + 1) / 2
        }
        let i = Int((time - start) / width)
        buckets[i] = max(buckets[i], depth)
        used = max(used, i + 1)
    }

    var thirds: (UInt32, UInt32) {
        let n = max(used, 1)
        let third = max(1, n / 3)
        let early = buckets[0..<third].max() ?? 0
        let late = buckets[max(0, n - third)..<n].max() ?? 0
        return (early, late)
    }

    /// Whether the deepest queue of the last third of the trace is at least twice (and 8 more
    /// than) that of the first third.
    public var isGrowing: Bool {
        let (early, late) = thirds
        return used >= 6 && late >= 8 && UInt64(late) >= 2 * UInt64(max(early, 1))
    }
}
