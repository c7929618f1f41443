#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tests `trace-view diff` decides "slower" and "faster" with, on two latency histograms
/// (``LatencyHistogram``: buckets about 3 % wide, so memory stays bounded whatever the number of
/// requests).
///
/// - Mann-Whitney U for a shift of the whole distribution. Latencies are skewed and
///   heavy-tailed, nowhere near normal, so a t-test's mean and variance are ruled by a few
///   outliers; a rank test asks only whether a request of one run tends to take longer than one
///   of the other, whatever the shape, and a histogram's buckets are exactly its ties (mid-ranks,
///   with the tie correction of the variance). Its effect size is the probability of
///   superiority, P(new > base) + ½ P(tie) (Vargha and Delaney's A: 0.5 for no change).
/// - A distribution-free confidence interval of a quantile, from the order statistics (the
///   binomial's normal approximation), for the tail: a rank test barely sees the slowest 1 %
///   move, and a p99 that grew is what users feel.
/// - The sign test for requests paired by their trace context (``signTest(slower:faster:)``).
package enum RankTests {
    /// The outcome of a Mann-Whitney U test of `new` against `base`.
    package struct Shift: Sendable, Equatable {
        /// Two-sided p-value (normal approximation with continuity and tie corrections).
        package var p: Double
        /// P(new > base) + ½ P(tie): above 0.5 when the new run's requests tend to be slower.
        package var superiority: Double
    }

    /// The fewest samples on each side the tests are run with: below, the normal approximation
    /// does not hold and a verdict would be noise.
    package static let minimumSamples: UInt64 = 20

    /// Mann-Whitney U of `new` against `base`; nil when either has fewer than
    /// ``minimumSamples``.
    package static func mannWhitney(base: LatencyHistogram, new: LatencyHistogram) -> Shift? {
        guard base.count >= minimumSamples, new.count >= minimumSamples else { return nil }
        let n1 = Double(base.count)
        let n2 = Double(new.count)
        let all = n1 + n2
        // Walk both histograms' buckets in order: each bucket is a run of ties.
        var rankSumNew = 0.0
        var below = 0.0
        var ties = 0.0
        for (a, b) in LatencyHistogram.pairedBuckets(base, new) {
            let t = Double(a + b)
            let midRank = below + (t + 1) / 2
            rankSumNew += Double(b) * midRank
            ties += t * t * t - t
            below += t
        }
        let u = rankSumNew - n2 * (n2 + 1) / 2
        let mean = n1 * n2 / 2
        let variance = n1 * n2 / 12 * ((all + 1) - ties / (all * (all - 1)))
        let superiority = u / (n1 * n2)
        guard variance > 0 else { return Shift(p: 1, superiority: superiority) }
        let z = max(0, abs(u - mean) - 0.5) / variance.squareRoot()
        return Shift(p: erfc(z / 2.0.squareRoot()), superiority: superiority)
    }

    /// The two-sided exact p-value of the sign test: of `slower + faster` paired requests that
    /// changed (ties dropped), `slower` took longer. Asks only whether a request tends to take
    /// longer in the new run than the same request in the base, with no assumption on the shape
    /// of the differences (the signed-rank test assumes them symmetric, which latencies' are
    /// not). The binomial's tail summed in logarithms, exact for any count.
    package static func signTest(slower: UInt64, faster: UInt64) -> Double {
        let n = slower + faster
        guard n > 0, slower != faster else { return 1 }
        let fewer = min(slower, faster)
        let logHalf = Double(n) * -M_LN2
        let logN = logFactorial(n)
        var tail = 0.0
        for k in 0...fewer { tail += exp(logN - logFactorial(k) - logFactorial(n - k) + logHalf) }
        return min(1, 2 * tail)
    }

    /// ln(n!).
    private static func logFactorial(_ n: UInt64) -> Double {
        let value: Double = lgamma(Double(n) + 1)
        return value
    }

    /// A confidence interval of quantile `q` of the distribution `h` samples, at about `z`
    /// standard errors (3.29: 99.9 %): the values at the order statistics whose ranks the
    /// binomial's normal approximation gives. Exact to the bucket. Nil when `h` has too few
    /// samples for the interval to stand clear of its extremes (ranks outside 1...n): then it is
    /// the maximum, which one stall of a machine sets — for a p99, below about 1,450 samples.
    package static func quantileInterval(_ h: LatencyHistogram, _ q: Double, z: Double = 3.29) -> ClosedRange<UInt64>? {
        let n = Double(h.count)
        guard n > 0 else { return nil }
        let spread = z * (n * q * (1 - q)).squareRoot()
        let lowRank = (n * q - spread).rounded(.up)
        let highRank = (n * q + spread + 1).rounded(.up)
        guard lowRank >= 1, highRank < n else { return nil }
        let low = h.percentile(lowRank / n)
        return low...max(low, h.percentile(highRank / n))
    }
}
