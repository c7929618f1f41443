import TransduceTrace

/// One request's chart read from a trace file through its index (``TraceFileIndex``): just the
/// stretch of the file the chart draws, as `sequence --request` and the TUI's diagrams read it.
package enum IndexedRequest {
    /// The events of dispatch #`id`'s chart (what a read of the whole file finds for it) and its
    /// runtime, among the runtimes `selection` keeps: an error (status 66 or 64) when none or
    /// several of them have the dispatch.
    package static func events(
        of id: UInt64, in file: TraceFileIndex, path: String, selection: Selection
    ) throws -> (events: [TraceEvent], runtime: RuntimeKey) {
        do {
            let (found, plan) = try file.findLifecycle(
                of: id, path: path, admits: selection.admits, admitsRuntime: selection.admits(runtime:))
            let runtime = try selection.runtime(holding: id, among: found.runtimes, highest: plan.highestDispatch)
            guard let start = plan.start, found.stretches[runtime] != nil else { return ([], runtime) }
            return (try file.events(of: found, runtime: runtime, from: start, path: path, admits: selection.admits), runtime)
        } catch let error as TraceFileError {
            throw CLIError.data(error.description)
        }
    }
}
