/// The words of an ``AnalysisWarning``: how every view says what a warning found.
package enum WarningRender {
    /// `finding` in one line, with the ids and durations that show it.
    package static func message(_ finding: AnalysisWarning.Finding) -> String {
        switch finding {
        case .longHold(let count, let threshold, let longest, let held):
            "long holds: \(counted(count, "cycle")) held the gate for \(formatDuration(threshold)) or more; longest "
                + "\(longest.label) (cycle #\(longest.cycle), runtime \(longest.runtime.name)) held it "
                + formatDuration(held)
        case .runawayQueue(let runtime, let deepest, let capacity):
            "runaway queue: runtime \(runtime.name) reached \(deepest) queued admissions of \(capacity)"
        case .growingQueue(let early, let late):
            "growing queue: depth rises through the trace (max \(early) early, \(late) late)"
        case .neverSettled(let task):
            "never settled: \(name(task)) \(running(task))"
        case .noEndRecorded(let task, let lost):
            "no end recorded: \(name(task)) \(running(task)); the trace lost "
                + (lost.map { counted($0, "event") } ?? "events in unknown number") + ", which may hold its end"
        case .switchToLatestChurn(let runtime, let name, let replaced, let spawned):
            "switchToLatest churn: \(replaced) of \(spawned) '\(name)' instances of runtime "
                + "\(runtime.name) were replaced and none completed"
        }
    }

    static func name(_ task: AnalysisWarning.Task) -> String {
        "\(task.name.isEmpty ? "task" : task.name)#\(task.task) (runtime \(task.runtime.name))"
    }

    static func running(_ task: AnalysisWarning.Task) -> String {
        "spawned by \(task.spawnedBy), running \(formatDuration(task.running)) at the end of the trace"
    }
}
