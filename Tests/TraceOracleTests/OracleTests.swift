import Foundation
import Testing
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

/// Every analysis checked against what really happened: hundreds of seeded random scripts, each
/// run on a real runtime and checked against the reference model (what callers got, task fates,
/// lifecycles) and against the trace's own timestamps (waits, latencies, contention).
///
/// Replay one seed: `TRANSDUCE_ORACLE_SEED=N swift test --filter OracleTests`; more seeds:
/// `TRANSDUCE_ORACLE_SEEDS=N`, from `TRANSDUCE_ORACLE_BASE` (a number, or `random`).
@Suite(.serialized) struct OracleTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let one = environment["TRANSDUCE_ORACLE_SEED"].flatMap(UInt64.init) { return [one] }
        let count = environment["TRANSDUCE_ORACLE_SEEDS"].flatMap(UInt64.init) ?? 300
        let base: UInt64 =
            environment["TRANSDUCE_ORACLE_BASE"] == "random"
            ? UInt64.random(in: 0..<(1 << 40)) : environment["TRANSDUCE_ORACLE_BASE"].flatMap(UInt64.init) ?? 1
        return (0..<count).map { base + $0 }
    }

    @Test func analysesAgreeWithWhatHappened() async throws {
        var failures: [String] = []
        var totals = (events: 0, requests: 0, tasks: 0, overflowed: 0)
        for seed in Self.seeds {
            let run = OracleRun(seed: seed)
            do {
                let trace = try await withTimeout(30) { try await run.run() }
                let problems = OracleChecks(run: run, trace: trace).problems()
                if !problems.isEmpty {
                    failures.append(OracleFailureReport(seed: seed, script: run.script, problems: problems).description)
                }
                totals.events += trace.events.count
                totals.requests += run.model.dispatched.count
                totals.tasks += run.model.tasks.count
                totals.overflowed += trace.events.filter { $0.kind == .dispatch && $0.count > run.queueCapacity }.count
            } catch {
                failures.append("oracle seed \(seed): \(error)")
            }
            if failures.count >= 3 { break }
        }
        print(
            "oracle: \(Self.seeds.count) seeds from \(Self.seeds.first ?? 0): \(totals.events) events, "
                + "\(totals.requests) dispatches, \(totals.tasks) task instances, \(totals.overflowed) waited for room")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n\n"))")
        // The scripts exercised what they are for (a generator that stopped making tasks or
        // requests would pass every check vacuously).
        if failures.isEmpty {
            #expect(totals.requests >= Self.seeds.count * 10 && totals.tasks >= Self.seeds.count * 3)
            // Admissions waited in the overflow (a full queue) in the seeds that have a small one.
            #expect(Self.seeds.count < 20 || totals.overflowed > 0)
        }
    }

    @Test func theModelCatchesAWrongAnalysis() async throws {
        // The oracle itself can fail: a lifecycle with one event removed is reported.
        let run = OracleRun(seed: 7)
        let trace = try await withTimeout(30) { try await run.run() }
        var checks = OracleChecks(run: run, trace: trace)
        #expect(checks.problems().isEmpty)
        checks.tamper = { $0.dropLast() }
        #expect(checks.problems().contains { $0.contains("lifecycle") })
    }
}

/// The checks of one run.
struct OracleChecks {
    let run: OracleRun
    let trace: Trace
    let index: TraceIndex
    let facts: OracleTraceFacts
    /// Alters each computed lifecycle before it is checked (to show the checks can fail).
    var tamper: ([Int]) -> [Int] = { $0 }

    /// Whether the runtime's measured durations are the trace's own time differences (a ring's
    /// trace: one clock); on LTTng's, each tracepoint is stamped by LTTng itself.
    let oneClock: Bool

    init(run: OracleRun, trace: Trace, oneClock: Bool = true) {
        self.run = run
        self.trace = trace
        self.oneClock = oneClock
        index = TraceIndex(trace.events)
        facts = OracleTraceFacts(trace.events)
    }

