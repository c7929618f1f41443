import TransduceTrace

/// What the terminal UI shows of one trace, computed once from the library's analyses (the same
/// models the batch commands print): the requests with their latency parts, the tasks, and each
/// runtime's gate.
struct BrowserData {
    /// One awaited request.
    struct Request {
        var runtime: UInt64
        var dispatch: UInt64
        var label: String
        var style: String
        var outcome: String
        var start: UInt64
        var total: UInt64
        /// The largest latency part, and its share of the total.
        var dominant: String
    }

    /// One runtime's gate.
    struct Gate {
        var runtime: UInt64
        var cycles: Int
        var maxDepth: UInt32
        var waitP99: UInt64
        var longestHold: UInt64
        var holder: String
        /// Queue depth over the trace's span, in equal time buckets (the deepest of each).
        var depths: [UInt32]
    }

    let index: TraceIndex
    let start: UInt64
    let events: Int
    let runtimes: Int
    let lost: UInt64
    let requests: [Request]
    let tasks: [TaskReport.Row]
    let gates: [Gate]

    /// Buckets of the gate's depth sparkline.
    static let buckets = 32

    init(trace: Trace) {
        let index = TraceIndex(trace.events)
        self.index = index
        start = trace.start ?? 0
        events = trace.events.count
        lost = trace.counts.overwritten + trace.counts.discarded
        requests = index.latencyBreakdowns().map { b in
            let top = b.parts.max { $0.nanos < $1.nanos }
            let share = b.total == 0 ? 0 : Double(top?.nanos ?? 0) / Double(b.total)
            return Request(
                runtime: b.runtime, dispatch: b.dispatch, label: b.label, style: b.style, outcome: b.outcome, start: b.start,
                total: b.total, dominant: top.map { "\($0.kind.rawValue) \(Int((share * 100).rounded()))%" } ?? "")
        }
        tasks = TaskReport(index: index).rows
        // Gates: cycles and holds from cycle_enter/leave, waits from cycle_enter, depth over time.
        let end = trace.events.last?.time ?? start
        let span = max(1, end &- start)
        var byRuntime: [UInt64: Gate] = [:]
        var waits: [UInt64: [UInt64]] = [:]
        var entered: [UInt64: (time: UInt64, label: String)] = [:]
        for e in trace.events {
            let key = e.runtimeKey
            var gate =
                byRuntime[key]
                ?? Gate(
                    runtime: key, cycles: 0, maxDepth: 0, waitP99: 0, longestHold: 0, holder: "",
                    depths: Array(repeating: 0, count: Self.buckets))
            let bucket = min(Self.buckets - 1, Int(Double(e.time &- start) / Double(span) * Double(Self.buckets)))
            switch e.kind {
            case .dispatch:
                gate.maxDepth = max(gate.maxDepth, e.count)
                gate.depths[bucket] = max(gate.depths[bucket], e.count)
            case .cycleEnter:
                gate.cycles += 1
                gate.depths[bucket] = max(gate.depths[bucket], e.count)
                waits[key, default: []].append(e.nanos)
                entered[key] = (e.time, index.cycleLabel(runtime: key, cycle: e.cycle))
            case .cycleLeave:
                if let enter = entered[key], e.time &- enter.time > gate.longestHold {
                    gate.longestHold = e.time &- enter.time
                    gate.holder = enter.label
                }
            default:
                break
            }
            byRuntime[key] = gate
        }
        runtimes = byRuntime.count
        gates = byRuntime.keys.sorted().map { key in
            var gate = byRuntime[key]!
            let sorted = (waits[key] ?? []).sorted()
            if !sorted.isEmpty { gate.waitP99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))] }
            return gate
        }
    }

    /// The sequence diagram of one request's lifecycle, at `width` columns.
    func diagram(of request: Request, options: RenderOptions) -> [String] {
        let indices = index.requestLifecycle(runtime: request.runtime, dispatch: request.dispatch)
        var lines: [String] = []
        SequenceDiagram(index: index, options: options, origin: start).render(indices, progress: { _ in }) { lines.append($0) }
        if let breakdown = index.latencyBreakdown(runtime: request.runtime, dispatch: request.dispatch) {
            lines.append("")
            lines += breakdown.render(options: options)
        }
        return lines
    }
}
