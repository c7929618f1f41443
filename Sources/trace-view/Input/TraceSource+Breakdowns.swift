import TraceInputs
import TransduceTrace

extension TraceSource {
    /// Every awaited request of the source broken down, in passes of bounded memory: one pass
    /// breaks each request down at its resume from the events its window still needs
    /// (``ResumeBreakdowns``), then a pass for each batch of those whose windows reached back
    /// past what could be kept (``MissedPasses``). `each` gets the breakdowns as they are made,
    /// in batches; `alongside` sees every event of the first pass (a view that folds the events
    /// too reads the source once for both).
    ///
    /// - Returns: whether some requests waited too long to be broken down at all (more than
    ///   ``ResumeBreakdowns/maxMissed``): they are left out, and the caller says so.
    func breakdowns(alongside: (TraceEvent) -> Void = { _ in }, _ each: ([LatencyBreakdown]) -> Void) throws -> Bool {
        var resumed = ResumeBreakdowns(maxKept: ExportFormat.maxKept)
        try pass {
            alongside($0)
            resumed.consume($0)
            guard !resumed.found.isEmpty else { return }
            each(resumed.take())
        }
        var passes = MissedPasses(resumed.takeMissedBatches(spread: MissedPasses.spread), maxKept: ExportFormat.maxKept)
        while let batch = passes.next() {
            var breakdowns = ResumeBreakdowns(missed: batch.keys, maxKept: batch.maxKept)
            try pass {
                breakdowns.consume($0)
                if breakdowns.isDone { endPass() }
                guard !breakdowns.found.isEmpty else { return }
                each(breakdowns.take())
            }
            passes.missedAgain(breakdowns.takeMissedBatches())
        }
        return resumed.missedOverflow
    }
}
