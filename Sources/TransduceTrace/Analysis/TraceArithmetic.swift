/// Arithmetic on values read from a trace, which may be hostile or merely unusual (a wrapped
/// flight-recorder ring, timestamps a few hundred microseconds out of order, a duration longer
/// than the clock): it saturates instead of trapping. Every analysis computes differences and
/// sums of trace values through these.
extension UInt64 {
    /// `self - other`, or 0 when `other` is larger.
    @inline(__always) package func minus(_ other: UInt64) -> UInt64 { self >= other ? self - other : 0 }
    /// `self + other`, or `.max` when it would overflow.
    @inline(__always) package func plus(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
    /// `self + delta` for a signed delta (a clock's offset from another), within 0...`.max`
    /// (`Int64.min` included: its magnitude is taken, never negated).
    @inline(__always) package func shifted(by delta: Int64) -> UInt64 {
        delta >= 0 ? plus(UInt64(delta)) : minus(delta.magnitude)
    }
}
