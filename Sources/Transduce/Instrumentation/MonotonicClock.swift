import CTransduceClock

/// Nanoseconds of `CLOCK_MONOTONIC`, the clock LTTng stamps its events with, so ring-buffer
/// traces and LTTng traces of one process line up.
///
/// On x86-64, where the processor's time-stamp counter is invariant and the kernel itself keeps
/// `CLOCK_MONOTONIC` on it (its clock source is `tsc`), a read scales the counter (about 14 ns,
/// against 34 for `clock_gettime` through the vDSO); the scale is measured against
/// `clock_gettime` over the process's first 50 ms of reads, and slewed every 50 ms to keep the two
/// within about a microsecond however long the process runs. Until then, elsewhere, or with
/// `TRANSDUCE_CLOCK=monotonic` in the environment, each read is `clock_gettime`'s.
public enum MonotonicClock {
    /// The current time in nanoseconds of `CLOCK_MONOTONIC`. Thread-safe; never blocks, never
    /// allocates.
    @inlinable @inline(__always)
    public static func now() -> UInt64 { transduce_clock_now() }

    /// The nanoseconds from `start` to `end`, two reads of this clock: 0 when `start` is 0 (not
    /// read) or not before `end`. Two reads on different threads can come out a few nanoseconds
    /// apart the wrong way (the counter is read unserialized), never a wrapped-around duration.
    @inlinable
    public static func nanos(from start: UInt64, to end: UInt64) -> UInt64 {
        start == 0 || end <= start ? 0 : end - start
    }

    /// Whether reads come from the time-stamp counter now (`false` before its calibration, on
    /// other processors, and where the kernel does not trust it).
    public static var readsTimeStampCounter: Bool { transduce_clock_uses_counter() != 0 }

    /// Reads the clock until it reads the time-stamp counter (its calibration takes the first
    /// 50 ms of reads), until it has decided not to, or for `nanoseconds` at most; then
    /// ``readsTimeStampCounter``. For benchmarks and tests that must not count or check the
    /// calibration's `clock_gettime` reads.
    package static func awaitTimeStampCounter(within nanoseconds: UInt64) -> Bool {
        transduce_clock_await_counter(nanoseconds) != 0
    }
}