    func problems() -> [String] {
        var problems = run.model.inconsistencies.map { "model: \($0)" }
        let events = trace.events
        guard let runtime = events.first?.runtimeKey else { return ["empty trace"] }
        // Invariants.
        problems += TraceInvariants.check(trace).map { "invariant: \($0)" }
        // What the callers got, and the trace's resumes.
        let results = run.results.withLock { $0 }
        var resumes: [UInt64: [TraceEvent]] = [:]
        for e in events where e.kind == .requestResume { resumes[e.dispatch, default: []].append(e) }
        for op in run.model.awaited.sorted() where run.model.madeByTask[op] == nil {
            var expected = run.model.resumes[op]
            // A send's caller gets no value: only whether it failed.
            if run.model.styles[op] == .send, case .response = expected { expected = .response(op) }
            if results[op] != expected {
                problems.append(
                    "op\(op): the caller got \(results[op].map(String.init(describing:)) ?? "nothing"), the model says \(expected.map(String.init(describing:)) ?? "nothing")"
                )
            }
        }
        for op in run.model.awaited.sorted() {
            guard let dispatch = facts.dispatchOfOp[op] else {
                problems.append("op\(op): no dispatch in the trace")
                continue
            }
            let got = resumes[dispatch] ?? []
            guard got.count == 1, let resume = got.first else {
                problems.append("op\(op): \(got.count) resumes in the trace")
                continue
            }
            let outcome = resume.codeName
            switch run.model.resumes[op] {
            case .response(let by):
                // A response came from the cycle of the op whose event ended the chain (a chain's
                // second event is transduced in its first op's cycle).
                if outcome != "response" { problems.append("op\(op): resumed \(outcome), expected response") }
                let servingCycle = facts.cycleOfOp[by] ?? facts.cycleOfOp[chainHead(by)]
                if resume.cycle != servingCycle {
                    problems.append(
                        "op\(op): resumed by cycle #\(resume.cycle), expected op\(by)'s cycle \(servingCycle.map { "#\($0)" } ?? "?")"
                    )
                }
            case .nil: if outcome != "nil" { problems.append("op\(op): resumed \(outcome), expected nil") }
            case .error: if outcome != "error" { problems.append("op\(op): resumed \(outcome), expected error") }
            case nil: problems.append("op\(op): the model never resolved it")
            }
            // The latency is the resume's distance from the dispatch, in the trace's own times.
            if oneClock, let d = index.dispatches[TraceIndex.Key(runtime: runtime, id: dispatch)] {
                let stamp = events[d.event].time
                if resume.nanos != resume.time.minus(stamp) {
                    problems.append("op\(op): latency \(resume.nanos) ns but resume − dispatch is \(resume.time.minus(stamp)) ns")
                }
            }
        }
        // Every wait is enter − dispatch in the trace itself.
        var dispatchTime: [UInt64: UInt64] = [:]
        for e in events where e.kind == .dispatch { dispatchTime[e.dispatch] = e.time }
        for e in events where e.kind == .cycleEnter && oneClock {
            if let t = dispatchTime[e.dispatch], e.nanos != e.time.minus(t) {
                problems.append("cycle #\(e.cycle): wait \(e.nanos) ns but enter − dispatch is \(e.time.minus(t)) ns")
            }
        }
        // A request made from inside a task resumes that task's lane, not the caller's.
        for (op, task) in run.model.madeByTask where run.model.awaited.contains(op) {
            guard let dispatch = facts.dispatchOfOp[op], let resume = resumes[dispatch]?.first,
                let taskId = facts.taskOfOp[task]
            else { continue }
            let lane = index.interaction(for: resume)?.to
            if lane != .task(TraceIndex.Key(runtime: runtime, id: taskId)) {
                problems.append("op\(op), made by task #\(taskId): its resume goes to \(lane.map { "\($0)" } ?? "nothing")")
            }
        }
        problems += taskProblems(runtime: runtime)
        problems += lifecycleProblems(runtime: runtime)
        problems += contentionProblems()
        problems += chromeProblems()
        problems += latencyProblems(runtime: runtime)
        return problems
    }

