import Testing

@testable import Transduce

/// The control plane as a plain value: every transition's result and the trace events it
/// decides, in order, without tasks, threads or locks.
@Suite struct RuntimeControlTests {
    struct TestWaiter: ControlWaiter, Equatable {
        let dispatch: UInt64
    }
    typealias Control = RuntimeControl<LoaderFeature, TestWaiter, Int>
    typealias Admission = Control.Admission

    /// Keeps what the machine records, each event written compactly.
    struct Sink: ControlTraceSink {
        var isRecording = true
        var events: [String] = []

        mutating func record(_ detail: RuntimeEvent.Detail, at time: UInt64, payload: LoaderFeature.Event?) {
            events.append(Self.describe(detail) + (time == 0 ? "" : " @\(time)"))
        }

        static func describe(_ detail: RuntimeEvent.Detail) -> String {
            switch detail {
            case .dispatch(let dispatch, let style, let event, let origin, let depth):
                "dispatch #\(dispatch) \(style) \(event) origin \(origin) depth \(depth)"
            case .dispatchRejected(let dispatch, let style, let event, let reason):
                "rejected #\(dispatch) \(style) \(event) \(reason)"
            case .cycleEnter(let cycle, let dispatch, let waited, let depth):
                "enter c\(cycle) #\(dispatch) waited \(waited) depth \(depth)"
            case .taskSpawn(let task, let name, let policy, let cycle, let waiters, let replaces):
                "spawn t\(task) \(name.map(\.description) ?? "-") \(policy) c\(cycle) waiters \(waiters) replaces \(replaces)"
            case .taskJoin(let task, let dispatch): "join t\(task) #\(dispatch)"
            case .taskCancel(let task, let reason): "cancel t\(task) \(reason)"
            case .taskSettle(let task, let outcome, let label, let ran):
                "settle t\(task) \(outcome)\(label.map { " " + $0.description } ?? "") ran \(ran)"
            case .eventDropped(let cycle, let event, let reason): "dropped c\(cycle) \(event) \(reason)"
            case .runtimeStop(let reason, let error): "stop \(reason)\(error.map { " " + $0.description } ?? "")"
            default: "unexpected \(detail)"
            }
        }
    }

    struct Failure: Error {}

    static func admission(
        _ dispatch: UInt64, _ style: DispatchKind = .post, waiters: [UInt64] = [], at time: UInt64 = 0, origin: UInt64 = 0
    ) -> Admission {
        Admission(
            event: .load, style: style, waiters: waiters.map(TestWaiter.init), dispatch: dispatch, enqueuedAt: time,
            origin: origin)
    }

    static func outcomes(_ resumptions: [Control.Resumption]) -> [String] {
        resumptions.map { r in
            let result =
                switch r.result {
                case .success(let value): "ok \(value.map { "\($0)" } ?? "nil")"
                case .failure(let error): "\(error)"
                }
            return "#\(r.waiter.dispatch) \(result)" + (r.byTask == 0 ? "" : " by t\(r.byTask)")
        }
    }

    // MARK: Admissions and the gate

