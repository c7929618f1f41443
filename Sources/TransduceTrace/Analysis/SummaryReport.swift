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

    public func render(options: RenderOptions = RenderOptions()) -> [String] {
        var lines: [String] = []
        let span = total == 0 ? 0 : last - first
        lines.append(options.paint("Trace summary", .bold))
        lines.append("  events      \(total)")
        lines.append("  time span   \(formatDuration(span, ascii: options.ascii))")
        lines.append(
            "  runtimes    \(runtimes.count)"
                + (unlistedEvents > 0 ? " listed; \(unlistedEvents) events of further runtimes not itemized" : ""))
        if let recorder {
            lines.append(
                "  lost        \(recorder.overwritten) overwritten, \(recorder.discarded) discarded, \(recorder.lost) unreadable")
        } else {
            lines.append("  lost        unknown (no recorder counts in this input)")
        }
        if let recorder, recorder.slowRequests > 0 || recorder.slowDumps > 0 {
            lines.append(
                "  recorder    saw \(recorder.slowRequests) slow request(s), had written \(recorder.slowDumps) slow-request dump(s)"
            )
        }
        if let slowThreshold {
            let resumed = counts[Int(TraceEvent.Kind.requestResume.rawValue)]
            lines.append(
                "  slow        \(slowRequests) of \(resumed) resumed requests took \(formatDuration(slowThreshold, ascii: options.ascii)) or more"
            )
        }
        for note in notes { lines.append(options.paint("  warning: \(note)", .error)) }
        lines.append("")
        lines.append(options.paint("Events by kind", .bold))
        for kind in TraceEvent.Kind.allCases {
            lines.append("  " + pad(kind.description, 18) + pad(String(counts[Int(kind.rawValue)]), 10, right: true))
        }
        lines.append("")
        let hostNames = processHosts.sorted { $0.key < $1.key }.filter { !$0.value.isEmpty }
        if !hostNames.isEmpty {
            lines.append(options.paint("Processes", .bold))
            for (pid, host) in hostNames { lines.append("  pid \(pid) on \(host)") }
            lines.append("")
        }
        lines.append(options.paint("Runtimes", .bold))
        let idWidth = max(6, (runtimeOrder.lazy.map { RuntimeKey.name($0).count }.max() ?? 0) + 2)
        lines.append(
            "  " + pad("id", idWidth) + pad("transducer", 22) + pad("host", 18) + pad("events", 9, right: true) + "  "
                + pad("span", 10) + "stop")
        for id in runtimeOrder {
            let r = runtimes[id]!
            lines.append(
                "  " + pad(RuntimeKey.name(id), idWidth) + pad(r.transducer.isEmpty ? "?" : r.transducer, 22)
                    + pad(r.host.isEmpty ? "?" : r.host, 18)
                    + pad(String(r.events), 9, right: true) + "  "
                    + pad(formatDuration(r.last - r.first, ascii: options.ascii), 10)
                    + (r.stop.isEmpty ? "running" : r.stop))
        }
        return lines.map(options.fit)
    }
}
