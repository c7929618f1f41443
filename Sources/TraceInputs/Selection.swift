import TransduceTrace

/// `--runtime ID` (the id within its process) and `--pid PID`, together or alone: which
/// events a command looks at, and what the trace had when none matched.
package struct Selection {
    package let runtime: UInt64?
    package let pid: UInt64?
    package private(set) var matched = 0
    package private(set) var total = 0
    /// Runtimes seen, for the error of a narrowed selection (a few: a hostile trace may name
    /// millions).
    package private(set) var seen: [RuntimeKey] = []

    /// The events of runtime `runtime` (its id within its process), of process `pid`, or both;
    /// every event when both are nil. Throws (a usage error) for a pid no process can have.
    package init(runtime: UInt64?, pid: UInt64?) throws {
        self.runtime = runtime
        self.pid = pid
        if let pid, pid > UInt64(UInt32.max) { throw CLIError.usage("--pid \(pid) is not a process id") }
    }

    /// Only the runtime of key `key` (``RuntimeKey``).
    package init(key: RuntimeKey) {
        runtime = key.runtime
        let process = key.process
        pid = process == 0 ? nil : UInt64(process)
    }

    var isNarrowed: Bool { runtime != nil || pid != nil }

    package mutating func keep(_ e: TraceEvent) -> Bool {
        total += 1
        // Every event is kept: the runtimes seen are for a narrowed selection's error.
        guard isNarrowed else {
            matched += 1
            return true
        }
        if seen.count < 10, !seen.contains(e.runtimeKey) { seen.append(e.runtimeKey) }
        let kept = admits(e)
        if kept { matched += 1 }
        return kept
    }

    /// Whether ``keep(_:)`` keeps `e`, uncounted.
    package func admits(_ e: TraceEvent) -> Bool {
        (runtime == nil || e.runtime == runtime) && (pid == nil || UInt64(e.process) == pid)
    }

    /// Whether the events of the runtime of key `key` (``RuntimeKey``) are kept.
    package func admits(runtime key: RuntimeKey) -> Bool {
        (runtime == nil || key.runtime == runtime) && (pid == nil || UInt64(key.process) == pid)
    }

    /// Counts, as ``keep(_:)`` over every event would have, a trace of `events` events whose
    /// runtimes (in order of first appearance) are `keys`: what a file's index knows.
    package mutating func count(runtimes keys: [RuntimeKey], events: Int) {
        total = events
        seen = Array(keys.prefix(10))
        matched = keys.contains { admits(runtime: $0) } ? 1 : 0
    }

    /// Throws (status 66) when a narrowed selection matched none of a non-empty trace.
    package func check() throws {
        guard isNarrowed, matched == 0, total > 0 else { return }
        let asked = [runtime.map { "runtime \($0)" }, pid.map { "pid \($0)" }].compactMap { $0 }.joined(separator: ", ")
        throw CLIError(
            message:
                "no events of \(asked) in this trace; it has runtime\(seen.count == 1 ? "" : "s") \(seen.map(\.name).joined(separator: ", "))"
                + (seen.count == 10 ? ", …" : ""), status: ExitStatus.nothingSelected.rawValue)
    }

    /// The runtime holding dispatch `request` (66 when none does; 64 when several do).
    package func runtime(holding request: UInt64, in index: TraceIndex) throws -> RuntimeKey {
        try runtime(
            holding: request, among: index.runtimes.filter { index.dispatches[TraceIndex.Key(runtime: $0, id: request)] != nil },
            highest: index.dispatches.keys.lazy.map(\.id).max())
    }

    /// The one runtime of `runtimes` (those that have dispatch #`request`; `highest` is the
    /// highest dispatch id of the trace), or the error that says there is none or several.
    package func runtime(holding request: UInt64, among runtimes: [RuntimeKey], highest: UInt64?) throws -> RuntimeKey {
        guard let runtime = runtimes.first else {
            throw CLIError(
                message: "no dispatch #\(request) in this trace" + (isNarrowed ? " for the runtime and process asked for" : "")
                    + (highest.map { " (its dispatches go up to #\($0))" } ?? " (it has no dispatches)"),
                status: ExitStatus.nothingSelected.rawValue)
        }
        if runtimes.count > 1 {
            // A few of them, not thousands on one line.
            let names =
                runtimes.prefix(10).map(\.name).joined(separator: ", ")
                + (runtimes.count > 10 ? ", … (\(runtimes.count) runtimes)" : "")
            throw CLIError.usage(
                "dispatch #\(request) exists in runtimes \(names); pick one with --runtime"
                    + (Set(runtimes.map(\.process)).count > 1 ? " and --pid" : ""))
        }
        return runtime
    }
}
