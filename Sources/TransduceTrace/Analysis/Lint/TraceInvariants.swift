/// Checks the runtime's invariants from a trace alone: every ``InvariantRule``'s checker over the
/// events in order, then each one's end-of-trace findings.
public enum TraceInvariants {
    /// Every violation, grouped by rule (in ``InvariantRule`` order), each rule's in the order
    /// it found them.
    ///
    /// - Parameters:
    ///   - trace: the events, in trace order, and the recorder's counts.
    ///   - complete: the trace covers whole runs (every caller returned, every task
    ///     ended). With `false` (a flight-recorder snapshot of a live process), only what a partial
    ///     trace can prove is checked: nothing twice, nothing out of order. A trace whose recorder
    ///     lost events is always checked as incomplete.
    public static func check(_ trace: Trace, complete: Bool = true) -> [InvariantViolation] {
        let whole = complete && !trace.counts.lostAny
        let origin = trace.start ?? 0
        var rules = InvariantRule.allCases.map { $0.rule(whole: whole) }
        var found = [[InvariantViolation]](repeating: [], count: rules.count)
        for r in rules.indices {
            let rule = rules[r].invariant
            let report = { (f: Finding) in
                found[r].append(
                    InvariantViolation(rule: rule, runtime: f.runtime, message: f.message, events: f.events, origin: origin))
            }
            for e in trace.events { rules[r].consume(e, report: report) }
            rules[r].finish(report: report)
        }
        return found.flatMap { $0 }
    }
}

extension TraceCounts {
    /// Whether the recorder lost any event (overwritten, discarded or lost).
    public var lostAny: Bool { overwritten > 0 || discarded > 0 || lost > 0 }
}

extension Trace {
    /// Throws ``InvariantError`` listing every broken invariant.
    public func checkInvariants(complete: Bool = true) throws {
        let violations = TraceInvariants.check(self, complete: complete)
        if !violations.isEmpty { throw InvariantError(violations: violations) }
    }
}
