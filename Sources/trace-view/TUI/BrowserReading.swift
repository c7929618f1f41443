import TransduceTrace

/// The terminal UI's data gathered from a stream one event at a time, never holding the events:
/// the slowest `maxRows` resumed requests (and every one still waiting), the running tasks and
/// the `maxRows` longest-running others, every runtime's gate. ``data(hosts:)`` gives what has
/// been found so far at any point of the stream: a frame while a file is still being read, and
/// the whole of it at the end.
///
/// Memory: the kept rows, per runtime what is open (queued admissions, live tasks, requests
/// still waiting), and the gates' histograms of the runtimes kept whole (``GateTable``).
struct BrowserReading {
    private var windows = RequestWindows(keeps: false)
    private var slowest: TopHeap<RequestWindows.Request>
    private var taskRows = TaskRows()
    private var gates = GateTable()
    /// Events read so far.
    private(set) var count: UInt64 = 0
    private var first: UInt64?
    private var end: UInt64 = 0
    /// Tasks: every running one, and the longest-running `maxRows` of the others, each with its
    /// place in spawn order.
    private var tasks: Tasks

    private struct Tasks {
        var spawned = 0
        var running: [(Int, TaskReport.Row)] = []
        var longest: TopHeap<(Int, TaskReport.Row)>

        mutating func keep(_ rows: [TaskReport.Row]) {
            for row in rows {
                if row.outcome == "running" {
                    running.append((spawned, row))
                } else {
                    // The longer-running first; of equals, the one spawned first.
                    longest.insert(
                        (spawned, row),
                        key: TopHeap<(Int, TaskReport.Row)>.key(descending: row.ran ?? 0, ascending: UInt64(spawned)))
                }
                spawned += 1
            }
        }

        /// In spawn order, whatever order the heap holds them in; at most `limit` (the longest
        /// of them) when given.
        func rows(limit: Int? = nil) -> [TaskReport.Row] {
            var all = running + longest.kept
            if let limit, all.count > limit {
                // By run time (running ones first), through their keys: no row copied to sort.
                let keys = all.indices.map { (ran: all[$0].1.outcome == "running" ? UInt64.max : all[$0].1.ran ?? 0, at: $0) }
                all = keys.sorted { ($0.ran, $1.at) > ($1.ran, $0.at) }.prefix(limit).map { all[$0.at] }
            }
            return all.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// The most requests (and tasks) a preview has.
    static let previewRows = 1_000

    init(maxRows: Int = 100_000) {
        slowest = TopHeap(capacity: maxRows)
        tasks = Tasks(longest: TopHeap(capacity: maxRows))
    }

    /// Takes the next event of the stream, in order.
    mutating func consume(_ e: TraceEvent) {
        count += 1
        first = min(first ?? e.time, e.time)
        end = max(end, e.time)
        windows.consume(e)
        if windows.hasResumed {
            for r in windows.takeResumed() {
                // The slower first; of equals, the lower runtime and dispatch.
                slowest.insert(
                    r, key: TopHeap<RequestWindows.Request>.key(descending: r.total, ascending: r.runtime.rawValue, r.dispatch))
            }
        }
        taskRows.consume(e)
        if taskRows.readyCount >= 4_096 { tasks.keep(taskRows.take()) }
        gates.consume(e)
    }

    /// The slowest `n` resumed requests kept, slowest first (ties by runtime and dispatch).
    func slowest(_ n: Int) -> [RequestWindows.Request] { Array(sortedSlowest().prefix(n)) }

    private func sortedSlowest(limit: Int? = nil) -> [RequestWindows.Request] { slowest.sortedBest(limit: limit ?? .max) }

    /// What the events read so far show: requests waiting then resumed (their largest parts
    /// not yet found), tasks in spawn order (those not ended yet as running), every gate. A
    /// `preview` (a frame while the stream is still read, made every quarter second) has at most
    /// ``previewRows`` requests and tasks and no wait timelines, so that making it costs the
    /// reading little.
    func data(hosts: [UInt32: String], preview: Bool = false) -> BrowserData {
        var taskRows = self.taskRows
        var tasks = self.tasks
        let finished = taskRows.finish()
        tasks.keep(finished.rows)
        let waiting = windows.waiters.map {
            BrowserData.Request(
                runtime: $0.runtime, dispatch: $0.dispatch, label: $0.label, style: $0.style, outcome: "waiting", start: $0.time,
                total: end &- $0.time, dominant: "", waiting: true)
        }
        let resumed = sortedSlowest(limit: preview ? Self.previewRows : nil).map { r in
            BrowserData.Request(
                runtime: r.runtime, dispatch: r.dispatch, label: r.label,
                style: TraceNames.codeName(kind: .dispatch, code: r.style),
                outcome: TraceNames.codeName(kind: .requestResume, code: r.outcome), start: r.start, total: r.total,
                dominant: nil)
        }
        let gates = self.gates.gates(hosts: hosts, preview: preview)
        return BrowserData(
            start: first ?? 0, events: count, runtimes: self.gates.runtimes,
            requests: waiting.sorted {
                $0.total != $1.total ? $0.total > $1.total : ($0.runtime, $0.dispatch) < ($1.runtime, $1.dispatch)
            }.prefix(preview ? Self.previewRows : .max) + resumed,
            tasks: tasks.rows(limit: preview ? Self.previewRows : nil), gates: gates,
            // A preview's tasks still running have not ended yet: no warning of it.
            taskWarnings: preview ? [] : finished.warnings)
    }
}
