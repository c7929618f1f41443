import Transduce

/// An in-memory index over a trace: who dispatched what, which cycle ran it, which tasks it
/// started, who resumed whom. Built in one pass; memory grows with the trace.
///
/// Causal links come from the events alone (<doc:TheTraceContract>): a cycle names its dispatch,
/// a task its cycle, a re-entry dispatch its origin task, a resume the cycle or task that resumed
/// it.
public struct TraceIndex: Sendable {
    /// One runtime's object (dispatch, cycle or task) by id.
    public struct Key: Hashable, Sendable {
        /// The runtime across processes: a ``RuntimeKey`` (``TraceEvent/runtimeKey``), which is
        /// the plain runtime id only in a trace without process ids.
        public var runtime: RuntimeKey
        /// The dispatch, cycle or task id within the runtime.
        public var id: UInt64
        /// The object `id` of `runtime` (a ``RuntimeKey``).
        public init(runtime: RuntimeKey, id: UInt64) {
            self.runtime = runtime
            self.id = id
        }
    }

    /// What the trace says of one dispatch: its events by index into ``TraceIndex/events``.
    public struct DispatchRecord: Sendable {
        /// Its `dispatch` event.
        public var event: Int
        /// The cycles that ran it (one, unless the trace is damaged).
        public var cycles: [UInt64] = []
        /// Its `requestResume` events.
        public var resumes: [Int] = []
        /// The tasks its waiter joined.
        public var joins: [UInt64] = []
        /// The awaited dispatches whose waiters this admission carries: its own when it is
        /// awaited; for a task's re-entry, the waiters the task carried.
        public var carries: [UInt64] = []
    }

    /// What the trace says of one cycle: its events by index into ``TraceIndex/events``.
    public struct CycleRecord: Sendable {
        /// Its `cycleEnter` event.
        public var enter: Int
        /// Its `cycleLeave` event, once it left.
        public var leave: Int?
        /// The dispatch it ran.
        public var dispatch: UInt64
        /// transduce, effect, spawn, join, cancel, drop and leave events of the cycle, in order.
        /// A cancel or join belongs to the cycle that was open in its runtime when it happened
        /// (the runtime cancels and joins only inside a cycle; a cancel at runtime stop belongs to
        /// none).
        public var events: [Int] = []
        /// The tasks it spawned.
        public var spawned: [UInt64] = []
    }

    /// What the trace says of one task instance: its events by index into ``TraceIndex/events``.
    public struct TaskRecord: Sendable {
        /// Its `taskSpawn` event.
        public var spawn: Int
        /// The cycle that spawned it.
        public var cycle: UInt64
        /// Its name ("" for an anonymous task).
        public var name: String
        /// The instance it replaced (0 for none).
        public var replaces: UInt64
        /// Waiters the instance was spawned with (callers it carries; replaced instances' included).
        public var waiters: UInt32
        /// The instance that replaced it (0 for none).
        public var replacedBy: UInt64 = 0
        /// The awaited dispatches whose waiters it carried: from its spawning cycle (when that
        /// admission's style hands waiters to its task), from the instance it replaced, and from
        /// joins.
        public var carried: [UInt64] = []
        /// Its `taskJoin` events.
        public var joins: [Int] = []
        /// Its `taskCancel` events.
        public var cancels: [Int] = []
        /// Its `taskSettle` events.
        public var settles: [Int] = []
        /// The dispatches it made (re-entries and requests from inside it).
        public var reentries: [UInt64] = []
    }

    /// The indexed events, in trace order.
    public let events: [TraceEvent]
    /// The most waiters an admission or task is tracked as carrying: real ones carry a few, and
    /// a hostile trace's chain of replacements must not copy ever longer lists (a task carrying
    /// more is followed through its first ones).
    public static let maxCarried = 32
    /// Every dispatch, by runtime and id.
    public private(set) var dispatches: [Key: DispatchRecord] = [:]
    /// Every cycle, by runtime and id.
    public private(set) var cycles: [Key: CycleRecord] = [:]
    /// Every task instance, by runtime and id.
    public private(set) var tasks: [Key: TaskRecord] = [:]
    /// The trace context each dispatch made under one was made under, by runtime and dispatch id.
    public private(set) var traceContexts: [Key: TraceContext] = [:]
    /// Runtimes (their ``RuntimeKey``s) in order of first appearance.
    public private(set) var runtimes: [RuntimeKey] = []

