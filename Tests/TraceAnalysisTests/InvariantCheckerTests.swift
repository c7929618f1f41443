import Testing
import TransduceTestSupport

@testable import TransduceTrace

/// Builds events by hand: `e(.dispatch, at: 1) { $0.dispatch = 1 }`.
func e(_ kind: TraceEvent.Kind, at time: UInt64, runtime: UInt64 = 1, _ set: (inout TraceEvent) -> Void = { _ in }) -> TraceEvent
{
    var event = TraceEvent(kind: kind, time: time * 1_000_000, thread: 1, runtime: runtime)
    set(&event)
    return event
}

func dispatch(_ id: UInt64, _ style: String, _ label: String, at t: UInt64) -> TraceEvent {
    e(.dispatch, at: t) {
        $0.dispatch = id
        $0.code = TraceNames.code(kind: .dispatch, name: style)!
        $0.label = label
    }
}

func enter(_ cycle: UInt64, _ dispatch: UInt64, at t: UInt64) -> TraceEvent {
    e(.cycleEnter, at: t) {
        $0.cycle = cycle
        $0.dispatch = dispatch
    }
}

func leave(_ cycle: UInt64, at t: UInt64) -> TraceEvent { e(.cycleLeave, at: t) { $0.cycle = cycle } }

func transduce(_ cycle: UInt64, _ label: String, at t: UInt64) -> TraceEvent {
    e(.transduce, at: t) {
        $0.cycle = cycle
        $0.label = label
    }
}

func resume(_ dispatch: UInt64, at t: UInt64) -> TraceEvent { e(.requestResume, at: t) { $0.dispatch = dispatch } }

@Suite struct InvariantCheckerTests {
    func violations(_ events: [TraceEvent], complete: Bool = true) -> [InvariantViolation] {
        TraceInvariants.check(Trace(events: events), complete: complete)
    }

    @Test func aCleanTracePasses() throws {
        try Trace(events: [
            dispatch(1, "request", "a", at: 1), enter(1, 1, at: 2), transduce(1, "a", at: 3), leave(1, at: 4), resume(1, at: 5),
        ]).checkInvariants()
    }

    @Test func overlappingCyclesAreReported() {
        let first = enter(1, 1, at: 2)
        let second = enter(2, 2, at: 3)
        let found = violations([
            dispatch(1, "post", "a", at: 1), dispatch(2, "post", "b", at: 1), first, second, leave(2, at: 4), leave(1, at: 5),
        ])
        #expect(found.count == 1)
        #expect(found.first?.rule == .oneCycleAtATime)
        #expect(found.first?.events == [first, second])
        #expect(found.first?.message == "cycle #2 entered while cycle #1 held the gate")
    }

    @Test func transduceOutsideItsCycleIsReported() {
        let stray = transduce(7, "x", at: 9)
        let found = violations([stray])
        #expect(found.map(\.rule) == [.oneCycleAtATime])
        #expect(found.first?.events == [stray])
    }

