import Testing
import TransduceTestSupport

@testable import Transduce

/// `RuntimeControl` driven alone by random sequences of transitions (one per seed, as the
/// oracle's seeds drive the whole runtime), with a model of the shell around it — cycles that
/// settle or hand their waiters to a task, tasks that end every way, cancellations, a stop — and
/// checked against what must hold whatever the order: every waiter resumed exactly once, cycles
/// in the order admissions were accepted, one holder of the gate, back pressure, and a trace
/// that says the same as the transitions' results.
@Suite struct RuntimeControlReplayTests {
    typealias Waiter = RuntimeControlTests.TestWaiter
    typealias Control = RuntimeControl<LoaderFeature, Waiter, Int>
    typealias Sink = RuntimeControlTests.Sink

    /// What the model knows of one run.
    struct Model {
        var control = Control(queueCapacity: 3)
        var sink = Sink()
        var nextDispatch: UInt64 = 0
        /// Resumptions per waiter (by dispatch): each must end at exactly one.
        var resumed: [UInt64: Int] = [:]
        var waiters: Set<UInt64> = []
        /// Dispatches accepted, in order; and the order cycles took them in.
        var accepted: [UInt64] = []
        var cycled: [UInt64] = []
        /// The gate as the shell sees it.
        enum Holder { case idle, inline, drain }
        var holder = Holder.idle
        /// The waiters of the cycle in progress (inline or drained), if one is.
        var cycle: [Waiter]?
        /// Task instances the model started and has not ended, with their keys: replaced and
        /// cancelled ones stay, so that their late ends are tried too.
        var live: [(key: TaskRegistryKey, instance: UInt64)] = []
        var handles = 100

        mutating func resume(_ resumptions: [Control.Resumption]) {
            for r in resumptions { resumed[r.waiter.dispatch, default: 0] += 1 }
        }

        mutating func waiter() -> Waiter {
            nextDispatch += 1
            waiters.insert(nextDispatch)
            return Waiter(dispatch: nextDispatch)
        }