    /// The op whose cycle transduced `op` as a chain's second event.
    private func chainHead(_ op: Int) -> Int {
        for case .call(let head, _, .chain(op)) in run.script { return head }
        return op
    }

    private func taskProblems(runtime: RuntimeKey) -> [String] {
        var problems: [String] = []
        let report = TaskReport(index: index)
        let rows = Dictionary(report.rows.map { ($0.task, $0) }, uniquingKeysWith: { a, _ in a })
        for (op, task) in run.model.tasks.sorted(by: { $0.key < $1.key }) {
            guard let id = facts.taskOfOp[op], let row = rows[id] else {
                problems.append("task of op\(op): not in the task report")
                continue
            }
            if row.outcome != task.fate {
                problems.append("task #\(id) (op\(op)): outcome \(row.outcome), the model says \(task.fate ?? "running")")
            }
            let replacedBy = task.replacedBy.flatMap { facts.taskOfOp[$0] } ?? 0
            if row.replacedBy != replacedBy {
                problems.append("task #\(id) (op\(op)): replaced by task #\(row.replacedBy), expected #\(replacedBy)")
            }
            let joinedBy = task.joinedBy.compactMap { facts.dispatchOfOp[$0] }
            if row.joinedBy != joinedBy {
                problems.append("task #\(id) (op\(op)): joined by \(row.joinedBy), expected dispatches \(joinedBy)")
            }
            if row.spawnedBy != "op\(op)" {
                problems.append("task #\(id): spawned by \(row.spawnedBy), expected op\(op)")
            }
        }
        if report.rows.count != run.model.tasks.count {
            problems.append("\(report.rows.count) tasks in the report, the model spawned \(run.model.tasks.count)")
        }
        if report.warnings.contains(where: { $0.check == .neverSettled }) {
            problems.append("a task reported as never settled: \(report.warnings)")
        }
        return problems
    }

    /// The events of op `op`'s lifecycle by the model, found by the events' own id fields.
    private func expectedLifecycle(of op: Int) -> Set<Int> {
        let (ops, tasks) = run.model.lifecycle(of: op)
        let taskIds = Set(tasks.compactMap { facts.taskOfOp[$0] })
        var expected = Set<Int>()
        for (i, e) in trace.events.enumerated() {
            let inside: Bool
            switch e.kind {
            case .dispatch, .requestResume, .taskJoin:
                inside = facts.opOfDispatch[e.dispatch].map(ops.contains) ?? false
            case .cycleEnter, .transduce, .effect, .cycleLeave, .eventDropped:
                inside = facts.opOfCycle[e.cycle].map(ops.contains) ?? false
            case .taskSpawn, .taskSettle:
                inside = taskIds.contains(e.task)
            case .taskCancel:
                let causer = facts.opOfTask[e.task].flatMap { run.model.cancelledBy[$0] }
                inside = taskIds.contains(e.task) || (e.codeName != "runtimeStop" && causer.map(ops.contains) ?? false)
            case .runtimeStart, .runtimeStop, .dispatchRejected, .traceContext:
                inside = false
            }
            if inside { expected.insert(i) }
        }
        return expected
    }

