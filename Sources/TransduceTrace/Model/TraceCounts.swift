/// What a recorder offered and lost, carried in every dump's footer.
public struct TraceCounts: Sendable, Equatable {
    /// Why a dump was written, which says whether it can hold a whole run: a snapshot taken while
    /// the process ran on, or at its abrupt end, holds requests and tasks still in flight.
    public enum Occasion: UInt8, Sendable, CaseIterable {
        /// The writer did not say (an older file, a trace built in memory, LTTng).
        case unsaid = 0
        /// The app's own call (``TraceRecorder/write(to:format:)``), whenever it chose.
        case byCode = 1
        /// The process was exiting normally (``TraceRecorder/dumpAtExit(to:)``).
        case atExit = 2
        /// ``TraceRecorder/dumpSignal`` while the process ran on.
        case onSignal = 3
        /// The slow-request trigger, while the process ran on.
        case slowRequest = 4
        /// The process was ended by a signal, or crashed.
        case termination = 5

        /// Written while the process ran on, or as it was cut short: requests and tasks may be in
        /// flight, so only what a partial trace can prove holds.
        public var isSnapshot: Bool { self == .onSignal || self == .slowRequest || self == .termination }

        /// The name in JSON Lines' counts line (`onSignal`): the case's own name.
        public var name: String { String(describing: self) }

        /// How it reads in a sentence: "on SIGUSR2 while the process ran".
        public var description: String {
            switch self {
            case .unsaid: return "without saying when"
            case .byCode: return "by the app's own call"
            case .atExit: return "as the process exited"
            case .onSignal: return "on SIGUSR2 while the process ran"
            case .slowRequest: return "by the slow-request trigger while the process ran"
            case .termination: return "as the process was ended by a signal or crashed"
            }
        }

        /// The occasion named `name` (``name``), if any.
        public init?(name: String) {
            guard let occasion = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = occasion
        }
    }

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
    /// Why the dump was written (``Occasion/unsaid`` where the input does not say).
    public var occasion: Occasion = .unsaid

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

    /// The most events a count can claim: 2^56, more than a recorder offering a billion events
    /// a second records in two years. A larger count is damage or a lie, never a loss.
    package static let possibleLimit: UInt64 = 1 << 56

    /// Why these counts cannot be a recorder's (a count past ``possibleLimit``), or nil.
    package var impossibility: String? {
        let counts: [(String, UInt64)] = [
            ("events", events), ("overwritten", overwritten), ("discarded", discarded), ("lost", lost),
            ("slow requests", slowRequests), ("slow-request dumps", slowDumps),
        ]
        guard let (name, value) = counts.first(where: { $0.1 > Self.possibleLimit }) else { return nil }
        return "the footer claims \(value) \(name), more than any recorder can count: its counts are not used"
    }
}