        mutating func admit(isPost: Bool, cancelled: Bool) {
            let style: DispatchKind = isPost ? .post : .request
            let waiters = isPost ? [] : [waiter()]
            if isPost { nextDispatch += 1 }
            let dispatch = nextDispatch
            let refusesPost = control.gate.refusesPost
            let result = control.admit(
                .init(event: .load, style: style, waiters: waiters, dispatch: dispatch, enqueuedAt: 0, origin: 0),
                isPost: isPost, callerCancelled: cancelled, trace: &sink)
            switch result {
            case .rejected(let why):
                if control.isActive && !cancelled { #expect(why == .queueFull && isPost && refusesPost) }
                // A refused awaited dispatch throws at once: its caller never waits.
                for w in waiters { resumed[w.dispatch, default: 0] += 1 }
            case .queued(let drain):
                #expect(control.isActive && !cancelled && !(isPost && refusesPost))
                accepted.append(dispatch)
                if drain == .startTask {
                    #expect(holder == .idle)
                    handles += 1
                    control.drainStarted(handles)
                    holder = .drain
                }
            }
        }

        mutating func claim() {
            nextDispatch += 1
            let result = control.claim(
                .init(event: .load, style: .send, waiters: [], dispatch: nextDispatch, enqueuedAt: 0, origin: 0), now: 0,
                trace: &sink)
            switch result {
            case .claimed:
                #expect(holder == .idle && control.gate.depth == 0)
                holder = .inline
                accepted.append(nextDispatch)
                cycled.append(nextDispatch)
                cycle = []
            case .queue: #expect(holder != .idle || control.gate.depth > 0)
            case .rejected: #expect(!control.isActive)
            }
        }

        /// The drain takes the next cycle, when it holds the gate and no cycle runs.
        mutating func next() {
            guard holder == .drain, cycle == nil else { return }
            if let next = control.next(now: 0, trace: &sink) {
                cycled.append(next.admission.dispatch)
                cycle = next.admission.waiters
                #expect(control.inflight.map(\.dispatch) == next.admission.waiters.map(\.dispatch))
            } else {
                holder = .idle
                #expect(control.gate.isIdle)
            }
        }

        /// The cycle in progress ends: its waiters resumed by the shell, or handed to a task.
        mutating func endCycle(handToTask: Bool, shareable: Bool, unique: Bool, named: Bool) {
            guard let waiters = cycle else { return }
            if handToTask {
                spawn(carrying: waiters, shareable: shareable, unique: unique, named: named)
            } else if control.isActive {
                for w in waiters { resumed[w.dispatch, default: 0] += 1 }
            }
            control.clearInflight()
            cycle = nil
            if holder == .inline {
                if control.endInlineCycle() == .startTask {
                    handles += 1
                    control.drainStarted(handles)
                    holder = .drain
                } else {
                    holder = .idle
                }
            }
        }

        mutating func spawn(carrying waiters: [Waiter], shareable: Bool, unique: Bool, named: Bool) {
            let id: TaskIdentifier? = named ? "shared" : nil
            switch control.spawn(
                id: id, policy: TaskPolicyKind(shareable ? .shareable : .switchToLatest, inUniqueRequest: unique),
                waiters: waiters, cycle: 1, now: 0, trace: &sink)
            {
            case .none:
                // Joined (its waiters ride on the running instance), or the runtime stopped (the
                // stop already failed them as the cycle's in flight).
                if control.isActive { #expect(named && shareable && !unique) }
            case .start(let instance, let key, let carried, _):
                #expect(carried.count >= waiters.count)
                handles += 1
                control.taskStarted(key, instance: instance, handle: handles, waiters: carried, startedAt: 0)
                live.append((key, instance))
            }
        }

        mutating func finishTask(_ pick: Int, how: Int) {
            guard !live.isEmpty else { return }
            let (key, instance) = live.remove(at: pick % live.count)
            let result: Result<TaskReturn<LoaderFeature.Event>, any Error> =
                switch how % 4 {
                case 0: .success(.settle)
                case 1: .success(.response(.loaded([])))
                case 2: .success(.request(.load))
                default: .failure(CancellationError())
                }
            var numbered: UInt64?
            let finished = control.taskFinished(
                key, instance: instance, result: result,
                dispatch: {
                    nextDispatch += 1
                    numbered = nextDispatch
                    return nextDispatch
                }, now: 1, trace: &sink)
            resume(finished.resumptions)
            if let numbered {
                accepted.append(numbered)
                if finished.drains {
                    #expect(holder == .idle)
                    holder = .drain
                }
            }
        }

        mutating func stop() {
            if let stopped = control.stop(.cancelled, error: nil, trace: &sink) { resume(stopped.resumptions) }
        }
    }

    @Test(arguments: 0..<300)
    func randomTransitionsKeepEveryPromise(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var model = Model()
        for _ in 0..<120 {
            let roll = Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<18: model.admit(isPost: Bool.random(using: &random), cancelled: roll == 0)
            case 18..<30: model.claim()
            case 30..<55: model.next()
            case 55..<72:
                model.endCycle(
                    handToTask: Bool.random(using: &random), shareable: Bool.random(using: &random),
                    unique: Int.random(in: 0..<4, using: &random) == 0, named: Bool.random(using: &random))
            case 72..<90: model.finishTask(Int.random(in: 0..<8, using: &random), how: Int.random(in: 0..<4, using: &random))
            case 90..<95:
                let (_, resumptions) = model.control.cancelTask(.named("shared"), reason: .cancelEffect, trace: &model.sink)
                model.resume(resumptions)
            case 95..<98:
                let (_, resumptions) = model.control.cancelAllTasks(reason: .uniqueRequest, trace: &model.sink)
                model.resume(resumptions)
            default: model.stop()
            }
        }
        // The end of every run: a stop, and the cycle in progress ends.
        model.stop()
        model.endCycle(handToTask: false, shareable: false, unique: false, named: false)
        #expect(model.control.lifecycle == .cancelled && model.control.tasks.count == 0 && model.control.gate.depth == 0)
        // Every waiter resumed exactly once.
        for dispatch in model.waiters {
            #expect(
                model.resumed[dispatch] == 1,
                "seed \(seed): waiter of dispatch #\(dispatch) resumed \(model.resumed[dispatch] ?? 0) times")
        }
        // Cycles in the order admissions were accepted (a prefix: the stop discards the rest).
        #expect(Array(model.accepted.prefix(model.cycled.count)) == model.cycled, "seed \(seed)")
        // The trace says the same: a `dispatch` per accepted admission, an `enter` per cycle, in
        // that order, one `stop`, and no cycle or acceptance after it.
        let dispatched = model.sink.events.compactMap { Self.number(after: "dispatch #", in: $0) }
        let entered = model.sink.events.compactMap { Self.number(after: "enter c", in: $0, field: 1) }
        #expect(dispatched == model.accepted, "seed \(seed)")
        #expect(entered == model.cycled, "seed \(seed)")
        let stops = model.sink.events.indices.filter { model.sink.events[$0].hasPrefix("stop ") }
        #expect(stops.count == 1)
        if let stop = stops.first {
            #expect(
                !model.sink.events[stop...].contains {
                    $0.hasPrefix("dispatch ") || $0.hasPrefix("enter ") || $0.hasPrefix("spawn ")
                })
        }
        // Every task instance spawned once, and cancelled or settled (not as a late end) at most once.
        let spawned = model.sink.events.compactMap { Self.number(after: "spawn t", in: $0) }
        #expect(Set(spawned).count == spawned.count)
        var ended: [UInt64: Int] = [:]
        for event in model.sink.events
        where event.hasPrefix("cancel t") || (event.hasPrefix("settle t") && !event.contains("ran 0")) {
            if let task = Self.number(after: event.hasPrefix("cancel") ? "cancel t" : "settle t", in: event) {
                ended[task, default: 0] += 1
            }
        }
        #expect(ended.values.allSatisfy { $0 == 1 }, "seed \(seed): \(ended.filter { $0.value > 1 })")
    }

    /// The number after `prefix` in `event` (`field` 1: the one after the next `#`).
    static func number(after prefix: String, in event: String, field: Int = 0) -> UInt64? {
        guard event.hasPrefix(prefix) else { return nil }
        var rest = event.dropFirst(prefix.count)
        if field == 1, let hash = rest.firstIndex(of: "#") { rest = rest[rest.index(after: hash)...] }
        return UInt64(rest.prefix { $0.isNumber })
    }
}