    private func lifecycleProblems(runtime: RuntimeKey) -> [String] {
        var problems: [String] = []
        var random = SeededRandom(seed: run.seed)
        for op in run.model.dispatched {
            guard let dispatch = facts.dispatchOfOp[op] else { continue }
            let actual = tamper(index.requestLifecycle(runtime: runtime, dispatch: dispatch))
            let expected = expectedLifecycle(of: op)
            if Set(actual) != expected {
                let describe = { (set: Set<Int>) in
                    set.sorted().prefix(6).map { i in
                        let e = trace.events[i]
                        return "\(e.kind) \(InvariantViolation.ids(e))"
                    }.joined(separator: "; ")
                }
                problems.append(
                    "lifecycle of op\(op) (dispatch #\(dispatch)): missing [\(describe(expected.subtracting(actual)))], foreign [\(describe(Set(actual).subtracting(expected)))]"
                )
                continue
            }
            // Its diagram shows exactly it: every dispatch and cycle it names is one of its own,
            // and no line is wider than asked.
            let width = Int.random(in: 40...200, using: &random)
            let diagram = SequenceDiagram(index: index, options: RenderOptions(width: width)).render(actual)
            if let wide = diagram.first(where: { $0.count > width }) {
                problems.append("diagram of op\(op) at width \(width): a line of \(wide.count): \(wide)")
            }
            let full = SequenceDiagram(index: index, options: RenderOptions(width: 1000)).render(actual).joined(separator: "\n")
            let ownDispatches = Set(actual.map { trace.events[$0] }.filter { $0.kind == .dispatch }.map(\.dispatch))
            for mention in Self.mentions(of: "dispatch #", in: full) where !ownDispatches.contains(mention) {
                // A join names the waiter it joined, which is a dispatch of this lifecycle too.
                problems.append("diagram of op\(op) names foreign dispatch #\(mention)")
            }
            let shown = actual.filter { index.interaction(for: trace.events[$0]) != nil }.count
            let timed = full.split(separator: "\n").filter { line in
                line.prefix(SequenceDiagram.timeWidth).contains(where: \.isNumber)
            }.count
            if timed != shown { problems.append("diagram of op\(op): \(timed) timed rows for \(shown) events") }
            // Its time column never runs backwards: no effect drawn above its cause.
            var previous = -Double.infinity
            for line in full.split(separator: "\n") {
                guard let ms = Double(line.prefix(SequenceDiagram.timeWidth).trimmingCharacters(in: .whitespaces)) else {
                    continue
                }
                if ms < previous {
                    problems.append("diagram of op\(op): time runs back from \(previous) to \(ms) ms at: \(line)")
                    break
                }
                previous = ms
            }
        }
        return problems
    }

