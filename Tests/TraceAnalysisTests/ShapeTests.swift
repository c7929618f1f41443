import Synchronization
import Testing
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

/// Waits until the recording holds an event matching `condition` (events some runtime paths
/// record after the caller has already returned, such as a replaced task's late end).
func awaitEvent(_ recording: TraceRecording, _ condition: @escaping @Sendable (TraceEvent) -> Bool) async throws {
    try await withTimeout {
        while !recording.trace().events.contains(where: condition) { try await Task.sleep(for: .milliseconds(1)) }
    }
}

@Suite struct ShapeTests {
    @Test(arguments: 0..<10) func requestLifecycleChart(_ iteration: Int) async throws {
        let recording = TraceRecording()
        let env = Shop.Env()
        let host = BaseRuntime(of: Shop.self, env: env, instrument: recording.instrument)
        let request = Task { try await host.input.request(.load) }
        try await env.gate.waitForArrivals()
        try await host.input.send(.ping)
        env.gate.open()
        #expect(try await withTimeout { try await request.value } == "v1")
        let trace = recording.trace()
        try trace.expectShape(
            [
                .dispatch(.request, "load"), .enter, .transduce("load"), .spawn("load", policy: .switchToLatest),
                .effect(.task, task: "load"), .leave(.handedOff),
                .settle("load", outcome: .request, event: "loaded"), .dispatch(.taskRequest, "loaded"), .enter,
                .transduce("loaded"), .effect(.none), .leave(.settled), .resume(.response),
            ], in: .request("load"))
        // The gate was released while the task held the request: ping's whole cycle fits between.
        try trace.expectShape(
            [
                .leave(.handedOff), .dispatch(.send, "ping"), .enter, .transduce("ping"), .effect(.none), .leave(.settled),
                .resume(.response), .settle("load", outcome: .request),
            ], exhaustive: false)
        try trace.checkInvariants(complete: false)
    }

    @Test(arguments: 0..<10) func switchToLatestTransfersTheWaiter(_ iteration: Int) async throws {
        let recording = TraceRecording()
        let env = Shop.Env()
        let host = BaseRuntime(of: Shop.self, env: env, instrument: recording.instrument)
        let first = Task { try await host.input.request(.load) }
        try await env.gate.waitForArrivals()
        let second = try await withTimeout { try await host.input.request(.load) }
        #expect(second == "v2")
        #expect(try await withTimeout { try await first.value } == "v2")
        env.gate.open()
        try await awaitEvent(recording) { $0.kind == .taskSettle && $0.codeName == "cancelled" }
        try recording.trace().expectShape(
            [
                .dispatch(.request, "load"), .enter, .transduce("load"), .spawn("load", policy: .switchToLatest),
                .effect(.task, task: "load"), .leave(.handedOff),
                .cancel("load", reason: .replaced), .spawn("load", policy: .switchToLatest),
                .settle("load", outcome: .request, event: "loaded"), .dispatch(.taskRequest, "loaded"), .enter,
                .transduce("loaded"), .effect(.none), .leave(.settled), .resume(.response),
                .settle("load", outcome: .cancelled),
            ], in: .request("load"))
        host.cancel()
        try recording.trace().checkInvariants()
    }

    @Test(arguments: 0..<10) func shareableJoin(_ iteration: Int) async throws {
        let recording = TraceRecording()
        let env = Shop.Env()
        let host = BaseRuntime(of: Shop.self, env: env, instrument: recording.instrument)
        let first = Task { try await host.input.request(.fetch) }
        try await env.gate.waitForArrivals()
        let second = Task { try await host.input.request(.fetch) }
        try await awaitEvent(recording) { $0.kind == .taskJoin }
        env.gate.open()
        #expect(try await withTimeout { try await first.value } == "shared")
        #expect(try await withTimeout { try await second.value } == "shared")
        try recording.trace().expectShape(
            [
                .spawn("fetch", policy: .shareable), .dispatch(.request, "fetch"), .enter, .transduce("fetch"), .join("fetch"),
                .effect(.task, task: "fetch"), .leave(.handedOff), .settle("fetch", outcome: .request, event: "loaded"),
                .dispatch(.taskRequest, "loaded"), .enter, .transduce("loaded"), .effect(.none), .leave(.settled),
                .resume(.response),
            ], in: .request("fetch", occurrence: 2))
        try recording.trace().checkInvariants()
    }

    @Test(arguments: 0..<10) func uniqueRequestCancelsPriorWork(_ iteration: Int) async throws {
        let recording = TraceRecording()
        let env = Shop.Env()
        let host = BaseRuntime(of: Shop.self, env: env, instrument: recording.instrument)
        let first = Task { try await host.input.request(.load) }
        try await env.gate.waitForArrivals()
        #expect(try await withTimeout { try await host.input.uniqueRequest(.load) } == "v2")
        await #expect(throws: CancellationError.self) { try await withTimeout { try await first.value } }
        env.gate.open()
        try await awaitEvent(recording) { $0.kind == .taskSettle && $0.codeName == "cancelled" }
        try recording.trace().expectShape(
            [
                .dispatch(.uniqueRequest, "load"), .enter, .cancel("load", reason: .uniqueRequest), .resume(.error),
                .transduce("load"), .spawn("load", policy: .unique), .effect(.task, task: "load"), .leave(.handedOff),
                .settle("load", outcome: .request), .enter, .leave(.settled), .resume(.response),
            ], exhaustive: false)
        try recording.trace().checkInvariants()
    }

