/// What a recorder offered and lost, carried in every dump's footer.
public struct TraceCounts: Sendable, Equatable {
    /// Events in the trace.
    public var events: UInt64 = 0
    /// Events lapped by newer ones in overwrite mode (including those dropped to contention).
    public var overwritten: UInt64 = 0
    /// Events refused in discard mode.
    public var discarded: UInt64 = 0
    /// Events still being written when the dump was taken, so not in it.
    public var lost: UInt64 = 0
    /// `CLOCK_MONOTONIC` and `CLOCK_REALTIME` (ns) read together at dump time, to place
    /// monotonic event times on the wall clock.
    public var monotonicOrigin: UInt64 = 0
    /// `CLOCK_REALTIME` at that moment.
    public var realtimeOrigin: UInt64 = 0
    /// A recorder with a slow-request trigger: the slow requests it had seen and the dumps it had
    /// written when this trace was taken (both 0 without a trigger).
    public var slowRequests: UInt64 = 0
    /// The slow-request dumps written.
    public var slowDumps: UInt64 = 0

    /// Counts as a recorder or reader reports them.
    public init(
        events: UInt64 = 0, overwritten: UInt64 = 0, discarded: UInt64 = 0, lost: UInt64 = 0, monotonicOrigin: UInt64 = 0,
        realtimeOrigin: UInt64 = 0
    ) {
        self.events = events
        self.overwritten = overwritten
        self.discarded = discarded
        self.lost = lost
        self.monotonicOrigin = monotonicOrigin
        self.realtimeOrigin = realtimeOrigin
    }
}
