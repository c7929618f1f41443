import Foundation
import Testing
import TransduceTestSupport

@testable import TransduceTrace

/// The oracle across processes and runtimes: oracle runs laid over each other as three
/// processes of two runtimes each, with the same pids' worth of repeated runtime ids, dispatch
/// ids, cycle ids, task ids and labels, read as one trace. Every analysis of the merged trace,
/// taken for one runtime, must equal that analysis of the run alone, which the single-run oracle
/// checks against what really happened; the Chrome export of the merged trace must hold every
/// request as one slice of exactly its latency, and every flow whole.
///
/// More seeds: `TRANSDUCE_ORACLE_PROCESS_SEEDS=N` (a multiple of 6 is best: 3 processes × 2
/// runtimes per trace).
@Suite(.serialized) struct OracleProcessesTests {
    static var seeds: [UInt64] {
        let count = ProcessInfo.processInfo.environment["TRANSDUCE_ORACLE_PROCESS_SEEDS"].flatMap(UInt64.init) ?? 54
        return (0..<count).map { 5_000 + $0 }
    }

    /// One run's events as process `pid`, runtime `runtime`, starting at `origin`.
    static func relabel(_ trace: Trace, pid: UInt32, runtime: UInt64, origin: UInt64) -> [TraceEvent] {
        let start = trace.start ?? 0
        return trace.events.map {
            var e = $0
            e.process = pid
            e.runtime = runtime
            e.time = origin + e.time.minus(start)
            return e
        }
    }

    /// The runs as one recording: each run's events in its own order (a ring's order, which is
    /// not quite time order), the runs interleaved by the time of each one's next event.
    static func interleave(_ runs: [[TraceEvent]]) -> [TraceEvent] {
        var next = runs.map { _ in 0 }
        var out: [TraceEvent] = []
        out.reserveCapacity(runs.map(\.count).reduce(0, +))
        while let r = runs.indices.filter({ next[$0] < runs[$0].count }).min(by: {
            runs[$0][next[$0]].time < runs[$1][next[$1]].time
        }) {
            out.append(runs[r][next[r]])
            next[r] += 1
        }
        return out
    }

