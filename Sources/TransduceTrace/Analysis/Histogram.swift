/// A bounded-memory latency histogram with about 3% relative precision (log-linear buckets, 32
/// sub-buckets per power of two), for percentiles over any number of samples.
///
/// It holds only the powers of two between its smallest and largest sample (32 buckets each,
/// 256 bytes): an empty one holds none, a runtime whose cycles all take microseconds a few
/// (about 1–3 KiB), and any one at most 60 (15 KiB). A view that keeps one per runtime of a
/// trace of a hundred thousand runtimes keeps what they hold, not 16 KiB each.
public struct LatencyHistogram: Sendable, Equatable {
    static let subBits = 5
    static let sub = 1 << subBits
    /// The buckets from index ``first`` on, whole powers of two (``sub`` buckets each).
    private var buckets: [UInt64] = []
    /// The index of `buckets[0]` (a multiple of ``sub``).
    private var first = 0
    /// Samples recorded.
    public private(set) var count: UInt64 = 0
    /// Their sum (saturating).
    public private(set) var total: UInt64 = 0
    /// The largest sample.
    public private(set) var max: UInt64 = 0
    /// The smallest sample (`UInt64.max` while empty).
    public private(set) var min: UInt64 = .max

    /// An empty histogram (no buckets until its first sample).
    public init() {}

    /// How many buckets it holds (32 per power of two between its smallest and largest sample).
    package var heldBuckets: Int { buckets.count }

    package static func index(_ value: UInt64) -> Int {
        if value < UInt64(sub) { return Int(value) }
        let magnitude = 63 - value.leadingZeroBitCount
        let shift = magnitude - subBits
        let subIndex = Int((value >> UInt64(shift)) & UInt64(sub - 1))
        return (shift + 1) * sub + subIndex
    }

    package static func lowerBound(_ index: Int) -> UInt64 {
        if index < sub { return UInt64(index) }
        let shift = index / sub - 1
        let subIndex = index % sub
        return (UInt64(sub) | UInt64(subIndex)) << UInt64(shift)
    }

    /// Adds one sample. Constant time; allocates only for a sample outside the powers of two
    /// held so far (at most 60 times in a histogram's life).
    public mutating func record(_ value: UInt64) {
        let i = Self.index(value)
        if i < first || i >= first + buckets.count { cover(i) }
        buckets[i - first] += 1
        count += 1
        total = total.plus(value)
        if value > max { max = value }
        if value < min { min = value }
    }

    /// The value at quantile `q` (0...1): exact to the bucket, at most `max`.
    public func percentile(_ q: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = UInt64((q * Double(count)).rounded(.up))
        var seen: UInt64 = 0
        for (i, n) in buckets.enumerated() where n > 0 {
            seen += n
            if seen >= Swift.max(rank, 1) { return Swift.min(Self.lowerBound(first + i), max) }
        }
        return max
    }

    /// Grows the buckets held to the powers of two from the lowest held (or `index`'s) to the
    /// highest held (or `index`'s).
    private mutating func cover(_ index: Int) {
        let octave = index / Self.sub * Self.sub
        guard !buckets.isEmpty else {
            first = octave
            buckets = [UInt64](repeating: 0, count: Self.sub)
            return
        }
        if octave < first {
            buckets.insert(contentsOf: repeatElement(0, count: first - octave), at: 0)
            first = octave
        } else {
            buckets += repeatElement(0, count: octave + Self.sub - first - buckets.count)
        }
    }

    /// The mean sample (0 while empty).
    public var mean: UInt64 { count == 0 ? 0 : total / count }