    /// The Chrome export: each awaited request is one flow that passes through its own cycle and
    /// the cycle that resumed it, and its async slice ends under its own name.
    private func chromeProblems() -> [String] {
        var bytes: [UInt8] = []
        var exporter = ChromeTraceExporter { bytes += $0 }
        trace.feed(&exporter)
        exporter.finish()
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let events = object["traceEvents"] as? [[String: Any]]
        else { return ["chrome export: not JSON"] }
        var flowPoints: [UInt64: [(phase: String, track: String, time: UInt64)]] = [:]
        // Each track's name, and its slices, which Perfetto (sorting by time) needs properly
        // nested; every request is one slice from its dispatch to its resume.
        var trackNames: [String: String] = [:]
        var slices: [String: [(Double, Double)]] = [:]
        var requestSlices: [UInt64: (start: UInt64, duration: Double)] = [:]
        var problems: [String] = []
        for e in events where e["ph"] as? String == "M" && e["name"] as? String == "thread_name" {
            trackNames["\(e["pid"]!)/\(e["tid"]!)"] = (e["args"] as? [String: Any])?["name"] as? String
        }
        for e in events {
            guard let ph = e["ph"] as? String, let args = e["args"] as? [String: Any] else { continue }
            let time = UInt64(args["time_ns"] as? String ?? "") ?? 0
            let ts = e["ts"] as? Double ?? 0
            let track = trackNames["\(e["pid"] ?? "")/\(e["tid"] ?? "")"] ?? "?"
            if ph == "X" { slices[track, default: []].append((ts, ts + (e["dur"] as? Double ?? 0))) }
            if ph == "X", e["cat"] as? String == "request" {
                requestSlices[UInt64(args["dispatch"] as? Int ?? 0)] = (time, e["dur"] as? Double ?? -1)
            }
            if ["s", "t", "f"].contains(ph) {
                let dispatch = UInt64(args["dispatch"] as? Int ?? 0)
                flowPoints[dispatch, default: []].append((ph, track, time))
            }
        }
        problems += overlappingSlices(slices)
        var dispatchTime: [UInt64: UInt64] = [:]
        for e in trace.events where e.kind == .dispatch { dispatchTime[e.dispatch] = e.time }
        for e in trace.events where e.kind == .requestResume {
            // One time base: the slice runs from the dispatch's timestamp to the resume's.
            guard let start = dispatchTime[e.dispatch], let slice = requestSlices[e.dispatch] else {
                problems.append("chrome: no request slice for dispatch #\(e.dispatch)")
                continue
            }
            if slice.start != start || abs(slice.duration * 1000 - Double(e.time.minus(start))) > 1 {
                problems.append(
                    "chrome: dispatch #\(e.dispatch)'s slice lasts \(slice.duration) µs, not \(e.time.minus(start)) ns")
            }
        }
        var enterTime: [UInt64: UInt64] = [:]
        for e in trace.events where e.kind == .cycleEnter { enterTime[e.cycle] = e.time }
        for e in trace.events where e.kind == .requestResume {
            let points = flowPoints[e.dispatch] ?? []
            let op = facts.opOfDispatch[e.dispatch].map { "op\($0)" } ?? "?"
            guard points.first?.phase == "s", points.last?.phase == "f" else {
                problems.append("chrome: the flow of \(op) (dispatch #\(e.dispatch)) is \(points.map(\.phase))")
                continue
            }
            let gate = Set(points.filter { $0.track.hasSuffix("compute gate") }.map(\.time))
            // The flow ends where the caller waits: a task's lane for a request made inside one.
            let madeByTask = facts.opOfDispatch[e.dispatch].map { run.model.madeByTask[$0] != nil } ?? false
            if let end = points.last, end.track.contains("task lane") != madeByTask {
                problems.append("chrome: the flow of \(op) ends on track \(end.track)")
            }
            var serving = [e.cycle]
            if let own = facts.opOfDispatch[e.dispatch].flatMap({ facts.cycleOfOp[$0] }) { serving.append(own) }
            for cycle in serving where cycle != 0 {
                if let t = enterTime[cycle], !gate.contains(t) {
                    problems.append("chrome: the flow of \(op) misses cycle #\(cycle), which served it")
                }
            }
        }
        return problems
    }

    /// Every awaited request's latency breakdown adds up to its latency exactly, follows only its
    /// own lifecycle, and ends where its resume came from.
    private func latencyProblems(runtime: RuntimeKey) -> [String] {
        var problems: [String] = []
        let breakdowns = index.latencyBreakdowns()
        let resumed = Set(trace.events.filter { $0.kind == .requestResume }.map(\.dispatch))
        if Set(breakdowns.map(\.dispatch)) != resumed {
            problems.append("latency: breakdowns for \(breakdowns.count) requests, \(resumed.count) were resumed")
        }
        for b in breakdowns {
            let op = facts.opOfDispatch[b.dispatch].map { "op\($0)" } ?? "dispatch #\(b.dispatch)"
            let sum = b.parts.reduce(UInt64(0)) { $0 + $1.nanos }
            guard let resume = trace.events.first(where: { $0.kind == .requestResume && $0.dispatch == b.dispatch }) else {
                continue
            }
            // The latency on the trace's clock: resume − dispatch.
            let latency = index.dispatches[TraceIndex.Key(runtime: runtime, id: b.dispatch)].map {
                resume.time.minus(trace.events[$0.event].time)
            }
            if sum != b.total || b.total != latency {
                problems.append("latency of \(op): parts add up to \(sum) ns, total \(b.total) ns, latency \(latency ?? 0) ns")
            }
            let lifecycle = index.requestLifecycle(runtime: runtime, dispatch: b.dispatch).map { trace.events[$0] }
            let cycles = Set(lifecycle.filter { $0.kind == .cycleEnter }.map(\.cycle))
            let tasks = Set(lifecycle.filter { $0.kind == .taskSpawn }.map(\.task))
            for p in b.parts
            where (p.cycle != 0 && p.heldBy.isEmpty && !cycles.contains(p.cycle)) || (p.task != 0 && !tasks.contains(p.task)) {
                problems.append("latency of \(op): part \(p.title) is not of its lifecycle")
            }
            // The path ends at what resumed it: the serving cycle, or the task that ended.
            if let last = b.parts.last(where: { $0.kind != .resume }) {
                if resume.cycle != 0, last.cycle != resume.cycle {
                    problems.append("latency of \(op): the path ends at cycle #\(last.cycle), resumed by cycle #\(resume.cycle)")
                }
                if resume.cycle == 0, resume.task != 0, last.task != resume.task {
                    problems.append("latency of \(op): the path ends at \(last.title), resumed by task #\(resume.task)")
                }
            }
        }
        return problems
    }

