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
        var checker = InvariantChecker()
        trace.feed(&checker)
        return checker.finish(whole: complete && !trace.counts.lostAny, lossy: trace.counts.lostAny)
    }
}

/// Every ``InvariantRule`` checked in one pass over a stream of events, in memory that follows
/// what is open (in-flight dispatches, live tasks, waiting admissions) and what is broken, not the
/// length of the trace: a day's trace checks in the memory of a minute's.
public struct InvariantChecker: TraceConsumer {
    private var oneCycle = OneCycleAtATime()
    private var fifo = FIFOAdmission()
    private var resumed = ResumedExactlyOnce(whole: true)
    private var tasks = TaskSpawnedAndEndedOnce(whole: true)
    private var afterStop = NothingTransducedAfterStop()
    private var ids = IDsUsedOnce()
    private var causal = CausalOrder()
    private var found: [InvariantRule: [Finding]] = [:]
    /// Events consumed.
    public private(set) var events = 0
    /// The runtimes among them (their ``RuntimeKey``s).
    public private(set) var runtimes: Set<RuntimeKey> = []
    /// The earliest event time, which violations print their times from.
    public private(set) var start: UInt64?
    /// Findings ``finish(whole:lossy:)`` did not judge: each rests on an event the trace does not
    /// hold, in a trace that lost events (``Finding/restsOnAMissingEvent``).
    public private(set) var notJudged = 0

    /// A checker that has seen no event.
    public init() {}

    public mutating func consume(_ e: TraceEvent) {
        events += 1
        runtimes.insert(e.runtimeKey)
        start = min(start ?? e.time, e.time)
        oneCycle.consume(e) { found[.oneCycleAtATime, default: []].append($0) }
        fifo.consume(e) { found[.fifoAdmission, default: []].append($0) }
        resumed.consume(e) { found[.resumedExactlyOnce, default: []].append($0) }
        tasks.consume(e) { found[.taskSpawnedAndEndedOnce, default: []].append($0) }
        afterStop.consume(e) { found[.nothingTransducedAfterStop, default: []].append($0) }
        ids.consume(e) { found[.idsUsedOnce, default: []].append($0) }
        causal.consume(e) { found[.causalOrder, default: []].append($0) }
    }

    /// Every violation once every event was consumed, grouped by rule (in ``InvariantRule``
    /// order), each rule's in the order found. `whole`: the events cover whole runs (see
    /// ``TraceInvariants/check(_:complete:)``), so what is missing at the end is a violation too.
    /// `lossy`: the trace lost events (overwritten, discarded, lost), so a finding that rests on
    /// an event the trace does not hold is not judged (counted in ``notJudged``): the loss may
    /// be that event.
    public mutating func finish(whole: Bool, lossy: Bool = false) -> [InvariantViolation] {
        resumed.whole = whole
        tasks.whole = whole
        resumed.finish { found[.resumedExactlyOnce, default: []].append($0) }
        tasks.finish { found[.taskSpawnedAndEndedOnce, default: []].append($0) }
        let origin = start ?? 0
        var unjudged = 0
        let violations = InvariantRule.allCases.flatMap { rule in
            (found[rule] ?? []).compactMap { finding -> InvariantViolation? in
                if lossy && finding.restsOnAMissingEvent {
                    unjudged += 1
                    return nil
                }
                return InvariantViolation(
                    rule: rule, runtime: finding.runtime, message: finding.message, events: finding.events, origin: origin)
            }
        }
        notJudged = unjudged
        return violations
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