    @Test func admissionsOutOfOrderAreReported() {
        let one = dispatch(1, "post", "first", at: 1)
        let two = dispatch(2, "post", "second", at: 2)
        let entered = enter(1, 2, at: 3)
        let found = violations([one, two, entered, leave(1, at: 4), enter(2, 1, at: 5), leave(2, at: 6)])
        #expect(found.map(\.rule) == [.fifoAdmission])
        #expect(found.first?.events == [one, two, entered])
        #expect(found.first?.message == "dispatch #2 entered before dispatch #1, which was accepted first")
        // A dispatch event's line names it once.
        let lines = found.first?.description.split(separator: "\n").map(String.init) ?? []
        #expect(
            lines.dropFirst() == [
                "    at 0.000ms dispatch #1 'first'", "    at 1.000ms dispatch #2 'second'",
                "    at 2.000ms cycleEnter dispatch #2 cycle #1",
            ], "\(lines)")
    }

    /// The rules keep open dispatches and stops as stamps; the evidence they report is the
    /// event whole.
    @Test func aStampGivesItsEventBackWhole() {
        var d = dispatch(9, "request", "load", at: 3)
        d.process = 4_242
        d.runtime = 7
        d.thread = 31
        d.count = 5
        d.otherTask = 12
        d.payload = "load(id: 3)"
        #expect(EventStamp(d).event(runtime: d.runtimeKey, dispatch: d.dispatch) == d)
        var stop = e(.runtimeStop, at: 9) {
            $0.code = 3
            $0.label = "Boom"
        }
        stop.process = 4_242
        #expect(EventStamp(stop).event(runtime: stop.runtimeKey) == stop)
    }

    @Test func callersResumedTwiceOrNeverAreReported() {
        let d1 = dispatch(1, "request", "a", at: 1)
        let d2 = dispatch(2, "send", "b", at: 2)
        let r1 = resume(1, at: 5)
        let r2 = resume(1, at: 6)
        let found = violations([d1, d2, enter(1, 1, at: 3), leave(1, at: 4), r1, r2, enter(2, 2, at: 7), leave(2, at: 8)])
        #expect(found.map(\.rule) == [.resumedExactlyOnce, .resumedExactlyOnce])
        #expect(found[0].events == [d1, r1, r2])
        #expect(found[0].message == "dispatch #1 was resumed 2 times")
        #expect(found[1].events == [d2])
        #expect(found[1].message == "dispatch #2 (send 'b') was never resumed")
        // In a partial trace a missing resume proves nothing.
        #expect(violations([d2], complete: false).isEmpty)
    }

    @Test func tasksSpawnedTwiceNeverEndedOrNotDiscardedAreReported() {
        let spawnA = e(.taskSpawn, at: 1) {
            $0.task = 1; $0.label = "a"
        }
        let spawnA2 = e(.taskSpawn, at: 2) {
            $0.task = 1; $0.label = "a"
        }
        let settleA = e(.taskSettle, at: 3) { $0.task = 1 }
        let spawnB = e(.taskSpawn, at: 4) {
            $0.task = 2; $0.label = "b"
        }
        let spawnC = e(.taskSpawn, at: 5) {
            $0.task = 3; $0.label = "c"
        }
        let cancelC = e(.taskCancel, at: 6) { $0.task = 3 }
        let lateC = e(.taskSettle, at: 7) {
            $0.task = 3
            $0.code = TraceNames.code(kind: .taskSettle, name: "request")!
        }
        let found = violations([spawnA, spawnA2, settleA, spawnB, spawnC, cancelC, lateC])
        #expect(found.map(\.rule) == [.taskSpawnedAndEndedOnce, .taskSpawnedAndEndedOnce, .taskSpawnedAndEndedOnce])
        #expect(found[0].events == [spawnA, spawnA2])
        #expect(found[1].message == "task #2 'b' never ended")
        #expect(found[1].events == [spawnB])
        #expect(found[2].events == [cancelC, lateC])
        #expect(found[2].message == "task #3 was cancelled (replaced) but its outcome request was not discarded")
    }

    /// The checker keeps only the last few thousand ended objects whole; what ended before is an
    /// id in a range set, and a late event about it must still be found.
    @Test func lateEventsAboutLongForgottenObjectsAreStillFound() {
        let n = UInt64(ResumedExactlyOnce.recent + TaskSpawnedAndEndedOnce.recent + 1_000)
        var checker = InvariantChecker()
        for i in 1...n {
            checker.consume(dispatch(i, "request", "a", at: i))
            checker.consume(resume(i, at: i))
            checker.consume(e(.taskSpawn, at: i) { $0.task = i })
            if i == 2 {
                checker.consume(
                    e(.taskCancel, at: i) {
                        $0.task = i; $0.code = TraceNames.code(kind: .taskCancel, name: "replaced")!
                    })
            } else {
                checker.consume(e(.taskSettle, at: i) { $0.task = i })
            }
        }
        let lateResume = resume(1, at: n + 1)
        let lateSettle = e(.taskSettle, at: n + 1) { $0.task = 1 }
        let discarded = e(.taskSettle, at: n + 1) {
            $0.task = 2; $0.code = TraceNames.code(kind: .taskSettle, name: "cancelled")!
        }
        let lateOutcome = e(.taskSettle, at: n + 2) {
            $0.task = 2; $0.code = TraceNames.code(kind: .taskSettle, name: "request")!
        }
        for late in [lateResume, lateSettle, discarded, lateOutcome] { checker.consume(late) }
        let found = checker.finish(whole: true)
        #expect(
            found.map(\.message) == [
                "dispatch #1 was resumed 2 times", "task #1 ended more than once",
                "task #2 ended more than once",
                "task #2 was cancelled but its outcome request was not discarded",
            ])
        #expect(found[0].events == [lateResume])
        #expect(found[1].events == [lateSettle])
        #expect(found[3].events == [lateOutcome])
        // A resume of a dispatch nobody awaited is not a second resume.
        var fresh = InvariantChecker()
        fresh.consume(dispatch(1, "post", "p", at: 1))
        fresh.consume(resume(1, at: 2))
        #expect(fresh.finish(whole: true).isEmpty)
    }

    @Test func transduceAfterStopIsReported() {
        let stop = e(.runtimeStop, at: 5) { $0.code = 1 }
        let late = transduce(2, "late", at: 7)
        let found = violations([dispatch(1, "post", "x", at: 1), stop, enter(2, 1, at: 6), late, leave(2, at: 8)])
        #expect(found.contains { $0.rule == .nothingTransducedAfterStop && $0.events == [stop, late] })
    }

    /// A step of a chain that checked the runtime was active before a stop on another thread,
    /// and was recorded after it (its thread preempted between): stamped before the stop, it
    /// raced the stop and did not break it (`stressKeepsEveryInvariant` met it on a loaded
    /// machine). One stamped at the stop's time or after is still reported.
    @Test func aTransduceStampedBeforeTheStopRacedIt() {
        let stop = e(.runtimeStop, at: 5) { $0.code = 1 }
        let raced = transduce(1, "raced", at: 4)
        let found = violations([dispatch(1, "send", "x", at: 1), enter(1, 1, at: 2), stop, raced, leave(1, at: 6)])
        #expect(!found.contains { $0.rule == .nothingTransducedAfterStop })
        let late = transduce(1, "late", at: 5)
        let after = violations([dispatch(1, "send", "x", at: 1), enter(1, 1, at: 2), stop, late, leave(1, at: 6)])
        #expect(after.contains { $0.rule == .nothingTransducedAfterStop && $0.events == [stop, late] })
    }

    @Test func errorsListEveryViolation() {
        let error = InvariantError(violations: violations([transduce(3, "x", at: 1)]))
        #expect(
            error.description.hasPrefix(
                "1 runtime invariant violation, times from the trace's start:\n  oneCycleAtATime (runtime 1): 'x' transduced outside its cycle #3"
            ))
        #expect(error.description.contains("at 0.000ms transduce cycle #3 'x'"))
    }
}

