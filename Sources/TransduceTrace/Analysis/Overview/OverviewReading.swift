/// A trace's overview (``TraceOverview``) gathered from a stream one event at a time, never holding the events:
/// the slowest `maxRows` resumed requests (and every one still waiting), the running tasks and
/// the `maxRows` longest-running others, every runtime's gate. ``data(hosts:)`` gives what has
/// been found so far at any point of the stream: a frame while a file is still being read, and
/// the whole of it at the end.
///
/// Memory: the kept rows, per runtime what is open (queued admissions, live tasks, requests
/// still waiting), and the gates' histograms of the runtimes kept whole (``GateTable``).
package struct OverviewReading {
    private var windows = RequestWindows(keeps: false)
    private var slowest: TopHeap<RequestWindows.Request>
    private var taskRows = TaskRows()
    private var gates = GateTable()
    /// Events read so far.
    package private(set) var count: UInt64 = 0
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
        /// of them) when given. Orders their places, not the rows: no row is copied but into
        /// the result (100,000 rows are 13 MB).
        func rows(limit: Int? = nil) -> [TaskReport.Row] {
            let kept = longest.kept
            func row(_ at: Int) -> (Int, TaskReport.Row) { at < running.count ? running[at] : kept[at - running.count] }
            var order = (0..<(running.count + kept.count)).map { (spawned: row($0).0, at: $0) }
            if let limit, order.count > limit {
                // By run time (running ones first), through their keys.
                let keys = order.map { o in
                    let r = row(o.at).1
                    return (ran: r.outcome == "running" ? UInt64.max : r.ran ?? 0, o: o)
                }
                order = keys.sorted { ($0.ran, $1.o.at) > ($1.ran, $0.o.at) }.prefix(limit).map(\.o)
            }
            order.sort { $0.spawned < $1.spawned }
            return order.map { row($0.at).1 }
        }
    }

    /// The most requests (and tasks) a preview has.
    package static let previewRows = 1_000

    package init(maxRows: Int = 100_000) {
        slowest = TopHeap(capacity: maxRows)
        tasks = Tasks(longest: TopHeap(capacity: maxRows))
    }

    /// Takes the next event of the stream, in order.
    package mutating func consume(_ e: TraceEvent) {
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
    package func slowest(_ n: Int) -> [RequestWindows.Request] { slowest.sortedBest(limit: n) }

    /// What the events read so far show: requests waiting then resumed (their largest parts
    /// not yet found), tasks in spawn order (those not ended yet as running), every gate. A
    /// `preview` (a frame while the stream is still read, made every quarter second) has at most
    /// ``previewRows`` requests and tasks and no wait timelines, so that making it costs the
    /// reading little.
    package func data(hosts: [UInt32: String], preview: Bool = false) -> TraceOverview {
        var reading = self
        return reading.made(hosts: hosts, preview: preview)
    }

    /// What the whole stream showed, once it is read, and its slowest `n` resumed requests (for
    /// ``TraceOverview/findDominants(of:read:)``): ``data(hosts:preview:)`` made in place, so that
    /// nothing kept is copied, then let go of (a second pass follows without it).
    package mutating func finish(hosts: [UInt32: String], slowest n: Int) -> (
        data: TraceOverview, slowest: [RequestWindows.Request]
    ) {
        let slowest = self.slowest(n)
        let data = made(hosts: hosts, preview: false)
        self = OverviewReading(maxRows: 1)
        return (data, slowest)
    }

    /// ``data(hosts:preview:)``, ending the task rows in place and letting go of each part once
    /// it is made into rows (at the end of a trace of many runtimes, the parts and the rows made
    /// of them together were a fifth of the view's peak).
    private mutating func made(hosts: [UInt32: String], preview: Bool) -> TraceOverview {
        let finished = taskRows.finish()
        taskRows = TaskRows()
        tasks.keep(finished.rows)
        let taskRows = tasks.rows(limit: preview ? Self.previewRows : nil)
        tasks = Tasks(longest: TopHeap(capacity: 1))
        let waiting = windows.waiters.map {
            TraceOverview.Request(
                runtime: $0.runtime, dispatch: $0.dispatch, label: $0.label, style: $0.style, outcome: "waiting", start: $0.time,
                total: end &- $0.time, dominant: "", waiting: true)
        }
        windows = RequestWindows(keeps: false)
        let resumed = slowest.sortedBest(limit: preview ? Self.previewRows : .max) { r in
            TraceOverview.Request(
                runtime: r.runtime, dispatch: r.dispatch, label: r.label,
                style: TraceNames.codeName(kind: .dispatch, code: r.style),
                outcome: TraceNames.codeName(kind: .requestResume, code: r.outcome), start: r.start, total: r.total,
                dominant: nil)
        }
        slowest = TopHeap(capacity: 1)
        let gates = self.gates.gates(hosts: hosts, preview: preview)
        return TraceOverview(
            start: first ?? 0, events: count, runtimes: self.gates.runtimes,
            requests: waiting.sorted {
                $0.total != $1.total ? $0.total > $1.total : ($0.runtime, $0.dispatch) < ($1.runtime, $1.dispatch)
            }.prefix(preview ? Self.previewRows : .max) + resumed,
            tasks: taskRows, gates: gates,
            // A preview's tasks still running have not ended yet: no warning of it.
            taskWarnings: preview ? [] : finished.warnings)
    }
}
