import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace

/// `diff`'s tests against SciPy's: the Mann-Whitney U test of two latency histograms is
/// `scipy.stats.mannwhitneyu` (two-sided, asymptotic, with the continuity correction) of the
/// same samples, ties and all; and a p99's interval stands clear of the maximum only from about
/// 1,450 samples on.
@Suite struct RankTestsTests {
    static let scipy: Bool = {
        guard let python = Subprocess.which("python3"),
            let run = try? Subprocess.run(python, ["-c", "import scipy.stats"], output: .captureSeparately, timeout: 60)
        else { return false }
        return run.status == 0
    }()

    /// Samples that are each a bucket's lower bound (so the histogram holds them exactly), from
    /// `seed`: `count` of them, `shift` buckets up from a spread of a few octaves.
    static func samples(_ count: Int, shift: Int, seed: UInt64) -> [UInt64] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in LatencyHistogram.lowerBound(400 + shift + Int(random.next(below: 96))) }
    }

    @Test(.enabled(if: scipy), arguments: [(0, 0), (0, 2), (3, 0), (0, 30)])
    func mannWhitneyIsSciPys(shift: Int, seed: UInt64) async throws {
        let base = Self.samples(500, shift: 0, seed: 100 + seed)
        let new = Self.samples(700, shift: shift, seed: 200 + seed)
        var (a, b) = (LatencyHistogram(), LatencyHistogram())
        for v in base { a.record(v) }
        for v in new { b.record(v) }
        let ours = try #require(RankTests.mannWhitney(base: a, new: b))
        let dir = TemporaryDirectory()
        try (base.map(String.init).joined(separator: " ") + "\n" + new.map(String.init).joined(separator: " "))
            .write(toFile: dir.file("samples"), atomically: true, encoding: .utf8)
        let script = """
            import sys, scipy.stats
            lines = open(sys.argv[1]).read().split("\\n")
            x = [int(v) for v in lines[0].split()]
            y = [int(v) for v in lines[1].split()]
            r = scipy.stats.mannwhitneyu(y, x, alternative="two-sided", method="asymptotic", use_continuity=True)
            print(repr(float(r.pvalue)), repr(float(r.statistic) / (len(x) * len(y))))
            """
        let file = dir.file("samples")
        let run = try await offThePool {
            try Subprocess.run(Subprocess.which("python3")!, ["-c", script, file], output: .captureSeparately, timeout: 120)
        }
        #expect(run.status == 0, "\(run.errors)")
        let theirs = run.output.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(theirs.count == 2)
        let (p, superiority) = (theirs[0], theirs[1])
        #expect(abs(ours.superiority - superiority) < 1e-12, "A: ours \(ours.superiority), SciPy's \(superiority)")
        #expect(abs(ours.p - p) <= max(1e-12, 1e-6 * p), "p: ours \(ours.p), SciPy's \(p)")
    }

    /// The sign test is SciPy's exact `binomtest` (two-sided, p 0.5) of the same counts, small
    /// and large, balanced and lopsided.
    @Test(.enabled(if: scipy)) func theSignTestIsSciPysBinomialTest() async throws {
        let cases: [(UInt64, UInt64)] = [(3, 1), (15, 5), (60, 40), (197, 0), (480, 520), (9_000, 8_700), (0, 25)]
        let script = """
            import sys, scipy.stats
            for pair in sys.argv[1:]:
                s, f = (int(v) for v in pair.split(","))
                print(repr(float(scipy.stats.binomtest(s, s + f, 0.5, alternative="two-sided").pvalue)))
            """
        let run = try await offThePool {
            try Subprocess.run(
                Subprocess.which("python3")!, ["-c", script] + cases.map { "\($0.0),\($0.1)" }, output: .captureSeparately,
                timeout: 120)
        }
        #expect(run.status == 0, "\(run.errors)")
        let theirs = run.output.split(separator: "\n").compactMap { Double($0) }
        #expect(theirs.count == cases.count)
        for (c, p) in zip(cases, theirs) {
            let ours = RankTests.signTest(slower: c.0, faster: c.1)
            #expect(abs(ours - p) <= max(1e-12, 1e-9 * p), "\(c): ours \(ours), SciPy's \(p)")
        }
    }

    @Test func aP99IntervalNeedsThousandsOfSamples() throws {
        func interval(_ n: Int) -> ClosedRange<UInt64>? {
            var h = LatencyHistogram()
            for i in 0..<n { h.record(UInt64(1_000 + i)) }
            return RankTests.quantileInterval(h, 0.99)
        }
        #expect(interval(200) == nil && interval(1_400) == nil)
        let clear = try #require(interval(1_600))
        #expect(clear.upperBound < 1_000 + 1_599, "\(clear)")
    }
}
