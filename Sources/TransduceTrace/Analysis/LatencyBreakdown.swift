import Transduce

/// Why one awaited request took as long as it did: its latency (dispatch to resume, from the
/// trace's own timestamps) split along its critical path into parts that add up to it exactly.
///
/// The path follows the caller's waiter: its admission's wait for the gate (split by the cycles
/// that held the gate meanwhile), its cycle (transduce and runtime work, sync actions, async
/// actions), each task instance that carried the waiter (its run, or the wait on a shareable task
/// it joined, or the time lost to a task that was then replaced), the re-entry's wait and cycle,
/// and the resume. Work the request started that did not carry its waiter (a task of a `send`)
/// is listed in ``offPath`` and not counted.
public struct LatencyBreakdown: Sendable {
    /// One part of the latency: what it was, when it started, how long it took.
    public struct Part: Sendable {
        /// What a part of the latency was.
        public enum Kind: String, Sendable, CaseIterable {
            /// The admission waited for the gate.
            case admissionWait
            /// A task's re-entry (carrying the waiter) waited for the gate.
            case reentryWait
            /// A cycle's own work: transduce calls and the runtime around them.
            case transduce
            /// Synchronous actions of a cycle (gate held).
            case action
            /// Async actions of a cycle (gate held across their suspensions).
            case asyncAction
            /// A task instance that carried the waiter ran.
            case task
            /// The waiter joined a shareable task and waited for it.
            case sharedTask
            /// A task that carried the waiter ran until it was replaced (the waiter moved on).
            case replacedTask
            /// A task that carried the waiter ran until it was cancelled.
            case cancelledTask
            /// From the end of the path to the caller's resume.
            case resume
        }

        /// What the part was.
        public var kind: Kind
        /// When it started (nanoseconds of `CLOCK_MONOTONIC`).
        public var start: UInt64
        /// How long it took; the parts' `nanos` add up to ``LatencyBreakdown/total``.
        public var nanos: UInt64
        /// The cycle, task or dispatch the part is about (0 when none).
        public var cycle: UInt64 = 0
        /// The task the part is about (0 when none).
        public var task: UInt64 = 0
        /// The dispatch the part is about (0 when none).
        public var dispatch: UInt64 = 0
        /// The event of the cycle, or the task's name.
        public var label: String = ""
        /// For a wait: the cycles that held the gate meanwhile, with how much of the wait each (the
        /// first 16; a last entry with cycle 0 sums the others).
        public var heldBy: [Holder] = []
    }

    /// What kept a cycle holding the gate, for a note: `async action`, `action`, or "" (its own
    /// transduce work).
    public static func holdingWork(action: UInt64, asyncAction: UInt64) -> String {
        asyncAction > 0 ? "async action" : action > 0 ? "action" : ""
    }

    /// A cycle that held the gate during a wait.
    public struct Holder: Sendable {
        /// The holding cycle's id.
        public var cycle: UInt64
        /// The label of the event that started it.
        public var label: String
        /// How much of the wait it held the gate.
        public var nanos: UInt64
        /// Time of that hold spent in sync and async actions.
        public var actionNanos: UInt64
        /// Time of that hold spent in async actions.
        public var asyncActionNanos: UInt64
    }

    /// The request's runtime (its ``RuntimeKey``).
    public var runtime: RuntimeKey
    /// The request's dispatch id.
    public var dispatch: UInt64
    /// The requested event's label.
    public var label: String
    /// The dispatch style's code as the trace stores it (``style`` reads it).
    public var styleCode: UInt8
    /// The resume outcome's code as the trace stores it (``outcome`` reads it).
    public var outcomeCode: UInt8

    /// The dispatch style (`send`, `request`, `uniqueRequest`, …); `nil` for a code this version
    /// has no name for.
    public var style: DispatchKind? { DispatchKind(rawValue: styleCode) }
    /// The resume's outcome (`response`, `nil`, `error`); `nil` for a code this version has no
    /// name for.
    public var outcome: ResumeOutcome? { ResumeOutcome(rawValue: outcomeCode) }
    /// The style's name, as the views print it (`unknown(N)` for an unknown code).
    package var styleName: String { TraceNames.codeName(kind: .dispatch, code: styleCode) }
    /// The outcome's name, as the views print it.
    package var outcomeName: String { TraceNames.codeName(kind: .requestResume, code: outcomeCode) }
    /// When it was dispatched (nanoseconds of `CLOCK_MONOTONIC`).
    public var start: UInt64
    /// Dispatch to resume: the sum of the parts.
    public var total: UInt64
    /// The parts along the critical path, in time order.
    public var parts: [Part]
    /// Tasks its cycles started that did not carry its waiter.
    public var offPath: [UInt64]
    /// The dispatch's origin task, for a request made inside a task (0 otherwise).
    public var originTask: UInt64
    /// The caller's trace context, when its dispatch recorded one (the trace id to find the
    /// request by in a tracing backend).
    public var traceContext: TraceContext? = nil
}