    @Test func analysesOfManyProcessesAndRuntimesAgreeWithEachRunAlone() async throws {
        var failures: [String] = []
        var totals = (traces: 0, runtimes: 0, requests: 0)
        let seeds = Self.seeds
        for group in stride(from: 0, to: seeds.count, by: 6) {
            var alone: [(key: RuntimeKey, events: [TraceEvent])] = []
            for (n, seed) in seeds[group..<min(group + 6, seeds.count)].enumerated() {
                let run = OracleRun(seed: seed)
                let trace = try await withTimeout(30) { try await run.run() }
                // Pids 7001…7003, runtimes 1 and 2 in each; each run starts a few µs apart.
                let pid = UInt32(7_001 + n / 2)
                let runtime = UInt64(1 + n % 2)
                let events = Self.relabel(trace, pid: pid, runtime: runtime, origin: 1_000_000_000 + UInt64(n) * 3_000)
                alone.append((RuntimeKey(process: pid, runtime: runtime), events))
            }
            let merged = Self.interleave(alone.map(\.events))
            let problems = Self.problems(merged: merged, alone: alone)
            if !problems.isEmpty {
                failures.append(
                    "seeds \(seeds[group])…\(seeds[min(group + 6, seeds.count) - 1]):\n  "
                        + problems.prefix(10).joined(separator: "\n  "))
            }
            totals.traces += 1
            totals.runtimes += alone.count
            totals.requests += merged.filter { $0.kind == .requestResume }.count
            if failures.count >= 3 { break }
        }
        print("oracle across processes: \(totals.traces) traces, \(totals.runtimes) runtimes, \(totals.requests) requests")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n\n"))")
        #expect(totals.requests >= seeds.count * 5)
    }

    /// What differs between the merged trace's analyses, per runtime, and each run's alone.
    static func problems(merged: [TraceEvent], alone: [(key: RuntimeKey, events: [TraceEvent])]) -> [String] {
        var problems: [String] = []
        let index = TraceIndex(merged)
        problems += TraceInvariants.check(Trace(events: merged)).map { "invariant: \($0)" }
        let mergedTasks = TaskReport(index: index)
        let mergedBreakdowns = Dictionary(
            index.latencyBreakdowns().map { (TraceIndex.Key(runtime: $0.runtime, id: $0.dispatch), $0) },
            uniquingKeysWith: { a, _ in a })
        // The streaming readers: every request broken down from its window of events alone as
        // from the whole trace, and `slow` the same from two passes as from the trace held whole.
        var windows = RequestWindows()
        for e in merged { windows.consume(e) }
        let resumed = windows.byLabel.values.flatMap { $0 }
        var windowed = WindowedBreakdowns(resumed)
        for e in merged { windowed.consume(e) }
        if resumed.count != mergedBreakdowns.count || windowed.breakdowns.count != resumed.count {
            problems.append(
                "streaming: \(resumed.count) requests, \(windowed.breakdowns.count) broken down; the whole trace has \(mergedBreakdowns.count)"
            )
        }
        for (key, b) in windowed.breakdowns
        where mergedBreakdowns[key].map({ "\($0.json()) \($0.offPath)" }) != "\(b.json()) \(b.offPath)" {
            problems.append(
                "streaming: dispatch #\(key.id) of runtime \(key.runtime.name) breaks down otherwise from its window")
        }
        let options = RenderOptions(width: 120)
        let streamed = SlowRequests(top: 5) { body in merged.forEach(body) }
        if streamed.render(options: options) != SlowRequests(index: index, top: 5).render(options: options) {
            problems.append("streaming: slow differs from two passes")
        }
        // One request from passes over the stream (as `sequence --request` on a file): what its
        // view reads of its stretch of its runtime's events (its lifecycle's, its breakdown's),
        // indexed alone, gives the same lifecycle, drawing and breakdown as the whole trace.
        let drawOptions = RenderOptions(width: 120)
        let origin = merged.map(\.time).min()
        // The same request read through the file's index (as `sequence --request` does), with
        // a place to start again every 16 events and no margin past the settled lifecycle: the
        // same events.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("oracle-\(UUID()).tdtrace").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        var fileIndex: TraceFileIndex?
        do {
            try TraceFileWriter.write(Trace(events: merged), to: file)
            if let identity = TraceFileIndex.identity(of: file) {
                fileIndex = TraceFileIndex.build(reader: try TraceFileReader(path: file), identity: identity, every: 16)
            }
        } catch {
            problems.append("index: \(error)")
        }
        for d in merged where d.kind == .dispatch {
            let key = d.runtimeKey
            let found = LifecycleWindow.find(dispatch: d.dispatch) { body in merged.forEach(body) }
            guard found.stretches[key] != nil else {
                problems.append("stretch: dispatch #\(d.dispatch) of runtime \(key.name) not found")
                continue
            }
            // What a view of it reads: its lifecycle's events and its breakdown's, of its stretch.
            let stretchEvents = LifecycleWindow.events(of: found, runtime: key) { body in merged.forEach(body) }
            if let fileIndex {
                let indexed = try? fileIndex.findLifecycle(
                    of: d.dispatch, path: file, admits: { $0.runtimeKey == key }, admitsRuntime: { $0 == key }, margin: 0)
                let events = indexed.flatMap { indexed in
                    try? fileIndex.events(of: indexed.found, runtime: key, from: indexed.plan.start!, path: file) {
                        $0.runtimeKey == key
                    }
                }
                if indexed?.found.runtimes != [key] || events != stretchEvents {
                    problems.append(
                        "index: dispatch #\(d.dispatch) of runtime \(key.name): \(events?.count ?? -1) events "
                            + "through the index, \(stretchEvents.count) from the whole trace"
                            + " DEBUG prefix=\(events.map { stretchEvents.starts(with: $0) } ?? false) suffix=\(events.map { stretchEvents.reversed().starts(with: $0.reversed()) } ?? false) last=\(stretchEvents.last.map { "\($0.kind) d\($0.dispatch) t\($0.task) c\($0.cycle)" } ?? "")"
                    )
                }
            }
            let alone = TraceIndex(stretchEvents)
            let whole = index.requestLifecycle(runtime: key, dispatch: d.dispatch)
            let part = alone.requestLifecycle(runtime: key, dispatch: d.dispatch)
            var differs: [String] = []
            if whole.map({ index.events[$0] }) != part.map({ alone.events[$0] }) {
                differs.append("lifecycle (\(whole.count) events, \(part.count) alone)")
            } else if SequenceDiagram(index: index, options: drawOptions, origin: origin).render(whole)
                != SequenceDiagram(index: alone, options: drawOptions, origin: origin).render(part)
            {
                differs.append("diagram")
            }
            if index.latencyBreakdown(runtime: key, dispatch: d.dispatch)?.json()
                != alone.latencyBreakdown(runtime: key, dispatch: d.dispatch)?.json()
            {
                differs.append("breakdown")
            }
            if !differs.isEmpty {
                problems.append(
                    "stretch: dispatch #\(d.dispatch) of runtime \(key.name): its stretch alone gives another "
                        + differs.joined(separator: ", "))
            }
        }
        // Task rows from a stream, let out of spawn order after 3 (the command lets 65,536 wait):
        // the same rows and warnings.
        var rowsFromStream = TaskRows(maxWaiting: 3)
        var streamedRows: [TaskReport.Row] = []
        for e in merged {
            rowsFromStream.consume(e)
            streamedRows += rowsFromStream.take()
        }
        let (restOfRows, streamedWarnings) = rowsFromStream.finish()
        let describeAll = { (rows: [TaskReport.Row]) in
            rows.map {
                "\($0.runtime) \($0.task) \($0.name) \($0.policy) \($0.spawnedBy) \($0.ran ?? 0) \($0.outcome) \($0.replacedBy) \($0.joinedBy)"
            }
            .sorted()
        }
        if describeAll(streamedRows + restOfRows) != describeAll(mergedTasks.rows) || streamedWarnings != mergedTasks.warnings {
            problems.append("streaming: task rows differ when let out of order")
        }
        var allBreakdowns: [LatencyBreakdown] = []
        for (key, events) in alone {
            let name = key.name
            let single = TraceIndex(events)
            // Tasks: the same instances, fates and run times.
            func describe(_ rows: [TaskReport.Row]) -> [String] {
                rows.filter { $0.runtime == key }.map {
                    "\($0.task) \($0.name) \($0.policy) \($0.spawnedBy) \($0.ran ?? 0) \($0.outcome) \($0.replacedBy) \($0.joinedBy)"
                }
            }
            let ownTasks = describe(TaskReport(index: single).rows)
            if describe(mergedTasks.rows) != ownTasks {
                problems.append("runtime \(name): tasks differ in the merged trace")
            }
            // Latency breakdowns: the same parts, holders and totals for every request.
            for b in single.latencyBreakdowns() {
                allBreakdowns.append(b)
                guard let m = mergedBreakdowns[TraceIndex.Key(runtime: key, id: b.dispatch)] else {
                    problems.append("runtime \(name): dispatch #\(b.dispatch) has no breakdown in the merged trace")
                    continue
                }
                let parts = { (x: LatencyBreakdown) in
                    x.parts.map { "\($0.kind) \($0.nanos) \($0.cycle) \($0.task) \($0.heldBy.map { "\($0.cycle)/\($0.nanos)" })" }
                }
                if m.total != b.total || parts(m) != parts(b) {
                    problems.append("runtime \(name): dispatch #\(b.dispatch)'s breakdown differs in the merged trace")
                }
                // Its lifecycle: the same events, and the same drawing.
                let own = single.requestLifecycle(runtime: key, dispatch: b.dispatch).map { single.events[$0] }
                let found = index.requestLifecycle(runtime: key, dispatch: b.dispatch).map { index.events[$0] }
                if own != found {
                    problems.append("runtime \(name): dispatch #\(b.dispatch)'s lifecycle differs in the merged trace")
                } else {
                    let draw = { (i: TraceIndex, lifecycle: [Int]) in
                        SequenceDiagram(index: i, options: RenderOptions(width: 120)).render(lifecycle)
                    }
                    if draw(single, single.requestLifecycle(runtime: key, dispatch: b.dispatch))
                        != draw(index, index.requestLifecycle(runtime: key, dispatch: b.dispatch))
                    {
                        problems.append("runtime \(name): dispatch #\(b.dispatch)'s diagram differs in the merged trace")
                    }
                }
            }
        }
        // The slowest requests of the merged trace are the slowest of all the runs.
        let slow = SlowRequests(index: index, top: 10).shown.map(\.total)
        let expected = allBreakdowns.map(\.total).sorted(by: >).prefix(10)
        if slow != Array(expected) { problems.append("slow: \(slow), the runs' slowest are \(Array(expected))") }
        // Contention: each label's holds and requests are the sum of the runs'.
        var mergedContention = ContentionReport()
        for e in merged { mergedContention.consume(e) }
        var held: [String: UInt64] = [:]
        var requests: [String: Int] = [:]
        for (_, events) in alone {
            var report = ContentionReport()
            for e in events { report.consume(e) }
            for (label, a) in report.holdByLabel { held[label, default: 0] += a.total }
            for (label, t) in report.requestTails { requests[label, default: 0] += t.count }
        }
        if mergedContention.holdByLabel.mapValues(\.total) != held
            || mergedContention.requestTails.mapValues(\.count) != requests
        {
            problems.append("contention: the merged trace's holds or request counts are not the sum of the runs'")
        }
        problems += chromeProblems(merged)
        return problems
    }

    /// The Chrome export of `events`: every awaited request one slice from its dispatch to its
    /// resume, every flow from `s` to `f` in time order on one process, slices nested per track,
    /// tids never shared between processes.
    static func chromeProblems(_ events: [TraceEvent]) -> [String] {
        var bytes: [UInt8] = []
        var exporter = ChromeTraceExporter { bytes += $0 }
        for e in events { exporter.consume(e) }
        exporter.finish()
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let exported = object["traceEvents"] as? [[String: Any]]
        else { return ["chrome: not JSON"] }
        var problems: [String] = []
        var pidOfTid: [Int: Int] = [:]
        var slices: [String: [(Double, Double)]] = [:]
        var requests: [String: Double] = [:]
        var flows: [Int: [(phase: String, pid: Int, ts: Double)]] = [:]
        for e in exported {
            guard let ph = e["ph"] as? String, let pid = e["pid"] as? Int else { continue }
            if let tid = e["tid"] as? Int {
                if let other = pidOfTid[tid], other != pid { problems.append("chrome: tid \(tid) in pids \(other) and \(pid)") }
                pidOfTid[tid] = pid
            }
            let ts = e["ts"] as? Double ?? 0
            let args = e["args"] as? [String: Any] ?? [:]
            switch ph {
            case "X":
                let dur = e["dur"] as? Double ?? -1
                slices["\(pid)/\(e["tid"] ?? "")", default: []].append((ts, ts + dur))
                if e["cat"] as? String == "request" {
                    requests["\(pid)/\(args["runtime"] ?? "")/\(args["dispatch"] ?? "")"] = dur
                }
            case "s", "t", "f": flows[e["id"] as? Int ?? -1, default: []].append((ph, pid, ts))
            default: break
            }
        }
        // Chrome pids are numbered by first appearance: map the trace's pids the same way.
        var chromePid: [UInt32: Int] = [:]
        for e in events where chromePid[e.process] == nil { chromePid[e.process] = chromePid.count + 1 }
        var dispatched: [TraceIndex.Key: UInt64] = [:]
        var resumed = 0
        for e in events {
            let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)
            if e.kind == .dispatch { dispatched[key] = e.time }
            guard e.kind == .requestResume, let start = dispatched[key] else { continue }
            resumed += 1
            let name = "\(chromePid[e.process]!)/\(e.runtime)/\(e.dispatch)"
            guard let dur = requests[name] else {
                problems.append("chrome: no request slice for \(name)")
                continue
            }
            if abs(dur * 1000 - Double(e.time.minus(start))) > 1 {
                problems.append("chrome: request \(name) lasts \(dur) µs, its latency is \(e.time.minus(start)) ns")
            }
        }
        if flows.count != resumed { problems.append("chrome: \(flows.count) flows for \(resumed) resumed requests") }
        for (id, points) in flows {
            if points.first?.phase != "s" || points.last?.phase != "f" || Set(points.map(\.pid)).count != 1 {
                problems.append("chrome: flow \(id) is \(points.map(\.phase)) over pids \(Set(points.map(\.pid)))")
            }
        }
        problems += overlappingSlices(slices)
        return problems
    }
}