    @Test func aPostIntoAnIdleGateStartsADrainThatTakesItsCycle() {
        var control = Control(queueCapacity: 4)
        var sink = Sink()
        let admitted = control.admit(Self.admission(1, at: 100), isPost: true, callerCancelled: false, trace: &sink)
        #expect(admitted == .queued(.startTask))
        // Until the drain task holds the gate, another admission asks for one again.
        control.drainStarted(9)
        #expect(control.gate.drainHandle == 9)
        let second = control.admit(Self.admission(2, at: 110), isPost: true, callerCancelled: false, trace: &sink)
        #expect(second == .queued(.none))
        let first = control.next(now: 150, trace: &sink)
        #expect(first?.cycle == 1 && first?.admission.dispatch == 1 && first?.left == 1)
        let then = control.next(now: 170, trace: &sink)
        #expect(then?.cycle == 2 && then?.left == 0)
        let r1 = control.next(now: 180, trace: &sink)
        #expect(r1 == nil)
        #expect(control.gate.isIdle)
        #expect(
            sink.events == [
                "dispatch #1 post load origin 0 depth 1 @100", "dispatch #2 post load origin 0 depth 2 @110",
                "enter c1 #1 waited 50 depth 1 @150", "enter c2 #2 waited 60 depth 0 @170",
            ])
    }

    @Test func aDrainThatCouldNotStartLeavesTheGateIdle() {
        var control = Control(queueCapacity: 4)
        var sink = Sink()
        let r2 = control.admit(Self.admission(1), isPost: true, callerCancelled: false, trace: &sink)
        #expect(r2 == .queued(.startTask))
        control.drainStarted(nil)  // the host is gone
        #expect(control.gate.isIdle)
        // Something is queued, so no claim may overtake it.
        let r3 = control.claim(Self.admission(2, .send), now: 0, trace: &sink)
        #expect(r3 == .queue)
    }

    @Test func theFastPathClaimsTheIdleGateAndHandsItOnWhenOthersArrived() {
        var control = Control(queueCapacity: 4)
        var sink = Sink()
        let r4 = control.claim(Self.admission(1, .send, at: 10), now: 15, trace: &sink)
        #expect(r4 == .claimed(cycle: 1))
        // Held inline: the next awaited dispatch queues (and records nothing until it does).
        let r5 = control.claim(Self.admission(2, .request, at: 20), now: 0, trace: &sink)
        #expect(r5 == .queue)
        let queued = control.admit(
            Self.admission(2, .request, waiters: [2], at: 20), isPost: false, callerCancelled: false, trace: &sink)
        #expect(queued == .queued(.none))
        let r6 = control.endInlineCycle()
        #expect(r6 == .startTask)
        control.drainStarted(3)
        let next = control.next(now: 40, trace: &sink)
        #expect(next?.cycle == 2)
        #expect(control.inflight == [TestWaiter(dispatch: 2)])
        #expect(
            sink.events == [
                "dispatch #1 send load origin 0 depth 1 @10", "enter c1 #1 waited 5 depth 0 @15",
                "dispatch #2 request load origin 0 depth 1 @20", "enter c2 #2 waited 20 depth 0 @40",
            ])
    }

    @Test func anInlineCycleWithNothingWaitingLeavesTheGateIdle() {
        var control = Control(queueCapacity: 4)
        var sink = Sink()
        let r7 = control.claim(Self.admission(1, .send), now: 0, trace: &sink)
        #expect(r7 == .claimed(cycle: 1))
        let r8 = control.endInlineCycle()
        #expect(r8 == .none)
        #expect(control.gate.isIdle)
        let r9 = control.claim(Self.admission(2, .send), now: 0, trace: &sink)
        #expect(r9 == .claimed(cycle: 2))
        // An inline cycle that meets an async action moves to a drain task.
        let r10 = control.handInlineCycle(to: 5)
        #expect(r10)
        #expect(control.gate.drainHandle == 5)
    }

    @Test func aFullQueueRefusesPostsAndKeepsAwaitedAdmissionsInOrder() {
        var control = Control(queueCapacity: 1)
        var sink = Sink()
        _ = control.admit(Self.admission(1), isPost: true, callerCancelled: false, trace: &sink)
        control.drainStarted(9)
        let r11 = control.admit(Self.admission(2), isPost: true, callerCancelled: false, trace: &sink)
        #expect(r11 == .rejected(.queueFull))
        let r12 = control.admit(Self.admission(3, .send, waiters: [3]), isPost: false, callerCancelled: false, trace: &sink)
        #expect(
            r12
                == .queued(.none))
        // A post cannot overtake the admission waiting for room.
        _ = control.next(now: 0, trace: &sink)
        let r13 = control.admit(Self.admission(4), isPost: true, callerCancelled: false, trace: &sink)
        #expect(r13 == .rejected(.queueFull))
        let r14 = control.next(now: 0, trace: &sink)?.admission.dispatch
        #expect(r14 == 3)
        #expect(
            sink.events == [
                "dispatch #1 post load origin 0 depth 1", "rejected #2 post load queueFull",
                "dispatch #3 send load origin 0 depth 2", "enter c1 #1 waited 0 depth 1",
                "rejected #4 post load queueFull", "enter c2 #3 waited 0 depth 0",
            ])
        #expect(Control.error(of: .queueFull, capacity: 1) as? RuntimeError == .queueFull(capacity: 1))
    }

    /// Every dispatch style, after every way of stopping: refused with the stop's reason and
    /// error, nothing queued.
    @Test(arguments: [
        DispatchKind.post, .send, .request, .uniqueRequest, .taskRequest, .taskResponse, .initial,
    ])
    func aStoppedRuntimeRefusesEveryStyle(style: DispatchKind) {
        let stops: [(RuntimeLifecycle, RejectionReason, RuntimeError)] = [
            (.cancelled, .cancelled, .cancelled), (.deallocated, .deallocated, .deallocated),
            (.failed, .systemError, .systemError),
        ]
        for (lifecycle, reason, error) in stops {
            var control = Control(queueCapacity: 4)
            var sink = Sink(isRecording: false)
            _ = control.stop(lifecycle, error: lifecycle == .failed ? Failure() : nil, trace: &sink)
            sink.isRecording = true
            let awaited = style != .post && style != .initial
            let admitted = control.admit(Self.admission(7, style), isPost: !awaited, callerCancelled: false, trace: &sink)
            #expect(admitted == .rejected(.stopped(lifecycle)))
            #expect(sink.events == ["rejected #7 \(style) load \(reason)"])
            #expect(Control.error(of: .stopped(lifecycle), capacity: 4) as? RuntimeError == error)
            if awaited {
                let r15 = control.claim(Self.admission(8, style), now: 0, trace: &sink)
                #expect(r15 == .rejected(.stopped(lifecycle)))
            }
            #expect(control.gate.depth == 0)
        }
    }

    @Test func aCancelledTasksDispatchIsRefused() {
        var control = Control(queueCapacity: 4)
        var sink = Sink()
        let admitted = control.admit(
            Self.admission(3, .taskRequest, origin: 2), isPost: false, callerCancelled: true, trace: &sink)
        #expect(admitted == .rejected(.callerCancelled))
        #expect(sink.events == ["rejected #3 taskRequest load cancelled"])
        #expect(Control.error(of: .callerCancelled, capacity: 4) is CancellationError)
    }

    @Test func nothingIsBuiltForTheTraceWhenNotRecording() {
        var control = Control(queueCapacity: 4)
        var sink = Sink(isRecording: false)
        _ = control.admit(Self.admission(1), isPost: true, callerCancelled: false, trace: &sink)
        _ = control.spawn(id: "a", policy: .switchToLatest, waiters: [], cycle: 1, now: 0, trace: &sink)
        _ = control.stop(.cancelled, error: nil, trace: &sink)
        #expect(sink.events.isEmpty)
    }

    // MARK: Tasks

    /// The task policies, as a table: what a second task effect with the same id does to a
    /// running one, and the trace of it.
    @Test(arguments: [
        // switchToLatest: the running instance is replaced and its waiters move to the new one.
        (
            TaskAdditionPolicy.switchToLatest, false, "start t2 waiters 2 cancel 7",
            ["cancel t1 replaced", "spawn t2 x switchToLatest c2 waiters 2 replaces 1"]
        ),
        // shareable: the request joins the running instance.
        (.shareable, false, "joined", ["join t1 #2"]),
        // a uniqueRequest cycle overrides shareable.
        (.shareable, true, "start t2 waiters 2 cancel 7", ["cancel t1 replaced", "spawn t2 x unique c2 waiters 2 replaces 1"]),
    ])
    func aSecondTaskWithTheSameID(option: TaskAdditionPolicy, unique: Bool, expected: String, trace: [String]) {
        var control = Control(queueCapacity: 4)
        var sink = Sink(isRecording: false)
        guard
            case .start(let first, let key, let carried, nil) = control.spawn(
                id: "x", policy: TaskPolicyKind(option, inUniqueRequest: false), waiters: [TestWaiter(dispatch: 1)], cycle: 1,
                now: 5,
                trace: &sink)
        else {
            Issue.record("the first instance must start")
            return
        }
        control.taskStarted(key, instance: first, handle: 7, waiters: carried, startedAt: 5)
        sink.isRecording = true
        let spawn = control.spawn(
            id: "x", policy: TaskPolicyKind(option, inUniqueRequest: unique), waiters: [TestWaiter(dispatch: 2)], cycle: 2,
            now: 0, trace: &sink)
        let described: String
        switch spawn {
        case .none: described = "joined"
        case .start(let instance, _, let waiters, let cancel):
            described = "start t\(instance) waiters \(waiters.count) cancel \(cancel.map(String.init) ?? "-")"
        }
        #expect(described == expected)
        #expect(sink.events == trace)
    }

    @Test func anonymousTasksNeverMeetAndAStoppedRuntimeStartsNone() {
        var control = Control(queueCapacity: 4)
        var sink = Sink()
        for cycle in 1...2 {
            guard
                case .start = control.spawn(
                    id: nil, policy: .shareable, waiters: [], cycle: UInt64(cycle), now: 0, trace: &sink)
            else {
                Issue.record("an anonymous task always starts")
                return
            }
        }
        #expect(sink.events == ["spawn t1 - shareable c1 waiters 0 replaces 0", "spawn t2 - shareable c2 waiters 0 replaces 0"])
        _ = control.stop(.cancelled, error: nil, trace: &sink)
        guard case .none = control.spawn(id: "late", policy: .switchToLatest, waiters: [], cycle: 3, now: 0, trace: &sink)
        else {
            Issue.record("a stopped runtime starts no task")
            return
        }
    }

    /// Starts task "t" carrying the waiters of `dispatches`, registered with handle 7.
    static func started(_ control: inout Control, waiters dispatches: [UInt64], at time: UInt64 = 100) -> (
        Control.Tasks.Key, UInt64
    ) {
        var quiet = Sink(isRecording: false)
        guard
            case .start(let instance, let key, let waiters, _) = control.spawn(
                id: "t", policy: .switchToLatest, waiters: dispatches.map(TestWaiter.init), cycle: 1, now: time,
                trace: &quiet)
        else { fatalError("the task must start") }
        control.taskStarted(key, instance: instance, handle: 7, waiters: waiters, startedAt: time)
        return (key, instance)
    }

    @Test func aTaskThatSettlesResumesItsWaiters() {
        var control = Control(queueCapacity: 4)
        var sink = Sink()
        let (key, instance) = Self.started(&control, waiters: [4, 5])
        var numbered = 0
        let finished = control.taskFinished(
            key, instance: instance, result: .success(.settle),
            dispatch: {
                numbered += 1; return 99
            }, now: 130,
            trace: &sink)
        #expect(Self.outcomes(finished.resumptions) == ["#4 ok nil by t1", "#5 ok nil by t1"])
        #expect(!finished.drains && finished.failure == nil && numbered == 0)
        #expect(sink.events == ["settle t1 settle ran 30 @130"])
        #expect(control.tasks.count == 0)
    }

    @Test func aTaskResponseReentersAnIdleGateAndItsTaskDrainsIt() {
        var control = Control(queueCapacity: 4)
        var sink = Sink()
        let (key, instance) = Self.started(&control, waiters: [4])
        let finished = control.taskFinished(
            key, instance: instance, result: .success(.response(.loaded(["a"]))), dispatch: { 12 }, now: 150, trace: &sink)
        #expect(finished.drains && finished.resumptions.isEmpty)
        // The finishing task's own handle holds the gate: no new drain task.
        #expect(control.gate.drainHandle == 7)
        #expect(
            sink.events == ["settle t1 response loaded ran 50 @150", "dispatch #12 taskResponse loaded origin 1 depth 1 @150"])
        // Its cycle carries the request's waiter.
        let r16 = control.next(now: 160, trace: &sink)?.admission.waiters
        #expect(r16 == [TestWaiter(dispatch: 4)])
    }

    @Test func aTaskRequestIntoABusyGateWaitsItsTurn() {
        var control = Control(queueCapacity: 4)
        var sink = Sink(isRecording: false)
        let (key, instance) = Self.started(&control, waiters: [4])
        _ = control.claim(Self.admission(20, .send), now: 0, trace: &sink)
        let finished = control.taskFinished(
            key, instance: instance, result: .success(.request(.load)), dispatch: { 21 }, now: 0, trace: &sink)
        #expect(!finished.drains)
        #expect(control.gate.isInline && control.gate.depth == 1)
    }

    @Test func aTaskThatFailsLatchesAndALateEndIsDiscarded() {
        var control = Control(queueCapacity: 4)
        var sink = Sink()
        let (key, instance) = Self.started(&control, waiters: [4])
        let failed = control.taskFinished(
            key, instance: instance, result: .failure(Failure()), dispatch: { 0 }, now: 110, trace: &sink)
        #expect(failed.failure is Failure)
        #expect(Self.outcomes(failed.resumptions) == ["#4 Failure() by t1"])
        // The same instance ending again (or a replaced one) is discarded.
        var numbered = false
        let late = control.taskFinished(
            key, instance: instance, result: .success(.response(.load)),
            dispatch: {
                numbered = true; return 0
            }, now: 120,
            trace: &sink)
        #expect(late.resumptions.isEmpty && !late.drains && !numbered)
        #expect(sink.events == ["settle t1 failed Failure ran 10 @110", "settle t1 cancelled ran 0"])
    }

    @Test func cancellingTasksFailsTheirWaitersAndReturnsTheirHandles() {
        var control = Control(queueCapacity: 4)
        var sink = Sink()
        let (key, _) = Self.started(&control, waiters: [4])
        let (handles, resumptions) = control.cancelTask(key, reason: .cancelEffect, trace: &sink)
        #expect(handles == [7])
        #expect(Self.outcomes(resumptions) == ["#4 CancellationError() by t1"])
        let r17 = control.cancelTask(key, reason: .cancelEffect, trace: &sink).cancel.isEmpty
        #expect(r17)
        #expect(sink.events == ["cancel t1 cancelEffect"])
    }

    // MARK: Stopping

    @Test func aStopFailsEveryWaiterCancelsEveryHandleAndDropsTheQueue() {
        var control = Control(queueCapacity: 4)
        var sink = Sink(isRecording: false)
        _ = Self.started(&control, waiters: [1])
        _ = control.admit(Self.admission(2, .send, waiters: [2]), isPost: false, callerCancelled: false, trace: &sink)
        control.drainStarted(9)
        _ = control.next(now: 0, trace: &sink)  // the cycle of #2 in flight
        _ = control.admit(Self.admission(3, .request, waiters: [3]), isPost: false, callerCancelled: false, trace: &sink)
        _ = control.admit(Self.admission(4), isPost: true, callerCancelled: false, trace: &sink)
        sink.isRecording = true
        let stopped = control.stop(.failed, error: Failure(), trace: &sink)
        #expect(control.lifecycle == .failed && control.failure is Failure)
        // The cycle's and the task's waiters get the failure; the queued ones the boundary error.
        #expect(
            Self.outcomes(stopped?.resumptions ?? []) == [
                "#2 Failure()", "#1 Failure() by t1", "#3 \(RuntimeError.systemError)",
            ])
        #expect(stopped?.cancel == [7, 9])
        #expect(
            sink.events == [
                "cancel t1 runtimeStop", "dropped c0 load discardedOnStop", "dropped c0 load discardedOnStop",
                "stop failed Failure",
            ])
        // Only the first stop counts; the drain then lets go of the gate.
        let r18 = control.stop(.cancelled, error: nil, trace: &sink)
        #expect(r18 == nil)
        let r19 = control.next(now: 0, trace: &sink)
        #expect(r19 == nil && control.gate.isIdle)
        let r20 = control.attachInflight(TestWaiter(dispatch: 5))
        #expect(!r20)
    }

    @Test(arguments: [RuntimeLifecycle.cancelled, .deallocated])
    func aStopWithoutAFailureGivesItsBoundaryError(reason: RuntimeLifecycle) {
        var control = Control(queueCapacity: 4)
        var sink = Sink(isRecording: false)
        _ = Self.started(&control, waiters: [1])
        let stopped = control.stop(reason, error: nil, trace: &sink)
        let error = reason == .cancelled ? RuntimeError.cancelled : .deallocated
        #expect(Self.outcomes(stopped?.resumptions ?? []) == ["#1 \(error) by t1"])
        #expect(control.failure == nil)
    }
}

extension Int: TaskHandle {}
