import TraceInputs
import TransduceTrace

extension TraceSource {
    /// Every awaited request of the source broken down, in passes of bounded memory: one pass
    /// breaks each request down at its resume from the events its window still needs
    /// (``ResumeBreakdowns``), then a pass for each batch of those whose windows reached back
    /// past what could be kept (``MissedPasses``); where more were missed than a pass names, a
    /// round of the same from the first it could not (``ResumeBreakdowns/resumesCovered``), as
    /// many as it takes: none is left out. `each` gets the breakdowns as they are made, in
    /// batches; `alongside` sees every event of the first pass (a view that folds the events too
    /// reads the source once for both).
    func breakdowns(alongside: (TraceEvent) -> Void = { _ in }, _ each: ([LatencyBreakdown]) -> Void) throws {
        var from: Int? = 0
        while let first = from {
            var resumed = ResumeBreakdowns(maxKept: ExportFormat.maxKept, maxMissed: ExportFormat.maxMissed, resumesFrom: first)
            try pass {
                // The first round reads every event; a later one, until it is full.
                if first == 0 {
                    alongside($0)
                } else if resumed.isDone {
                    return endPass()
                }
                resumed.consume($0)
                guard !resumed.found.isEmpty else { return }
                each(resumed.take())
            }
            from = resumed.resumesCovered
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
        }
    }
}
