/// Shrinks a broken invariant to the smallest window of one runtime's cycles that still breaks
/// it: what `trace-view check --shrink` writes, a trace small enough to read whole and to replay.
///
/// A window of cycles `a...b` of a runtime holds that runtime's events that belong to those
/// cycles: the cycles' own events (enter, transduce, effects, leave, spawns, drops), each
/// dispatch that entered one of them with its context, joins and resume, and each task they
/// spawned to its end; an event that belongs to no cycle (a dispatch never admitted, a task
/// whose spawn the trace lost) goes with the cycle running or last entered at its time; the
/// runtime's start and stop go with every window. A window *breaks the rule* when checking it as
/// the whole trace was checked gives a violation of the same rule with the same message (the ids
/// are the trace's own), so what the window shows is the violation asked about, not one the cut
/// made.
///
/// The search starts from the cycles of the violation's own events, widens them (doubling) until
/// the window breaks the rule, then narrows each end while it still does.
package struct ViolationShrinker {
    /// A shrunk violation.
    package struct Result: Sendable {
        /// The violation shrunk.
        package var violation: InvariantViolation
        /// The window's cycles, and the runtime's in the whole trace.
        package var cycles: ClosedRange<UInt64>
        package var runtimeCycles: ClosedRange<UInt64>
        /// How many cycles of the runtime the window holds, and the runtime had.
        package var windowCycleCount: Int
        package var runtimeCycleCount: Int
        /// The window as a trace (the whole trace's counts and hosts).
        package var trace: Trace
        /// Windows checked in the search.
        package var checks: Int
    }

    private let trace: Trace
    private let whole: Bool
    private let lossy: Bool

    /// - Parameters:
    ///   - trace: the trace held whole.
    ///   - whole: check windows as whole runs (as the trace was checked).
    ///   - lossy: the trace lost events (findings that rest on a missing event are not judged).
    package init(trace: Trace, whole: Bool, lossy: Bool) {
        self.trace = trace
        self.whole = whole
        self.lossy = lossy
    }

    /// The smallest window found that breaks `violation`'s rule as it does, or `nil` when no
    /// window of its runtime does (a violation that needs other runtimes' events).
    package func shrink(_ violation: InvariantViolation) -> Result? {
        let runtime = RuntimeWindows(trace.events.filter { $0.runtimeKey == violation.runtime })
        guard !runtime.cycles.isEmpty else { return nil }
        var checks = 0
        func breaks(_ lo: Int, _ hi: Int) -> Bool {
            checks += 1
            return breaksRule(runtime.events(lo...hi), as: violation)
        }
        let last = runtime.cycles.count - 1
        // Start from the cycles of the violation's own events.
        let anchors = runtime.anchors(of: violation.events)
        var lo = anchors.min() ?? 0
        var hi = anchors.max() ?? last
        var widen = 1
        while !breaks(lo, hi) {
            guard lo > 0 || hi < last else { return nil }
            lo = max(0, lo - widen)
            hi = min(last, hi + widen)
            widen *= 2
        }
        // Narrow each end, in growing steps while the window still breaks the rule, then one at a
        // time; again after the other end moved.
        func narrowLow() {
            var step = 1
            while lo < hi {
                if lo + step <= hi, breaks(lo + step, hi) {
                    lo += step
                    step *= 2
                } else if step > 1 {
                    step = 1
                } else {
                    break
                }
            }
        }
        func narrowHigh() {
            var step = 1
            while lo < hi {
                if hi - step >= lo, breaks(lo, hi - step) {
                    hi -= step
                    step *= 2
                } else if step > 1 {
                    step = 1
                } else {
                    break
                }
            }
        }
        var previous = (-1, -1)
        while previous != (lo, hi) {
            previous = (lo, hi)
            narrowLow()
            narrowHigh()
        }
        var window = Trace(events: runtime.events(lo...hi), counts: trace.counts)
        window.hosts = trace.hosts
        return Result(
            violation: violation, cycles: runtime.cycles[lo]...runtime.cycles[hi],
            runtimeCycles: runtime.cycles[0]...runtime.cycles[last], windowCycleCount: hi - lo + 1,
            runtimeCycleCount: runtime.cycles.count, trace: window, checks: checks)
    }

    /// Whether `events`, checked as the trace was, break `violation`'s rule with its message.
    package func breaksRule(_ events: [TraceEvent], as violation: InvariantViolation) -> Bool {
        var checker = InvariantChecker()
        for e in events { checker.consume(e) }
        return checker.finish(whole: whole, lossy: lossy).contains {
            $0.rule == violation.rule && $0.message == violation.message
        }
    }
}

/// One runtime's events with the cycle each belongs to, cut into windows of cycles.
package struct RuntimeWindows {
    /// The runtime's cycle ids, ascending.
    package let cycles: [UInt64]
    /// Each event, and the index in ``cycles`` of the cycle it belongs to (`nil`: every window).
    private let anchored: [(event: TraceEvent, cycle: Int?)]

    /// - Parameter events: one runtime's events, in trace order.
    package init(_ events: [TraceEvent]) {
        var dispatchCycle: [UInt64: UInt64] = [:]
        var taskCycle: [UInt64: UInt64] = [:]
        var ids = Set<UInt64>()
        for e in events {
            switch e.kind {
            case .cycleEnter:
                ids.insert(e.cycle)
                if dispatchCycle[e.dispatch] == nil { dispatchCycle[e.dispatch] = e.cycle }
            case .transduce, .effect, .cycleLeave, .eventDropped: ids.insert(e.cycle)
            case .taskSpawn:
                ids.insert(e.cycle)
                if taskCycle[e.task] == nil { taskCycle[e.task] = e.cycle }
            default: break
            }
        }
        let cycles = ids.sorted()
        let index = Dictionary(uniqueKeysWithValues: cycles.enumerated().map { ($0.element, $0.offset) })
        // An event of no cycle goes with the cycle last entered at its time (or the first).
        var current: UInt64? = cycles.first
        var anchored: [(event: TraceEvent, cycle: Int?)] = []
        anchored.reserveCapacity(events.count)
        for e in events {
            if e.kind == .cycleEnter { current = e.cycle }
            let cycle: UInt64?
            switch e.kind {
            case .runtimeStart, .runtimeStop: cycle = nil
            case .cycleEnter, .transduce, .effect, .cycleLeave, .eventDropped, .taskSpawn: cycle = e.cycle
            case .dispatch, .dispatchRejected, .traceContext, .taskJoin, .requestResume:
                cycle = dispatchCycle[e.dispatch] ?? current
            case .taskCancel, .taskSettle: cycle = taskCycle[e.task] ?? current
            }
            // The start and stop go with every window; an event of an unknown cycle with the first.
            anchored.append((e, cycle.map { index[$0] ?? 0 }))
        }
        self.cycles = cycles
        self.anchored = anchored
    }

    /// The indices in ``cycles`` of the cycles `events` belong to (those of the runtime's), in
    /// one pass over the runtime's events.
    package func anchors(of events: [TraceEvent]) -> [Int] {
        let wanted = Set(events)
        return anchored.compactMap { wanted.contains($0.event) ? $0.cycle : nil }
    }

    /// The events of the window of cycles at `range` of ``cycles``, in trace order.
    package func events(_ range: ClosedRange<Int>) -> [TraceEvent] {
        anchored.compactMap { entry in entry.cycle.map(range.contains) ?? true ? entry.event : nil }
    }
}