    @Test(arguments: 0..<10) func cancelDuringAsyncAction(_ iteration: Int) async throws {
        let recording = TraceRecording()
        let env = Shop.Env()
        let host = BaseRuntime(of: Shop.self, env: env, instrument: recording.instrument)
        let send = Task { try await host.input.send(.hold) }
        try await env.gate.waitForArrivals()
        host.cancel()
        await #expect(throws: RuntimeError.cancelled) { try await withTimeout { try await send.value } }
        env.gate.open()
        try await awaitEvent(recording) { $0.kind == .cycleLeave }
        let trace = recording.trace()
        try trace.expectShape(
            [
                .start("Shop"), .dispatch(.send, "hold"), .enter, .transduce("hold"), .stop(.cancelled), .resume(.error),
                .effect(.asyncAction), .leave(.aborted),
            ])
        try trace.checkInvariants()
    }

    @Test func stressKeepsEveryInvariant() async throws {
        let recording = TraceRecording(capacity: 1 << 19)
        var hosts: [BaseRuntime<Stress>] = []
        for _ in 0..<4 { hosts.append(BaseRuntime(of: Stress.self, instrument: recording.instrument)) }
        let snapshot = hosts
        // A hang guard, not a time limit: alone this takes a fifth of a second, but its 16 tasks
        // take turns on the concurrency pool with the whole suite's, and plain `swift test` on
        // two cores ran it 102 s (and once past a guard of 120 s).
        try await withTimeout(300, "the stress") {
            await withTaskGroup(of: Void.self) { group in
                for (h, host) in snapshot.enumerated() {
                    for worker in 0..<4 {
                        group.addTask {
                            for i in 0..<250 {
                                let event = Stress.Event.allCases[(i * 7 + worker * 3 + h) % Stress.Event.allCases.count]
                                do {
                                    switch (i + worker) % 4 {
                                    case 0: try host.input.post(event)
                                    case 1: try await host.input.send(event)
                                    case 2: _ = try await host.input.request(event)
                                    default: _ = try await host.input.uniqueRequest(event)
                                    }
                                } catch {}
                                if h == 1 && worker == 0 && i == 150 { host.cancel() }
                            }
                        }
                    }
                }
            }
        }
        for host in hosts { host.cancel() }
        let trace = recording.trace()
        #expect(trace.counts.discarded == 0)
        #expect(trace.events.count > 10_000)
        let kinds = Set(trace.events.map(\.kind))
        #expect(kinds.isSuperset(of: [.taskCancel, .taskJoin, .dispatchRejected, .runtimeStop, .taskSpawn, .requestResume]))
        #expect(trace.events.contains { $0.kind == .runtimeStop && $0.codeName == "failed" })
        try trace.checkInvariants()
    }
}

/// Every effect kind and both policies; `.explode` fails the runtime.
nonisolated enum Stress: Transducer {
    struct State: Sendable { var n = 0 }
    enum Event: Sendable, CaseIterable { case tick, switchTask, shareTask, stop, action, asyncAction, chain, anon, explode }
    typealias Response = Int
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        state.n += 1
        switch event {
        case .tick: return .none
        case .switchTask:
            return .task(id: "switch") { _, _ -> TaskReturn in
                await Task.yield()
                return .response(.tick)
            }
        case .shareTask:
            return .task(id: "share", option: .shareable) { _, _ -> TaskReturn in
                await Task.yield()
                return .request(.tick)
            }
        case .stop: return .sequence([.cancel("switch"), .event(.tick), .none])
        case .action: return .action { _ in .tick }
        case .asyncAction:
            return .action(nonsendingOperation: { _ in
                await Task.yield()
                return .tick
            })
        case .chain: return .event(.tick)
        case .anon: return .task { _, _ in await Task.yield() }
        case .explode:
            return state.n > 600 ? .task { _, _ in throw Boom() } : .none
        }
    }
    static func response(state: State, event: Event) -> Int { state.n }
}

extension ShapeTests {
    /// A request whose cycle runs inline on its caller (the gate was idle) and is aborted by the
    /// runtime stopping mid-chain: the caller gets the error, and the trace says it was resumed
    /// with it (an inline caller has no waiter for the stop to fail, so its cycle must).
    @Test func anInlineCycleAbortedByAStopResumesItsCaller() async throws {
        let recording = TraceRecording()
        let stopper = StopOnTransduce(recording.instrument, label: "first")
        let host = BaseRuntime(of: Chain.self, instrument: stopper)
        stopper.stop.withLock { $0 = { host.cancel() } }
        await #expect(throws: RuntimeError.cancelled) { try await withTimeout { try await host.input.request(.first) } }
        let trace = recording.trace()
        try trace.expectShape(
            [
                .dispatch(.request, "first"), .enter, .transduce("first"), .stop(.cancelled), .effect(.event),
                .leave(.aborted), .resume(.error),
            ], exhaustive: false)
        try trace.checkInvariants()
    }
}

/// `first` chains `second`: a stop between them aborts the cycle.
nonisolated enum Chain: Transducer {
    struct State: Sendable {}
    enum Event: Sendable { case first, second }
    typealias Response = Int
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        event == .first ? .event(.second) : .none
    }
    static func response(state: State, event: Event) -> Int { 1 }
}

/// Forwards every event to `inner`; stops the runtime (through `stop`) when it records the
/// transduce of an event labelled `label`, before that event's effect runs.
final class StopOnTransduce: RuntimeInstrument {
    let inner: any RuntimeInstrument
    let label: String
    let stop = Mutex<(@Sendable () -> Void)?>(nil)
    init(_ inner: any RuntimeInstrument, label: String) {
        self.inner = inner
        self.label = label
    }
    var isRecording: Bool { inner.isRecording }
    func record(_ event: RuntimeEvent) {
        inner.record(event)
        if event.kind == .transduce, event.label.description == label { stop.withLock { $0 }?() }
    }
}
