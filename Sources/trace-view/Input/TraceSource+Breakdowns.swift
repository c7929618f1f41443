import TraceInputs
import TransduceTrace

extension TraceSource {
    /// Every awaited request of the source broken down, in passes of bounded memory: a census
    /// pass counts the runtimes with requests waiting at once (``RuntimesWaiting``), then the
    /// passes of ``BreakdownPasses`` break each request down once (a first pass at their
    /// resumes, then passes for those whose windows reached back past what it kept; in rounds
    /// where it missed more than it names, group by group of runtimes where more were open at
    /// once than a pass follows): none is left out. `each` gets the breakdowns as they are made,
    /// in batches; `alongside` sees every event of the census pass (a view that folds the events
    /// too reads the source once for both).
    func breakdowns(alongside: (TraceEvent) -> Void = { _ in }, _ each: ([LatencyBreakdown]) -> Void) throws {
        var census = RuntimesWaiting()
        try pass {
            alongside($0)
            census.consume($0)
        }
        var plan = BreakdownPasses(
            peakRuntimes: census.peak, maxRuntimes: ExportFormat.maxRuntimes, maxKept: ExportFormat.maxKept,
            maxMissed: ExportFormat.maxMissed)
        defer { follow(.all) }
        while var breakdowns = plan.next() {
            follow(plan.group)
            try pass {
                breakdowns.consume($0)
                if breakdowns.isDone { endPass() }
                guard !breakdowns.found.isEmpty else { return }
                each(breakdowns.take())
            }
            plan.finished(&breakdowns)
        }
    }
}
