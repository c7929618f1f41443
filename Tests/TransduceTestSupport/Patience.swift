import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How long the tests' hang guards wait on this machine.
///
/// Every wait in the tests is a guard against a hang, never an assertion of speed: a request that
/// takes microseconds on a quiet machine took minutes at load 12 on two cores, with the whole
/// suite in one process (plain `swift test`). So a guard waits at least ``minimumSeconds``, times
/// ``factor``: how much slower than its own CPU time a fixed computation ran when first measured
/// (the share of a core a thread of this process gets), or `TRANSDUCE_TEST_PATIENCE` when set.
public enum Patience {
    /// The shortest hang guard, in seconds, before the factor.
    public static let minimumSeconds: Double = 120

    /// The machine's measured slowness: at least 1, at most 8.
    public static let factor: Double = {
        if let text = ProcessInfo.processInfo.environment["TRANSDUCE_TEST_PATIENCE"], let value = Double(text), value >= 1 {
            return min(value, 100)
        }
        return measuredSlowness()
    }()

    /// The hang guard for a wait a test names as `seconds`.
    public static func guarding(_ seconds: Double) -> Double { max(seconds, minimumSeconds) * factor }

    /// A test's time limit of `minutes` on this machine, in whole minutes (`.timeLimit(.minutes(…))`).
    public static func minutes(_ minutes: Int) -> Int { Int((Double(minutes) * factor).rounded(.up)) }

    /// Wall time over CPU time of a computation of about 20 ms of CPU on this thread.
    static func measuredSlowness() -> Double {
        func now(_ clock: clockid_t) -> Double {
            var t = timespec()
            clock_gettime(clock, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        }
        let (wall0, cpu0) = (now(CLOCK_MONOTONIC), now(CLOCK_THREAD_CPUTIME_ID))
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        while now(CLOCK_THREAD_CPUTIME_ID) - cpu0 < 0.02 {
            for _ in 0..<10_000 { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
        }
        let cpu = now(CLOCK_THREAD_CPUTIME_ID) - cpu0
        let wall = now(CLOCK_MONOTONIC) - wall0
        // Keeps `x` alive without printing it.
        guard x != 0, cpu > 0 else { return 1 }
        return min(max(wall / cpu, 1), 8)
    }
}
