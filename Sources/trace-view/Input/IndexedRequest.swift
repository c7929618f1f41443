import TransduceTrace

/// One request's chart read from a trace file through its index (``TraceFileIndex``): just the
/// stretch of the file the chart draws, as `sequence --request` and the TUI's diagrams read it.
enum IndexedRequest {
    /// The index of the trace file at `path`, loaded (or built) when first asked for.
    final class Lazy {
        let path: String
        private var loaded: TraceFileIndex??

        init(path: String) { self.path = path }

        /// Nil when it cannot be had (the file is gone, or is no longer a trace file).
        var index: TraceFileIndex? {
            if let loaded { return loaded }
            let made = try? TraceInput(path: path).fileIndex()
            loaded = .some(made ?? nil)
            return made ?? nil
        }
    }

    /// The events of dispatch #`id`'s chart (what a read of the whole file finds for it) and its
    /// runtime, among the runtimes `selection` keeps: an error (status 66 or 64) when none or
    /// several of them have the dispatch.
    static func events(
        of id: UInt64, in file: TraceFileIndex, path: String, selection: Selection
    ) throws -> (events: [TraceEvent], runtime: UInt64) {
        do {
            let (found, plan) = try file.findLifecycle(
                of: id, path: path, admits: selection.admits, admitsRuntime: selection.admits(runtime:))
            let runtime = try selection.runtime(holding: id, among: found.runtimes, highest: plan.highestDispatch)
            guard let start = plan.start, let stretch = found.stretches[runtime] else { return ([], runtime) }
            return (try file.events(of: runtime, in: stretch, from: start, path: path, admits: selection.admits), runtime)
        } catch let error as TraceFileError {
            throw CLIError.data(error.description)
        }
    }
}
