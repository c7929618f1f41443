/// ``InvariantRule/nothingTransducedAfterStop``: no `transduce` follows its runtime's stop.
struct NothingTransducedAfterStop: TraceRule {
    var invariant: InvariantRule { .nothingTransducedAfterStop }
    private var stops: [RuntimeKey: TraceEvent] = [:]

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        switch e.kind {
        case .runtimeStop:
            stops[e.runtimeKey] = e
        case .transduce:
            if let stop = stops[e.runtimeKey] {
                report(Finding(e.runtimeKey, "'\(e.label)' transduced after the runtime stopped (\(stop.codeName))", [stop, e]))
            }
        default:
            break
        }
    }
}