@Suite struct ShapeMessageTests {
    /// The chart, built by hand so that times and ids are fixed.
    let chart: Trace = {
        var events = [dispatch(1, "request", "load", at: 0), enter(1, 1, at: 1), transduce(1, "load", at: 1)]
        events.append(
            e(.taskSpawn, at: 2) {
                $0.task = 1; $0.label = "load"; $0.cycle = 1; $0.count = 1
            })
        events.append(
            e(.effect, at: 2) {
                $0.cycle = 1; $0.code = 4; $0.label = "load"
            })
        events.append(
            e(.cycleLeave, at: 3) {
                $0.cycle = 1; $0.code = 1; $0.nanos = 2_000_000
            })
        events.append(
            e(.taskSettle, at: 9) {
                $0.task = 1; $0.code = 1; $0.label = "loaded"; $0.nanos = 7_000_000
            })
        events.append(
            e(.dispatch, at: 9) {
                $0.dispatch = 2; $0.code = 5; $0.label = "loaded"; $0.otherTask = 1
            })
        events += [enter(2, 2, at: 10), transduce(2, "loaded", at: 10), leave(2, at: 11)]
        events.append(
            e(.requestResume, at: 11) {
                $0.dispatch = 1; $0.cycle = 2; $0.nanos = 11_000_000
            })
        return Trace(events: events)
    }()

