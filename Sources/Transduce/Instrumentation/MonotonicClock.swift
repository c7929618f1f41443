#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Nanoseconds of `CLOCK_MONOTONIC`, the clock LTTng stamps its events with, so ring-buffer
/// traces and LTTng traces of one process line up. About 30 ns a read on Linux (vDSO).
public enum MonotonicClock {
    /// The current time in nanoseconds of `CLOCK_MONOTONIC`. Thread-safe; never allocates.
    @inline(__always)
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