    /// Indexes `events` (in trace order) in one pass.
    public init(_ events: [TraceEvent]) {
        self.events = events
        var seen = Set<RuntimeKey>()
        // The cycle open in each runtime, which cancels and joins belong to.
        var open: [RuntimeKey: UInt64] = [:]
        for (i, e) in events.enumerated() {
            if seen.insert(e.runtimeKey).inserted { runtimes.append(e.runtimeKey) }
            let r = e.runtimeKey
            switch e.kind {
            case .dispatch:
                var record = DispatchRecord(event: i)
                if e.isAwaitedDispatch {
                    record.carries = [e.dispatch]
                } else if e.isTaskReentry {
                    record.carries = tasks[Key(runtime: r, id: e.otherTask)]?.carried ?? []
                }
                dispatches[Key(runtime: r, id: e.dispatch)] = record
                if e.otherTask != 0 { tasks[Key(runtime: r, id: e.otherTask)]?.reentries.append(e.dispatch) }
            case .cycleEnter:
                cycles[Key(runtime: r, id: e.cycle)] = CycleRecord(enter: i, dispatch: e.dispatch)
                dispatches[Key(runtime: r, id: e.dispatch)]?.cycles.append(e.cycle)
                open[r] = e.cycle
            case .transduce, .effect, .eventDropped:
                cycles[Key(runtime: r, id: e.cycle)]?.events.append(i)
            case .cycleLeave:
                cycles[Key(runtime: r, id: e.cycle)]?.events.append(i)
                cycles[Key(runtime: r, id: e.cycle)]?.leave = i
                if open[r] == e.cycle { open[r] = nil }
            case .taskSpawn:
                var record = TaskRecord(spawn: i, cycle: e.cycle, name: e.label, replaces: e.otherTask, waiters: e.count)
                // Request-like admissions hand their waiters to the task they start; a replaced
                // instance hands over its own.
                if let admission = cycles[Key(runtime: r, id: e.cycle)].flatMap({ dispatches[Key(runtime: r, id: $0.dispatch)] }),
                    events[admission.event].handsWaitersToTask
                {
                    record.carried = admission.carries
                }
                if e.otherTask != 0 {
                    let moved = tasks[Key(runtime: r, id: e.otherTask)]?.carried ?? []
                    record.carried += moved.prefix(Self.maxCarried - record.carried.count)
                }
                tasks[Key(runtime: r, id: e.task)] = record
                cycles[Key(runtime: r, id: e.cycle)]?.events.append(i)
                cycles[Key(runtime: r, id: e.cycle)]?.spawned.append(e.task)
                if e.otherTask != 0 { tasks[Key(runtime: r, id: e.otherTask)]?.replacedBy = e.task }
            case .taskJoin:
                tasks[Key(runtime: r, id: e.task)]?.joins.append(i)
                if let n = tasks[Key(runtime: r, id: e.task)]?.carried.count, n < Self.maxCarried {
                    tasks[Key(runtime: r, id: e.task)]?.carried.append(e.dispatch)
                }
                dispatches[Key(runtime: r, id: e.dispatch)]?.joins.append(e.task)
                if let cycle = open[r] { cycles[Key(runtime: r, id: cycle)]?.events.append(i) }
            case .taskCancel:
                tasks[Key(runtime: r, id: e.task)]?.cancels.append(i)
                if e.cancelReason != .runtimeStop, let cycle = open[r] { cycles[Key(runtime: r, id: cycle)]?.events.append(i) }
            case .taskSettle:
                tasks[Key(runtime: r, id: e.task)]?.settles.append(i)
            case .requestResume:
                dispatches[Key(runtime: r, id: e.dispatch)]?.resumes.append(i)
            case .traceContext:
                if let context = e.traceContext { traceContexts[Key(runtime: r, id: e.dispatch)] = context }
            case .runtimeStart, .runtimeStop, .dispatchRejected:
                break
            }
        }
    }

