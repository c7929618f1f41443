import Synchronization
import Testing
import TransduceTestSupport

@testable import Transduce

extension RuntimeEvent {
    /// A compact rendering for order assertions.
    var brief: String {
        switch detail {
        case .runtimeStart: "start"
        case .runtimeStop(let reason, _): "stop(\(reason))"
        case .dispatch(_, let style, let event, _, _): "dispatch(\(style),\(event))"
        case .dispatchRejected(_, let style, _, let reason): "rejected(\(style),\(reason))"
        case .cycleEnter: "enter"
        case .transduce(_, _, let event): "transduce(\(event))"
        case .effect(_, _, let kind, let task, _): task.map { "effect(\(kind),\($0))" } ?? "effect(\(kind))"
        case .cycleLeave(_, let outcome, _, _): "leave(\(outcome))"
        case .taskSpawn(_, let name, let policy, _, let waiters, _): "spawn(\(name?.description ?? "-"),\(policy),\(waiters))"
        case .taskJoin: "join"
        case .taskCancel(_, let reason): "cancel(\(reason))"
        case .taskSettle(_, let outcome, _, _): "settle(\(outcome))"
        case .requestResume(_, let outcome, _, _, _, _): "resume(\(outcome))"
        case .eventDropped(_, let event, let reason): "dropped(\(event),\(reason))"
        case .traceContext(_, let context): "context(\(context))"
        }
    }
}

@Suite struct InstrumentTests {
    @Test(arguments: 0..<20) func chartScenarioCallsTheInstrumentInOrder(_ iteration: Int) async throws {
        let instrument = TestInstrument()
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env, instrument: instrument)
        let request = Task { try await host.input.request(.load) }
        try await env.gate.waitForArrivals()
        try await host.input.send(.ping)
        env.gate.open()
        #expect(try await withTimeout { try await request.value } == "x")
        // Resumes are recorded before the caller resumes, so the trace is complete here.
        let events = instrument.all
        #expect(
            events.map(\.brief) == [
                "start",
                "dispatch(request,load)", "enter", "transduce(load)", "spawn(load,switchToLatest,1)", "effect(task,load)",
                "leave(handedOff)",
                "dispatch(send,ping)", "enter", "transduce(ping)", "effect(none)", "leave(settled)", "resume(response)",
                "settle(request)", "dispatch(taskRequest,loaded)", "enter", "transduce(loaded)", "effect(none)",
                "leave(settled)", "resume(response)",
            ])
        // Causal links: the task names its cycle, the re-entry names the task, the resume names the cycle.
        var spawnCycle: UInt64 = 0
        var taskID: UInt64 = 0
        var firstCycle: UInt64 = 0
        var lastCycle: UInt64 = 0
        var requestDispatch: UInt64 = 0
        for event in events {
            switch event.detail {
            case .dispatch(let d, .request, _, _, _): requestDispatch = d
            case .cycleEnter(let c, let d, let waited, _):
                if d == requestDispatch { firstCycle = c }
                lastCycle = c
                #expect(waited > 0)
            case .taskSpawn(let t, _, _, let c, _, _):
                taskID = t
                spawnCycle = c
            case .dispatch(_, .taskRequest, _, let origin, _): #expect(origin == taskID)
            case .cycleLeave(_, _, _, let held): #expect(held > 0)
            case .requestResume(let d, _, _, let byCycle, _, let latency) where d == requestDispatch:
                #expect(byCycle == lastCycle)
                #expect(latency > 0)
            default: break
            }
            #expect(event.runtime == host.runtimeID)
        }
        #expect(spawnCycle == firstCycle && firstCycle != 0)
    }

    @Test func rejectionsAndStopAreReported() async throws {
        let instrument = TestInstrument()
        let host = BaseRuntime(of: CounterFeature.self, instrument: instrument)
        host.cancel()
        _ = try? host.input.post(.increment)
        _ = try? await host.input.send(.increment)
        #expect(
            instrument.all.map(\.brief) == ["start", "stop(cancelled)", "rejected(post,cancelled)", "rejected(send,cancelled)"])
    }

    @Test func sequenceDropsAreReported() async throws {
        let instrument = TestInstrument()
        let host = BaseRuntime(of: GateProbe.self, env: .init(), instrument: instrument)
        try await host.input.send(.seqDrop)
        let briefs = instrument.all.map(\.brief)
        #expect(briefs.contains("dropped(a,sequenceIntermediate)"))
        #expect(briefs.contains("dropped(b,sequenceIntermediate)"))
        #expect(!briefs.contains("transduce(a)"))
    }

    @Test func switchToLatestAndJoinAreReported() async throws {
        let instrument = TestInstrument()
        let env = TaskProbe.Env()
        let host = BaseRuntime(of: TaskProbe.self, env: env, instrument: instrument)
        let one = Task { try await host.input.request(.fetchShared) }
        try await env.gate.waitForArrivals()
        let two = Task { try await host.input.request(.fetchShared) }
        try await eventually("join recorded") { instrument.all.contains { $0.brief == "join" } }
        env.gate.open()
        _ = try await withTimeout { try await one.value }
        _ = try await withTimeout { try await two.value }
        let three = try await withTimeout { try await host.input.uniqueRequest(.fetchSwitch) }
        #expect(three == "result-2")
        let briefs = instrument.all.map(\.brief)
        #expect(briefs.contains("spawn(shared,shareable,1)"))
        #expect(briefs.contains("spawn(shared,unique,1)"))
    }

    @Test func noInstrumentMeansNoCalls() async throws {
        let instrument = DisabledInstrument()
        let host = BaseRuntime(of: GateProbe.self, env: .init(), instrument: instrument)
        try await host.input.send(.seqDrop)
        #expect(instrument.calls.load(ordering: .relaxed) == 0)
    }

    @Test func bootstrappedInstrumentIsTheDefault() async throws {
        let instrument = TestInstrument()
        RuntimeInstrumentation.bootstrap(instrument)
        let host = BaseRuntime(of: CounterFeature.self)
        RuntimeInstrumentation.bootstrap(nil)
        try await host.input.send(.increment)
        #expect(instrument.all.contains { $0.runtime == host.runtimeID && $0.brief == "transduce(increment)" })
    }
}

final class DisabledInstrument: RuntimeInstrument {
    let calls = Atomic<Int>(0)
    var isRecording: Bool { false }
    func record(_ event: RuntimeEvent) { calls.wrappingAdd(1, ordering: .relaxed) }
}
