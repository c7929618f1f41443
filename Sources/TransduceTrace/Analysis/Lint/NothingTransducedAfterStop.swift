/// ``InvariantRule/nothingTransducedAfterStop``: no `transduce` follows its runtime's stop.
///
/// A transduce stamped before the stop but recorded after it raced the stop and lost only the
/// race to the recorder: the runtime reads a transduce's time before it checks that it is still
/// active, and a stop publishes that it is not before it reads its own, so a transduce stamped
/// earlier passed its check before the stop (its thread was preempted before it recorded). Only
/// one stamped at or after the stop transduced after it.
struct NothingTransducedAfterStop: TraceRule {
    var invariant: InvariantRule { .nothingTransducedAfterStop }
    private var stops: [RuntimeKey: TraceEvent] = [:]

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        switch e.kind {
        case .runtimeStop:
            stops[e.runtimeKey] = e
        case .transduce:
            if let stop = stops[e.runtimeKey], e.time >= stop.time {
                report(Finding(e.runtimeKey, "'\(e.label)' transduced after the runtime stopped (\(stop.codeName))", [stop, e]))
            }
        default:
            break
        }
    }
}
