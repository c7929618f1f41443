import Foundation
import Transduce

/// The runtime's clock (``MonotonicClock``) against `clock_gettime(CLOCK_MONOTONIC)`: what a read
/// costs, and how far apart the two are over a run.
enum ClockCheck {
    /// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds.
    @inline(__always)
    static func reference() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Thread CPU nanoseconds a read of `MonotonicClock.now()` and of `clock_gettime`, over `n`
    /// reads each.
    @inline(never)
    static func readCosts(_ n: Int) -> (clock: Double, clockGettime: Double) {
        var sink: UInt64 = 0
        let clock = cpuNanosPerIteration(n) { for _ in 0..<n { sink &+= MonotonicClock.now() } }
        let gettime = cpuNanosPerIteration(n) { for _ in 0..<n { sink &+= Self.reference() } }
        if sink == 42 { print("") }  // keeps the reads
        return (clock, gettime)
    }

    /// How far the clock's reads lie outside `clock_gettime` reads around them over `seconds`
    /// (a bracket every 10 ms; brackets an interruption widened past 2 µs are left out): the
    /// worst and the 99th percentile in nanoseconds, and the brackets counted.
    static func offsets(seconds: Double) -> (worst: Double, p99: Double, checked: Int) {
        var offsets: [UInt64] = []
        let end = reference() + UInt64(seconds * 1e9)
        while reference() < end {
            for _ in 0..<5 {
                let before = reference()
                let read = MonotonicClock.now()
                let after = reference()
                guard after - before < 2_000 else { continue }
                offsets.append(read < before ? before - read : read > after ? read - after : 0)
            }
            usleep(10_000)
        }
        offsets.sort()
        guard !offsets.isEmpty else { return (.nan, .nan, 0) }
        return (Double(offsets.last!), Double(offsets[offsets.count * 99 / 100]), offsets.count)
    }

    /// `transduce-bench --clock-check SECONDS`: the offsets over a long run, printed and exited.
    static func runAndExit(seconds: Double) -> Never {
        _ = MonotonicClock.awaitTimeStampCounter(within: 2_000_000_000)
        print("clock: \(MonotonicClock.readsTimeStampCounter ? "time-stamp counter" : "clock_gettime")")
        let (worst, p99, checked) = offsets(seconds: seconds)
        print("clock_offset_ns: worst \(Int(worst)), p99 \(Int(p99)) over \(checked) reads in \(Int(seconds)) s")
        exit(0)
    }
}