    /// The name of a task instance (its id, or "" for an anonymous task).
    public func taskName(runtime: RuntimeKey, task: UInt64) -> String {
        tasks[Key(runtime: runtime, id: task)]?.name ?? ""
    }

    /// A short display name: `load#3`, or `task#3` for an anonymous one.
    public func taskTitle(runtime: RuntimeKey, task: UInt64) -> String {
        let name = taskName(runtime: runtime, task: task)
        return (name.isEmpty ? "task" : name) + "#\(task)"
    }

    /// The label of the event that a cycle's dispatch carried.
    public func cycleLabel(runtime: RuntimeKey, cycle: UInt64) -> String {
        guard let record = cycles[Key(runtime: runtime, id: cycle)],
            let dispatch = dispatches[Key(runtime: runtime, id: record.dispatch)]
        else { return "?" }
        return events[dispatch.event].label
    }

    /// Every event of one request's lifecycle, in trace order: everything its dispatch caused.
    ///
    /// That is its dispatch and resume; its cycles, with what they did (the cancellations a
    /// `uniqueRequest` or a cancel effect made, joins); every task those cycles spawned or joined,
    /// from spawn to end; those tasks' dispatches (re-entries, and requests made from inside
    /// them), followed the same way; and the replacements of tasks that carried the waiter of
    /// one of its dispatches (the waiter moves to the replacement). The same for every style: a `post` or `send` is
    /// followed through the task it started, though no caller waits for it.
    public func requestLifecycle(runtime: RuntimeKey, dispatch: UInt64) -> [Int] {
        var included = Set<Int>()
        var pendingDispatches = [dispatch]
        var seenDispatches = Set<UInt64>()
        var seenTasks = Set<UInt64>()
        var pendingTasks: [UInt64] = []
        // A replacement belongs to the lifecycle when the instance it replaced carried the
        // waiter of one of its dispatches (the waiter moved to it). Checked when the instance is
        // added; one whose dispatch joins the lifecycle only later is checked again then.
        var deferred: [UInt64] = []
        func follows(_ t: UInt64) -> Bool {
            guard let task = tasks[Key(runtime: runtime, id: t)] else { return false }
            return task.carried.contains(where: seenDispatches.contains)
        }
        // Loops, not recursion: a trace decides how long a chain of replacements is.
        while true {
            while !pendingDispatches.isEmpty || !pendingTasks.isEmpty {
                if let t = pendingTasks.popLast() {
                    guard seenTasks.insert(t).inserted, let task = tasks[Key(runtime: runtime, id: t)] else { continue }
                    included.insert(task.spawn)
                    included.formUnion(task.cancels)
                    included.formUnion(task.settles)
                    pendingDispatches += task.reentries
                    if task.replacedBy != 0 {
                        if follows(t) { pendingTasks.append(task.replacedBy) } else { deferred.append(t) }
                    }
                } else if let d = pendingDispatches.popLast() {
                    guard seenDispatches.insert(d).inserted, let record = dispatches[Key(runtime: runtime, id: d)] else {
                        continue
                    }
                    included.insert(record.event)
                    included.formUnion(record.resumes)
                    for c in record.cycles {
                        guard let cycle = cycles[Key(runtime: runtime, id: c)] else { continue }
                        included.insert(cycle.enter)
                        included.formUnion(cycle.events)
                        pendingTasks += cycle.spawned
                    }
                    pendingTasks += record.joins
                }
            }
            let ready = deferred.filter(follows)
            guard !ready.isEmpty else { break }
            deferred.removeAll(where: follows)
            pendingTasks = ready.compactMap { tasks[Key(runtime: runtime, id: $0)]?.replacedBy }
        }
        return included.sorted()
    }

    /// The events of one task instance: spawn, joins, cancel, settle and its re-entry dispatches.
    public func taskLifecycle(runtime: RuntimeKey, task: UInt64) -> [Int] {
        guard let record = tasks[Key(runtime: runtime, id: task)] else { return [] }
        var included = Set([record.spawn] + record.joins + record.cancels + record.settles)
        for d in record.reentries {
            if let dispatch = dispatches[Key(runtime: runtime, id: d)] { included.insert(dispatch.event) }
        }
        return included.sorted()
    }
}