extension TraceIndex {
    /// The cycles of each runtime by enter time, with their leave, for the holders of a wait:
    /// found by binary search, with prefix sums of the holds, so a wait over a million cycles
    /// costs what one over a few does.
    struct Holds {
        struct Runtime {
            var holds: [(enter: UInt64, leave: UInt64, cycle: UInt64)] = []
            /// `prefix[i]`: the total hold of `holds[..<i]`.
            var prefix: [UInt64] = [0]
        }
        var byRuntime: [RuntimeKey: Runtime] = [:]
        /// Holders listed one by one per wait; the rest are summed.
        static let listed = 16

        init(_ index: TraceIndex) {
            var all: [RuntimeKey: [(enter: UInt64, leave: UInt64, cycle: UInt64)]] = [:]
            for (key, record) in index.cycles {
                guard let leave = record.leave else { continue }
                all[key.runtime, default: []].append((index.events[record.enter].time, index.events[leave].time, key.id))
            }
            for (runtime, list) in all {
                var r = Runtime()
                r.holds = list.sorted { $0.enter < $1.enter }
                for h in r.holds { r.prefix.append(r.prefix.last!.plus(h.leave.minus(h.enter))) }
                byRuntime[runtime] = r
            }
        }

        /// Cycles whose hold overlaps `from..<to`, but `except`: the first ``listed`` with how much
        /// of the interval each held, and the total of the others.
        func overlapping(runtime: RuntimeKey, from: UInt64, to: UInt64, except: UInt64) -> (
            listed: [(cycle: UInt64, nanos: UInt64)], rest: UInt64, restCount: Int
        ) {
            guard from < to, let r = byRuntime[runtime], !r.holds.isEmpty else { return ([], 0, 0) }
            let all = r.holds
            // Holds do not overlap one another (in a sane trace), so sorted by enter they are
            // sorted by leave too.
            let lo = all.partitionPoint { $0.leave > from }
            let hi = all.partitionPoint { $0.enter >= to }
            guard lo < hi else { return ([], 0, 0) }
            func overlap(_ i: Int) -> UInt64 { min(all[i].leave, to).minus(max(all[i].enter, from)) }
            var listed: [(UInt64, UInt64)] = []
            var i = lo
            while i < hi, listed.count < Self.listed {
                if all[i].cycle != except { listed.append((all[i].cycle, overlap(i))) }
                i += 1
            }
            guard i < hi else { return (listed, 0, 0) }
            // The rest: whole holds but the last, which may run past `to`.
            // (`except`, the waiting admission's own cycle, enters at `to`: never among these.)
            let rest = r.prefix[hi - 1].minus(r.prefix[i]).plus(overlap(hi - 1))
            return (listed, rest, hi - i)
        }
    }

    /// The breakdown of every awaited dispatch that was resumed, in trace order.
    public func latencyBreakdowns() -> [LatencyBreakdown] {
        let holds = Holds(self)
        var out: [LatencyBreakdown] = []
        for (i, e) in events.enumerated() where e.kind == .dispatch {
            guard e.isAwaitedDispatch,
                dispatches[Key(runtime: e.runtimeKey, id: e.dispatch)]?.event == i,
                let b = latencyBreakdown(runtime: e.runtimeKey, dispatch: e.dispatch, holds: holds)
            else { continue }
            out.append(b)
        }
        return out
    }

    /// The breakdown of one awaited dispatch; `nil` when it is not awaited or was never resumed.
    public func latencyBreakdown(runtime: RuntimeKey, dispatch: UInt64) -> LatencyBreakdown? {
        latencyBreakdown(runtime: runtime, dispatch: dispatch, holds: Holds(self))
    }

