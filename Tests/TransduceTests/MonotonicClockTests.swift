import Foundation
import Synchronization
import Testing

@testable import Transduce

#if canImport(Glibc)
    import Glibc
#endif

/// The runtime's clock against `clock_gettime(CLOCK_MONOTONIC)` itself.
@Suite struct MonotonicClockTests {
    /// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds: the reference.
    static func reference() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Whether this machine lets the clock read the time-stamp counter, judged apart from the
    /// clock's own check: an x86-64 processor whose counter the kernel calls invariant
    /// (`constant_tsc` and `nonstop_tsc`), the kernel's clock source `tsc`, and no
    /// `TRANSDUCE_CLOCK=monotonic`.
    static var counterExpected: Bool {
        #if arch(x86_64)
            guard ProcessInfo.processInfo.environment["TRANSDUCE_CLOCK"] != "monotonic",
                let source = try? String(
                    contentsOfFile: "/sys/devices/system/clocksource/clocksource0/current_clocksource", encoding: .utf8),
                source.trimmingCharacters(in: .whitespacesAndNewlines) == "tsc",
                let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
                let flags = cpu.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
            else { return false }
            let words = Set(flags.split(separator: " "))
            return words.contains("constant_tsc") && words.contains("nonstop_tsc")
        #else
            return false
        #endif
    }

    /// Reads the clock until its calibration is over (50 ms of reads), 2 s at most.
    static func calibrated() -> Bool { MonotonicClock.awaitTimeStampCounter(within: 2_000_000_000) }

    /// Where the counter is safe the clock reads it, and every read lies within a microsecond
    /// of `clock_gettime` read around it — over 1.5 s, thirty of the clock's 50 ms corrections.
    /// Reads whose bracket an interruption widened past 2 µs prove nothing and are left out.
    /// Two threads read the clock all the while, so reads race the scale's updates (a race
    /// once made the clock measure its rate again over microseconds, and drift microseconds).
    @Test func readsStayWithinAMicrosecondOfClockGettime() throws {
        #expect(Self.calibrated() == Self.counterExpected)
        let stop = Atomic<Bool>(false)
        let readers = (0..<2).map { _ in
            Thread {
                while !stop.load(ordering: .relaxed) { _ = MonotonicClock.now() }
            }
        }
        readers.forEach { $0.start() }
        defer { stop.store(true, ordering: .relaxed) }
        let end = Self.reference() + 1_500_000_000
        var checked = 0
        var worst: Int64 = 0
        var outside: [(before: UInt64, read: UInt64, after: UInt64)] = []
        while Self.reference() < end {
            for _ in 0..<20 {
                let before = Self.reference()
                let read = MonotonicClock.now()
                let after = Self.reference()
                guard after - before < 2_000 else { continue }
                checked += 1
                let off = read < before ? Int64(before - read) : read > after ? Int64(read - after) : 0
                worst = max(worst, off)
                if off > 1_000 { outside.append((before, read, after)) }
            }
            usleep(500)
        }
        #expect(checked > 1_000, "only \(checked) reads were not interrupted")
        #expect(
            outside.isEmpty, "\(outside.count) of \(checked) reads off by over 1 µs (worst \(worst) ns): \(outside.prefix(3))")
    }

    /// Reads on one thread never go back, across the clock's corrections.
    @Test func readsOnOneThreadNeverGoBack() {
        _ = Self.calibrated()
        let end = Self.reference() + 300_000_000
        var last = MonotonicClock.now()
        var back = 0
        var reads = 0
        while Self.reference() < end {
            for _ in 0..<1_000 {
                let now = MonotonicClock.now()
                if now < last { back += 1 }
                last = now
                reads += 1
            }
        }
        #expect(back == 0, "\(back) of \(reads) reads went back")
    }

    /// A duration between two reads is never a wrapped-around subtraction.
    @Test func durationsAreNeverNegative() {
        #expect(MonotonicClock.nanos(from: 10, to: 25) == 15)
        #expect(MonotonicClock.nanos(from: 25, to: 10) == 0)
        #expect(MonotonicClock.nanos(from: 0, to: 10) == 0)
        #expect(MonotonicClock.nanos(from: 7, to: 7) == 0)
    }
}
