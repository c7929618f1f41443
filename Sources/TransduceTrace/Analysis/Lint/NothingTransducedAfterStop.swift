/// ``InvariantRule/nothingTransducedAfterStop``: no `transduce` follows its runtime's stop.
///
/// A transduce stamped before the stop but recorded after it raced the stop and lost only the
/// race to the recorder: the runtime reads a transduce's time before it checks that it is still
/// active, and a stop publishes that it is not before it reads its own, so a transduce stamped
/// earlier passed its check before the stop (its thread was preempted before it recorded). Only
/// one stamped at or after the stop transduced after it.
struct NothingTransducedAfterStop: TraceRule {
    var invariant: InvariantRule { .nothingTransducedAfterStop }
    /// Each stopped runtime's stop, kept to the end as a stamp (78,126 stops held whole took
    /// 27 MB).
    private var stops: [RuntimeKey: EventStamp] = [:]

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        switch e.kind {
        case .runtimeStop:
            stops[e.runtimeKey] = EventStamp(e)
        case .transduce:
            if let stop = stops[e.runtimeKey], e.time >= stop.time {
                report(
                    Finding(
                        e.runtimeKey, "'\(e.label)' transduced after the runtime stopped (\(stop.codeName))",
                        [stop.event(runtime: e.runtimeKey), e]))
            }
        default:
            break
        }
    }
}
