/// ``InvariantRule/oneCycleAtATime``: a cycle enters only when none is open in its runtime, and
/// `transduce` happens only inside its own cycle.
struct OneCycleAtATime: TraceRule {
    var invariant: InvariantRule { .oneCycleAtATime }
    private var open: [RuntimeKey: TraceEvent] = [:]

    mutating func consume(_ e: TraceEvent, report: (Finding) -> Void) {
        switch e.kind {
        case .cycleEnter:
            if let held = open[e.runtimeKey] {
                report(
                    Finding(
                        e.runtimeKey, "cycle #\(e.cycle) entered while cycle #\(held.cycle) held the gate", [held, e],
                        restsOnAMissingEvent: true))
            }
            open[e.runtimeKey] = e
        case .transduce:
            if open[e.runtimeKey]?.cycle != e.cycle {
                report(
                    Finding(
                        e.runtimeKey, "'\(e.label)' transduced outside its cycle #\(e.cycle)", [e], restsOnAMissingEvent: true))
            }
        case .cycleLeave:
            if open[e.runtimeKey]?.cycle == e.cycle { open[e.runtimeKey] = nil }
        default:
            break
        }
    }
}