    /// (The notes are the chart's own time differences: the hand-built events carry no measured
    /// waits, and one clock serves every view.)
    @Test func theFailureMessageIsPinned() {
        do {
            try chart.expectShape(
                [.dispatch(.request, "load"), .enter, .transduce("load"), .spawn("load", policy: .shareable)],
                in: .request("load"), width: 100, fileID: "App/LoaderTests.swift", line: 42)
            Issue.record("expected a mismatch")
        } catch let error as TraceShapeError {
            #expect(
                error.description == """
                    App/LoaderTests.swift:42: trace shape mismatch (exhaustive): the events differ
                      expected #4: spawn(load, shareable)
                      actual   #4: spawn(load, switchToLatest)

                      expected                         actual
                         1 dispatch(request, load)        1 dispatch(request, load)
                         2 enter                          2 enter
                         3 transduce(load)                3 transduce(load)
                    >    4 spawn(load, shareable)    >    4 spawn(load, switchToLatest)
                                                          5 effect(task, load)
                                                          6 leave(handedOff)
                                                          7 settle(load, request, loaded)
                                                          8 dispatch(taskRequest, loaded)
                                                          9 enter
                                                         10 transduce(loaded)
                                                         11 leave(settled)
                                                         12 resume(response)

                    What happened:
                      time ms  note           caller       gate      transduce     tasks
                        0.000                     │──────────▶│ dispatch #1 request(load)
                        1.000  wait 1.00ms        │           │──────────▶│ enter cycle #1
                        1.000                     │           │           │ transduce(load)
                                                  │           │           │           │       load#1
                        2.000  waiters 1          │           │           │           │──────────▶│ spawn switchToLatest
                        2.000                     │           │           │──────────▶│ task(load)│
                        3.000  held 2.00ms        │           │◀──────────│ leave cycle #1 (handedOff)
                        9.000  ran 7.00ms         │           settle: request(loaded) │◀──────────│
                        9.000                     │           │◀─dispatch #2 taskRequest(loaded)──│
                       10.000  wait 1.00ms        │           │──────────▶│ enter cycle #2
                       10.000                     │           │           │ transduce(loaded)
                       11.000  held 1.00ms        │           │◀──────────│ leave cycle #2 (settled)
                       11.000  after 11.0ms       │◀──────────│ resume dispatch #1: response

                    Fix: update the expected shape, or pass `exhaustive: false` to allow extra events in between.
                    """)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// What to leave out can be written as the expected events are: `.effect(.task)`, `.spawn("load")`.
    @Test func ignoringTakesPatterns() {
        let rest: [EventPattern] = [
            .dispatch(.request, "load"), .enter, .transduce("load"), .leave(.handedOff), .settle("load"),
            .dispatch(.taskRequest, "loaded"), .enter, .transduce("loaded"), .leave(.settled), .resume(.response),
        ]
        #expect(throws: Never.self) {
            try chart.expectShape(rest, in: .request("load"), ignoring: [.spawn("load"), .effect(.task)])
        }
        // A pattern leaves out only what it matches: the task effect stays when `.none` is ignored.
        #expect(throws: TraceShapeError.self) {
            try chart.expectShape(rest, in: .request("load"), ignoring: [.spawn("load"), .effect(.none)])
        }
        // Kinds, as before.
        #expect(throws: Never.self) { try chart.expectShape(rest, in: .request("load"), ignoring: [.taskSpawn, .effect]) }
    }

    @Test func inOrderMatchingReportsTheMissingEvent() {
        #expect(throws: TraceShapeError.self) {
            try chart.expectShape([.dispatch(.request, "load"), .join("load")], in: .request("load"), exhaustive: false)
        }
        #expect(throws: Never.self) {
            try chart.expectShape(
                [.dispatch(.request, "load"), .settle("load"), .resume(.response)], in: .request("load"), exhaustive: false)
        }
        #expect(throws: TraceShapeError.self) { try chart.expectShape([], in: .request("nothing")) }
    }
}