    /// Counts per power-of-two range, from the smallest to the largest non-empty one.
    public var powerOfTwoRanges: [(lower: UInt64, upper: UInt64, count: UInt64)] {
        var ranges: [(UInt64, UInt64, UInt64)] = []
        var perPower = [UInt64](repeating: 0, count: 65)
        for (i, n) in buckets.enumerated() where n > 0 {
            let lower = Self.lowerBound(first + i)
            let power = lower == 0 ? 0 : 64 - lower.leadingZeroBitCount
            perPower[power] += n
        }
        guard let first = perPower.firstIndex(where: { $0 > 0 }), let last = perPower.lastIndex(where: { $0 > 0 }) else {
            return []
        }
        for power in first...last {
            let lower: UInt64 = power == 0 ? 0 : 1 << UInt64(power - 1)
            let upper: UInt64 = power == 0 ? 1 : (power >= 64 ? .max : 1 << UInt64(power))
            ranges.append((lower, upper, perPower[power]))
        }
        return ranges
    }
}

extension LatencyHistogram {
    /// The counts of `a` and of `b` bucket by bucket, smallest values first, over every bucket
    /// either holds (for tests that rank the samples of both: ``RankTests``).
    package static func pairedBuckets(_ a: LatencyHistogram, _ b: LatencyHistogram) -> [(UInt64, UInt64)] {
        let held = [a, b].filter { !$0.buckets.isEmpty }
        guard let low = held.map(\.first).min(), let high = held.map({ $0.first + $0.buckets.count }).max() else {
            return []
        }
        func count(_ h: LatencyHistogram, _ i: Int) -> UInt64 {
            i >= h.first && i < h.first + h.buckets.count ? h.buckets[i - h.first] : 0
        }
        return (low..<high).compactMap { i in
            let pair = (count(a, i), count(b, i))
            return pair == (0, 0) ? nil : pair
        }
    }
}

extension LatencyHistogram {
    /// The value at quantile `q` (0...1) with `zeros` more samples of 0 than it holds, read
    /// between its bucket's bounds in proportion to the rank's place among the bucket's samples
    /// (a bucket is about 3 % wide: a difference of two medians read at their buckets' lower
    /// bounds could be off by a bucket each). Within `min...max`.
    package func interpolatedPercentile(_ q: Double, zeros: UInt64 = 0) -> UInt64 {
        let all = count + zeros
        guard all > 0 else { return 0 }
        let rank = Swift.min(Double(all), Swift.max(1, q * Double(all)))
        guard rank > Double(zeros), count > 0 else { return 0 }
        let wanted = rank - Double(zeros)
        var seen = 0.0
        for (i, n) in buckets.enumerated() where n > 0 {
            if seen + Double(n) >= wanted {
                let lower = Double(Self.lowerBound(first + i))
                let upper = Double(Self.lowerBound(first + i + 1))
                let value = lower + (upper - lower) * (wanted - seen) / Double(n)
                return Swift.min(max, Swift.max(min, UInt64(value)))
            }
            seen += Double(n)
        }
        return max
    }
}

extension LatencyHistogram {
    /// The counts of `a` and of `b` in shared bins of `perOctave` a power of two (1, 2, 4, 8,
    /// 16 or 32), from the smallest sample of either to the largest, for drawing the two
    /// distributions on one axis: `edges` holds each bin's lower bound and, last, the upper bound
    /// of the last (so one more than the counts).
    package static func sharedBins(_ a: LatencyHistogram, _ b: LatencyHistogram, perOctave: Int = 4) -> (
        edges: [UInt64], a: [UInt64], b: [UInt64]
    ) {
        let held = [a, b].filter { $0.count > 0 }
        guard let low = held.map({ index($0.min) }).min(), let high = held.map({ index($0.max) }).max() else {
            return ([], [], [])
        }
        let width = sub / Swift.max(1, Swift.min(sub, perOctave))
        // Below `sub` a bucket is one value; group the indices by `width` either way.
        let firstBin = low / width
        let lastBin = high / width
        var edges = (firstBin...lastBin).map { lowerBound($0 * width) }
        edges.append(lowerBound((lastBin + 1) * width))
        func counts(_ h: LatencyHistogram) -> [UInt64] {
            var out = [UInt64](repeating: 0, count: lastBin - firstBin + 1)
            for (offset, n) in h.buckets.enumerated() where n > 0 {
                out[(h.first + offset) / width - firstBin] += n
            }
            return out
        }
        return (edges, counts(a), counts(b))
    }
}