    static func mentions(of prefix: String, in text: String) -> [UInt64] {
        var out: [UInt64] = []
        var rest = Substring(text)
        while let range = rest.range(of: prefix) {
            rest = rest[range.upperBound...]
            let digits = rest.prefix(while: \.isNumber)
            if let n = UInt64(digits) { out.append(n) }
        }
        return out
    }

    /// Contention: each longest wait names exactly the cycles whose hold overlapped it, and a
    /// send queued behind an async action waited on that action's cycle.
    private func contentionProblems() -> [String] {
        var problems: [String] = []
        var report = ContentionReport()
        trace.feed(&report)
        // On the trace's clock: a hold from its enter to its leave, a wait from its dispatch.
        var enterTime: [UInt64: UInt64] = [:]
        var dispatchTime: [UInt64: UInt64] = [:]
        for e in trace.events where e.kind == .cycleEnter { enterTime[e.cycle] = e.time }
        for e in trace.events where e.kind == .dispatch { dispatchTime[e.dispatch] = e.time }
        var holds: [(cycle: UInt64, enter: UInt64, leave: UInt64)] = []
        for e in trace.events where e.kind == .cycleLeave {
            holds.append((e.cycle, enterTime[e.cycle] ?? e.time.minus(e.nanos), e.time))
        }
        let enters = Dictionary(
            trace.events.filter { $0.kind == .cycleEnter }.map { ($0.dispatch, $0) }, uniquingKeysWith: { a, _ in a })
        func overlapping(_ enter: TraceEvent) -> Set<UInt64> {
            let since = dispatchTime[enter.dispatch] ?? enter.time.minus(enter.nanos)
            return Set(holds.filter { $0.leave > since && $0.enter < enter.time && $0.cycle != enter.cycle }.map(\.cycle))
        }
        if holds.count <= ContentionReport.history {
            for wait in report.longestWaits {
                guard let enter = enters[wait.dispatch] else { continue }
                let named = Set(wait.heldBy.map(\.cycle))
                if named != overlapping(enter) {
                    problems.append(
                        "wait of dispatch #\(wait.dispatch): held by \(named.sorted()), overlapping \(overlapping(enter).sorted())"
                    )
                }
            }
        }
        for case .contend(let holder, let waiters) in run.script {
            guard let cycle = facts.cycleOfOp[holder] else { continue }
            for op in waiters {
                guard let d = facts.dispatchOfOp[op], let enter = enters[d] else { continue }
                if !overlapping(enter).contains(cycle) {
                    problems.append(
                        "op\(op) queued behind op\(holder)'s async action, but its wait does not overlap cycle #\(cycle)")
                }
            }
        }
        return problems
    }
}
