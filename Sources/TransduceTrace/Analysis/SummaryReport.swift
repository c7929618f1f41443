/// Counts per kind, runtimes, time span and recorder losses. Streaming: memory grows only with the
/// number of runtimes, itemized up to ``maxRuntimes`` (a hostile trace can name millions).
public struct SummaryReport: TraceConsumer, Sendable {
    public struct RuntimeInfo: Sendable {
        public var transducer = ""
        public var host = ""
        public var queueCapacity: UInt32 = 0
        public var first: UInt64 = .max
        public var last: UInt64 = 0
        public var events = 0
        public var stop = ""
    }

    public private(set) var counts = [Int](repeating: 0, count: TraceEvent.Kind.allCases.count)
    public private(set) var runtimes: [UInt64: RuntimeInfo] = [:]
    public private(set) var runtimeOrder: [UInt64] = []
    public private(set) var first: UInt64 = .max
    public private(set) var last: UInt64 = 0
    public private(set) var total = 0
    /// Recorder counts (from a file's footer), when known.
    public var recorder: TraceCounts?
    /// The host of each process, when the input says (trace files, LTTng).
    public var processHosts: [UInt32: String] = [:]
    /// Reader notes (truncation, damage).
    public var notes: [String] = []

    /// With a threshold: how many resumed requests took at least that long (their latency).
    public var slowThreshold: UInt64?
    public private(set) var slowRequests = 0

    /// Events of runtimes past ``maxRuntimes``, counted but not itemized.
    public private(set) var unlistedEvents = 0
    public static let maxRuntimes = 10_000

    public init() {}

    public mutating func consume(_ e: TraceEvent) {
        counts[Int(e.kind.rawValue)] += 1
        total += 1
        if e.kind == .requestResume, let slowThreshold, e.nanos >= slowThreshold { slowRequests += 1 }
        first = min(first, e.time)
        last = max(last, e.time)
        if runtimes[e.runtimeKey] == nil {
            guard runtimes.count < Self.maxRuntimes else {
                unlistedEvents += 1
                return
            }
            runtimes[e.runtimeKey] = RuntimeInfo()
            runtimeOrder.append(e.runtimeKey)
        }
        runtimes[e.runtimeKey]!.first = min(runtimes[e.runtimeKey]!.first, e.time)
        runtimes[e.runtimeKey]!.last = max(runtimes[e.runtimeKey]!.last, e.time)
        runtimes[e.runtimeKey]!.events += 1
        switch e.kind {
        case .runtimeStart:
            runtimes[e.runtimeKey]!.transducer = e.label
            runtimes[e.runtimeKey]!.host = e.label2
            runtimes[e.runtimeKey]!.queueCapacity = e.count
        case .runtimeStop:
            runtimes[e.runtimeKey]!.stop = e.codeName + (e.label.isEmpty ? "" : " (\(e.label))")
        default: break
        }
    }
}
