/// What `trace-view check` reports: every rule's violations in one trace, and how the trace was
/// checked (as a whole run, or as a partial trace). Rendered by `trace-view check`.
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
    /// Findings not judged because the trace lost events and each rests on an event it does not
    /// hold (``InvariantChecker/notJudged``).
    public let notJudged: Int

    /// Checks `trace` (see ``TraceInvariants/check(_:complete:)``) as a whole run when
    /// `complete` says so, or, when it is `nil`, unless the dump was written mid-run
    /// (``TraceCounts/Occasion/isSnapshot``).
    public init(_ trace: Trace, complete: Bool?) {
        var checker = InvariantChecker()
        trace.feed(&checker)
        self.init(checker, counts: trace.counts, complete: complete)
    }

    /// The report of what `checker` consumed (a stream read to its end, never held whole), with
    /// the recorder's `counts`, which decide with `complete` how it is checked (as above).
    public init(_ checker: consuming InvariantChecker, counts: TraceCounts, complete: Bool?) {
        events = checker.events
        runtimes = checker.runtimes.count
        lossy = counts.lostAny
        occasion = counts.occasion
        whole = (complete ?? !occasion.isSnapshot) && !lossy
        violations = checker.finish(whole: whole, lossy: lossy)
        notJudged = checker.notJudged
    }

    /// The violations of `rule`.
    public func count(of rule: InvariantRule) -> Int { violations.filter { $0.rule == rule }.count }
}
