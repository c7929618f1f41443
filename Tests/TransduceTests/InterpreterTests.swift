import Testing
import TransduceTestSupport

@testable import Transduce

/// Async actions inside (nested) sequences: the one interpreter stops at each, the driver awaits
/// it, and the interpreter goes on inside the sequences around it — on the inline path (a send
/// that claims the idle gate) and from the queue (a drain task's cycle) alike.
nonisolated enum NestedSequences: Transducer {
    struct State: Sendable, Equatable { var last = "" }
    enum Event: Sendable, Equatable { case start, a, b, c, d, done, failing, cancelling, ignored }
    struct Env: Sendable {
        let log = TraceLog()
    }
    typealias Response = String
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .start:
            return .sequence([
                .action { env in
                    env.log.append("action")
                    return .a
                },
                .action(nonsendingOperation: { env in
                    await Task.yield()
                    env.log.append("async 1")
                    return .b
                }),
                .sequence([
                    .event(.c),
                    .action(nonsendingOperation: { env in
                        env.log.append("async 2")
                        return .d
                    }),
                    .action(nonsendingOperation: { env in
                        env.log.append("async 3")
                        return .done
                    }),
                ]),
            ])
        case .failing:
            return .sequence([
                .sequence([.action(nonsendingOperation: { _ in throw Boom() }), .event(.ignored)]),
                .action { env in
                    env.log.append("after the failure")
                    return nil
                },
            ])
        case .cancelling:
            return .sequence([.action(nonsendingOperation: { _ in throw CancellationError() }), .event(.ignored)])
        case .done:
            state.last = "done"
            return .none
        case .a, .b, .c, .d, .ignored:
            state.last = "\(event)"
            return .none
        }
    }
    static func response(state: State, event: Event) -> String { state.last }
}

@Suite struct InterpreterTests {
    /// The trace of one `.start` cycle: every intermediate event dropped, one effect event per
    /// effect (the sequences' after their elements), and the last event chained.
    static let startCycle = [
        "transduce(start)", "effect(action)", "dropped(a,sequenceIntermediate)", "effect(asyncAction)",
        "dropped(b,sequenceIntermediate)", "effect(event)", "dropped(c,sequenceIntermediate)", "effect(asyncAction)",
        "dropped(d,sequenceIntermediate)", "effect(asyncAction)", "effect(sequence)", "effect(sequence)",
        "transduce(done)", "effect(none)", "leave(settled)",
    ]

    @Test func aSendRunsTheSequencesInlineUpToTheFirstActionThenInADrainTask() async throws {
        let instrument = TestInstrument()
        let env = NestedSequences.Env()
        let host = BaseRuntime(of: NestedSequences.self, env: env, instrument: instrument)
        try await withTimeout { try await host.input.send(.start) }
        #expect(env.log.all == ["action", "async 1", "async 2", "async 3"])
        #expect(await host.state.last == "done")
        let briefs = instrument.all.map(\.brief)
        #expect(briefs == ["start", "dispatch(send,start)", "enter"] + Self.startCycle + ["resume(response)"])
        // The caller waited for the rest, which a drain task ran.
        #expect(host.waitersMade == 1 && host.drainTasksStarted == 1)
    }

    @Test func aQueuedRequestRunsTheSameCycleInItsDrainTask() async throws {
        let instrument = TestInstrument()
        let env = NestedSequences.Env()
        let host = BaseRuntime(of: NestedSequences.self, env: env, instrument: instrument)
        try host.input.post(.start)
        let response = try await withTimeout { try await host.input.request(.a) }
        #expect(response == "a")
        #expect(env.log.all == ["action", "async 1", "async 2", "async 3"])
        // The request is dispatched while the drain task's cycle runs, at some point of it.
        var briefs = instrument.all.map(\.brief)
        #expect(briefs.filter { $0 == "dispatch(request,a)" }.count == 1)
        briefs.removeAll { $0 == "dispatch(request,a)" }
        #expect(
            briefs == ["start", "dispatch(post,start)", "enter"] + Self.startCycle + [
                "enter", "transduce(a)", "effect(none)", "leave(settled)", "resume(response)",
            ])
    }

    @Test func aFailingActionInANestedSequenceStopsEverySequenceAroundIt() async throws {
        let instrument = TestInstrument()
        let env = NestedSequences.Env()
        let host = BaseRuntime(of: NestedSequences.self, env: env, instrument: instrument)
        await expectThrows(Boom()) { try await withTimeout { try await host.input.send(.failing) } }
        #expect(env.log.all.isEmpty)
        #expect(host.lifecycle == .failed)
        let briefs = instrument.all.map(\.brief)
        #expect(
            briefs == [
                // The stop fails the caller's waiter (in flight) at once.
                "start", "dispatch(send,failing)", "enter", "transduce(failing)", "stop(failed)", "resume(error)",
                "effect(asyncAction)", "effect(sequence)", "effect(sequence)", "leave(aborted)",
            ])
    }

    @Test func aCancelledActionFailsTheCallerAndEndsTheCycle() async throws {
        let instrument = TestInstrument()
        let host = BaseRuntime(of: NestedSequences.self, env: NestedSequences.Env(), instrument: instrument)
        await expectCancellation { try await withTimeout { try await host.input.send(.cancelling) } }
        #expect(host.lifecycle == .active)
        let briefs = instrument.all.map(\.brief)
        #expect(
            briefs == [
                "start", "dispatch(send,cancelling)", "enter", "transduce(cancelling)", "resume(error)",
                "effect(asyncAction)", "effect(sequence)", "leave(aborted)",
            ])
        // The runtime goes on.
        #expect(try await withTimeout { try await host.input.request(.b) } == "b")
    }
}