    func latencyBreakdown(runtime: RuntimeKey, dispatch: UInt64, holds: Holds) -> LatencyBreakdown? {
        guard let record = dispatches[Key(runtime: runtime, id: dispatch)], let resumeIndex = record.resumes.first else {
            return nil
        }
        let d = events[record.event]
        guard d.isAwaitedDispatch else { return nil }
        let resume = events[resumeIndex]
        let end = max(resume.time, d.time)
        var parts: [LatencyBreakdown.Part] = []
        var offPath: [UInt64] = []
        // Boundaries only move forward and never past the resume, so the parts telescope to
        // exactly resume − dispatch whatever order the runtime stamped its events in.
        var now = d.time
        func advance(to time: UInt64, _ part: LatencyBreakdown.Part) {
            let next = min(max(time, now), end)
            var p = part
            p.start = now
            p.nanos = next - now
            now = next
            if p.nanos > 0 || p.kind == .resume { parts.append(p) }
        }
        func part(_ kind: LatencyBreakdown.Part.Kind) -> LatencyBreakdown.Part {
            LatencyBreakdown.Part(kind: kind, start: 0, nanos: 0)
        }
        func wait(_ kind: LatencyBreakdown.Part.Kind, until enter: TraceEvent, admission: UInt64) {
            var p = part(kind)
            p.dispatch = admission
            p.cycle = enter.cycle
            let found = holds.overlapping(runtime: runtime, from: now, to: min(enter.time, end), except: enter.cycle)
            p.heldBy = found.listed.map {
                var held = LatencyBreakdown.Holder(
                    cycle: $0.cycle, label: cycleLabel(runtime: runtime, cycle: $0.cycle), nanos: $0.nanos, actionNanos: 0,
                    asyncActionNanos: 0)
                (held.actionNanos, held.asyncActionNanos) = actionTime(runtime: runtime, cycle: $0.cycle)
                return held
            }
            if found.restCount > 0 {
                p.heldBy.append(
                    LatencyBreakdown.Holder(
                        cycle: 0, label: "\(found.restCount) more cycles", nanos: found.rest, actionNanos: 0,
                        asyncActionNanos: 0))
            }
            advance(to: enter.time, p)
        }

        var admission = dispatch
        var firstAdmission = true
        var seenTasks = Set<UInt64>()
        path: while let admitted = dispatches[Key(runtime: runtime, id: admission)] {
            guard let c = admitted.cycles.first, let cycle = cycles[Key(runtime: runtime, id: c)] else { break }
            let enter = events[cycle.enter]
            wait(firstAdmission ? .admissionWait : .reentryWait, until: enter, admission: admission)
            firstAdmission = false
            // The cycle: its actions, and the rest as its own work.
            let label = cycleLabel(runtime: runtime, cycle: c)
            let leaveTime = cycle.leave.map { events[$0].time } ?? end
            let (action, asyncAction) = actionTime(runtime: runtime, cycle: c)
            let span = min(leaveTime, end).minus(now)
            let asyncPart = min(asyncAction, span)
            let actionPart = min(action, span - asyncPart)
            for (kind, nanos) in [
                (LatencyBreakdown.Part.Kind.transduce, span - asyncPart - actionPart), (.action, actionPart),
                (.asyncAction, asyncPart),
            ] where nanos > 0 {
                var p = part(kind)
                p.cycle = c
                p.label = label
                advance(to: now + nanos, p)
            }
            // Who carries the waiter on: a task this cycle started with it, or one it joined.
            var carrier: (task: UInt64, joined: Bool)?
            for i in cycle.events {
                let e = events[i]
                if e.kind == .taskSpawn {
                    if carrier == nil, tasks[Key(runtime: runtime, id: e.task)]?.carried.contains(dispatch) == true {
                        carrier = (e.task, false)
                    } else {
                        offPath.append(e.task)
                    }
                } else if e.kind == .taskJoin, e.dispatch == dispatch {
                    carrier = (e.task, true)
                }
            }
            guard var (task, joined) = carrier else { break }
            while seenTasks.insert(task).inserted, let t = tasks[Key(runtime: runtime, id: task)] {
                var p = part(joined ? .sharedTask : .task)
                p.task = task
                p.label = taskTitle(runtime: runtime, task: task)
                if let cancel = t.cancels.first.map({ events[$0] }) {
                    if cancel.cancelReason == .replaced, t.replacedBy != 0 {
                        p.kind = .replacedTask
                        advance(to: cancel.time, p)
                        task = t.replacedBy
                        joined = false
                        continue
                    }
                    p.kind = .cancelledTask
                    advance(to: cancel.time, p)
                    break path
                }
                guard let settle = t.settles.first.map({ events[$0] }) else { break path }
                advance(to: settle.time, p)
                // A re-entry carries the waiter into the next cycle.
                if settle.isReentrySettle,
                    let reentry = t.reentries.first(where: {
                        dispatches[Key(runtime: runtime, id: $0)].map { events[$0.event].isTaskReentry } ?? false
                    })
                {
                    admission = reentry
                    continue path
                }
                break path
            }
            break
        }
        var last = part(.resume)
        last.dispatch = dispatch
        advance(to: end, last)
        return LatencyBreakdown(
            runtime: runtime, dispatch: dispatch, label: d.label, styleCode: d.code, outcomeCode: resume.code, start: d.time,
            total: end - d.time, parts: parts, offPath: offPath, originTask: d.otherTask,
            traceContext: traceContexts[Key(runtime: runtime, id: dispatch)])
    }

    /// Time a cycle spent in sync and async actions (their effects' durations).
    func actionTime(runtime: RuntimeKey, cycle: UInt64) -> (action: UInt64, asyncAction: UInt64) {
        guard let record = cycles[Key(runtime: runtime, id: cycle)] else { return (0, 0) }
        var action: UInt64 = 0
        var asyncAction: UInt64 = 0
        for i in record.events where events[i].kind == .effect {
            switch events[i].effectKind {
            case .action: action = action.plus(events[i].nanos)
            case .asyncAction: asyncAction = asyncAction.plus(events[i].nanos)
            default: break
            }
        }
        return (action, asyncAction)
    }
}
