/// What `trace-view check` reports: every rule's violations in one trace, and how the trace was
/// checked (as a whole run, or as a partial trace). Rendered by ``render(options:)``.
public struct InvariantReport: Sendable {
    /// Events checked.
    public let events: Int
    /// Runtimes among them.
    public let runtimes: Int
    /// Checked as a whole run (asked for, and nothing lost).
    public let whole: Bool
    /// The recorder lost events, so the trace could only be checked as partial.
    public let lossy: Bool
    /// Why the dump was written (``TraceCounts/Occasion``), which decides how it is checked
    /// when the caller does not say.
    public let occasion: TraceCounts.Occasion
    /// Every violation, grouped by rule.
    public let violations: [InvariantViolation]

    /// Checks `trace` (see ``TraceInvariants/check(_:complete:)``) as a whole run when
    /// `complete` says so, or, when it is `nil`, unless the dump was written mid-run
    /// (``TraceCounts/Occasion/isSnapshot``).
    public init(_ trace: Trace, complete: Bool?) {
        events = trace.events.count
        runtimes = Set(trace.events.map(\.runtimeKey)).count
        lossy = trace.counts.lostAny
        occasion = trace.counts.occasion
        let complete = complete ?? !occasion.isSnapshot
        whole = complete && !lossy
        violations = TraceInvariants.check(trace, complete: complete)
    }

    /// The violations of `rule`.
    public func count(of rule: InvariantRule) -> Int { violations.filter { $0.rule == rule }.count }
}
