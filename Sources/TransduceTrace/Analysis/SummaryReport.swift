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
    /// Reader notes (truncation, damage).
    public var notes: [String] = []

    /// Events of runtimes past ``maxRuntimes``, counted but not itemized.
    public private(set) var unlistedEvents = 0
    public static let maxRuntimes = 10_000

    public init() {}

    public mutating func consume(_ e: TraceEvent) {
        counts[Int(e.kind.rawValue)] += 1
        total += 1
        first = min(first, e.time)
        last = max(last, e.time)
        if runtimes[e.runtime] == nil {
            guard runtimes.count < Self.maxRuntimes else {
                unlistedEvents += 1
                return
            }
            runtimes[e.runtime] = RuntimeInfo()
            runtimeOrder.append(e.runtime)
        }
        runtimes[e.runtime]!.first = min(runtimes[e.runtime]!.first, e.time)
        runtimes[e.runtime]!.last = max(runtimes[e.runtime]!.last, e.time)
        runtimes[e.runtime]!.events += 1
        switch e.kind {
        case .runtimeStart:
            runtimes[e.runtime]!.transducer = e.label
            runtimes[e.runtime]!.host = e.label2
            runtimes[e.runtime]!.queueCapacity = e.count
        case .runtimeStop:
            runtimes[e.runtime]!.stop = e.codeName + (e.label.isEmpty ? "" : " (\(e.label))")
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
        for note in notes { lines.append(options.paint("  warning: \(note)", .error)) }
        lines.append("")
        lines.append(options.paint("Events by kind", .bold))
        for kind in TraceEvent.Kind.allCases {
            lines.append("  " + pad(kind.description, 18) + pad(String(counts[Int(kind.rawValue)]), 10, right: true))
        }
        lines.append("")
        lines.append(options.paint("Runtimes", .bold))
        lines.append(
            "  " + pad("id", 6) + pad("transducer", 22) + pad("host", 18) + pad("events", 9, right: true) + "  "
                + pad("span", 10) + "stop")
        for id in runtimeOrder {
            let r = runtimes[id]!
            lines.append(
                "  " + pad(String(id), 6) + pad(r.transducer.isEmpty ? "?" : r.transducer, 22)
                    + pad(r.host.isEmpty ? "?" : r.host, 18)
                    + pad(String(r.events), 9, right: true) + "  "
                    + pad(formatDuration(r.last - r.first, ascii: options.ascii), 10)
                    + (r.stop.isEmpty ? "running" : r.stop))
        }
        return lines
    }
}
