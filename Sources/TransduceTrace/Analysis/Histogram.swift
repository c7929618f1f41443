/// A fixed-memory latency histogram with about 3% relative precision (log-linear buckets, 32
/// sub-buckets per power of two), for percentiles over any number of samples.
public struct LatencyHistogram: Sendable, Equatable {
    static let subBits = 5
    static let sub = 1 << subBits
    private var buckets = [UInt64](repeating: 0, count: 64 * (1 << 5))
    /// Samples recorded.
    public private(set) var count: UInt64 = 0
    /// Their sum (saturating).
    public private(set) var total: UInt64 = 0
    /// The largest sample.
    public private(set) var max: UInt64 = 0
    /// The smallest sample (`UInt64.max` while empty).
    public private(set) var min: UInt64 = .max

    /// An empty histogram (about 16 KiB of buckets).
    public init() {}

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

    /// Adds one sample. Constant time; never allocates.
    public mutating func record(_ value: UInt64) {
        buckets[Self.index(value)] += 1
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
            if seen >= Swift.max(rank, 1) { return Swift.min(Self.lowerBound(i), max) }
        }
        return max
    }

    /// The mean sample (0 while empty).
    public var mean: UInt64 { count == 0 ? 0 : total / count }

    /// Counts per power-of-two range, from the smallest to the largest non-empty one.
    public var powerOfTwoRanges: [(lower: UInt64, upper: UInt64, count: UInt64)] {
        var ranges: [(UInt64, UInt64, UInt64)] = []
        var perPower = [UInt64](repeating: 0, count: 65)
        for (i, n) in buckets.enumerated() where n > 0 {
            let lower = Self.lowerBound(i)
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
