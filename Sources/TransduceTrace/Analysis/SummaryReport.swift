/// Counts per kind, runtimes, time span and recorder losses. Streaming: memory grows only with the
/// number of runtimes, itemized up to ``maxRuntimes`` (a hostile trace can name millions).
public struct SummaryReport: TraceConsumer, Sendable {
    /// What the trace says of one runtime.
    public struct RuntimeInfo: Sendable {
        /// Its transducer's type name (from `runtimeStart`).
        public var transducer = ""
        /// Its host kind (`BaseRuntime`, `EffectObservable`).
        public var host = ""
        /// Its queue capacity.
        public var queueCapacity: UInt32 = 0
        /// Its first event's time.
        public var first: UInt64 = .max
        /// Its last event's time.
        public var last: UInt64 = 0
        /// How many events it has in the trace.
        public var events = 0
        /// How it stopped (`cancelled`, `failed (error)`), or "" while running.
        public var stop = ""
    }

    /// Events per kind, indexed by `TraceEvent.Kind`'s raw value.
    public var counts: [Int] { TraceEvent.Kind.allCases.indices.map { kindCounts[$0] } }
    /// The counts in place: an array's element changed once an event cost a uniqueness check.
    private var kindCounts = InlineArray<32, Int>(repeating: 0)
    /// Each runtime followed (by ``RuntimeKey``), at most ``maxRuntimes``.
    public var runtimes: [RuntimeKey: RuntimeInfo] {
        Dictionary(uniqueKeysWithValues: table.keys.map { ($0, table.state($0)!) })
    }
    /// What the trace says of runtime `key`, if it is itemized.
    public func runtime(_ key: RuntimeKey) -> RuntimeInfo? { table.state(key) }
    /// The runtimes in the order they first appeared.
    public var runtimeOrder: [RuntimeKey] { table.keys }
    private var table = PerRuntime<RuntimeInfo>()
    /// The earliest event time (`UInt64.max` while empty).
    public private(set) var first: UInt64 = .max
    /// The latest event time.
    public private(set) var last: UInt64 = 0
    /// Events consumed.
    public private(set) var total = 0
    /// Recorder counts (from a file's footer), when known.
    public var recorder: TraceCounts?
    /// The host of each process, when the input says (trace files, LTTng).
    public var processHosts: [UInt32: String] = [:]
    /// Reader notes (truncation, damage).
    public var notes: [String] = []

    /// With a threshold: how many resumed requests took at least that long (their latency).
    public var slowThreshold: UInt64?
    /// Resumed requests that took ``slowThreshold`` or longer.
    public private(set) var slowRequests = 0
    /// Awaited dispatches not yet resumed, with their time (only with a threshold; bounded like
    /// the runtimes, for a hostile trace that never resumes).
    private var awaiting: [TraceIndex.Key: UInt64] = [:]
    static let maxAwaiting = 1 << 20

    /// Events of runtimes past ``maxRuntimes``, counted but not itemized.
    public private(set) var unlistedEvents = 0
    /// How many runtimes are itemized.
    public static let maxRuntimes = 10_000

    /// An empty report, to be fed events in order (``consume(_:)``).
    public init() {
        precondition(TraceEvent.Kind.allCases.count <= kindCounts.count, "a count for every kind")
    }

    /// Takes the next event of the trace.
    public mutating func consume(_ e: TraceEvent) {
        kindCounts[Int(e.kind.rawValue)] += 1
        total += 1
        if let slowThreshold {
            // One time base: a latency is resume − dispatch by the trace's timestamps (the
            // runtime's measure only when the trace lost the dispatch).
            let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)
            if e.isAwaitedDispatch, awaiting.count < Self.maxAwaiting { awaiting[key] = e.time }
            if e.kind == .requestResume {
                let latency = awaiting.removeValue(forKey: key).map { e.time.minus($0) } ?? e.nanos
                if latency >= slowThreshold { slowRequests += 1 }
            }
        }
        first = min(first, e.time)
        last = max(last, e.time)
        let key = e.runtimeKey
        guard let i = table.slot(key) ?? (table.count < Self.maxRuntimes ? table.slot(key) { RuntimeInfo() } : nil) else {
            unlistedEvents += 1
            return
        }
        // One access to the state for every event (each is a uniqueness check of the table).
        table[slot: i].take(e)
    }
}

extension SummaryReport.RuntimeInfo {
    /// Takes the next event of its runtime.
    fileprivate mutating func take(_ e: TraceEvent) {
        first = min(first, e.time)
        last = max(last, e.time)
        events += 1
        switch e.kind {
        case .runtimeStart:
            transducer = e.label
            host = e.label2
            queueCapacity = e.count
        case .runtimeStop:
            stop = e.codeName + (e.label.isEmpty ? "" : " (\(e.label))")
        default: break
        }
    }
}
