import Transduce
import TransduceTrace

/// The smallest transducer: `tick` has effect `.none`; `work` a task whose result re-enters.
nonisolated enum Counter: Transducer {
    struct State: Sendable { var count = 0 }
    enum Event: Sendable { case tick, work }
    typealias Response = Int
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .tick:
            state.count += 1
            return .none
        case .work:
            return .task { _, _ -> TaskReturn in .response(.tick) }
        }
    }
    static func response(state: State, event: Event) -> Int { state.count }
    static func traceLabel(of event: Event) -> EventLabel {
        switch event {
        case .tick: "tick"
        case .work: "work"
        }
    }
}

/// The baseline of `send`: an actor with one counter, and a method that bumps it.
actor PlainActor {
    var count = 0
    func bump() { count += 1 }
}

/// Tight loops whose instruction counts callgrind collects, only inside the per-operation
/// functions (`--toggle-collect`), so set-up and start-up are left out.
enum CallgrindTargets {
    @inline(never)
    static func recordLoop(_ n: Int) {
        let recorder = TraceRecorder(capacity: 1 << 12, lttng: false)
        let label: EventLabel = "tick"
        for i in 0..<n { measuredRecord(recorder, UInt64(i), label) }
    }

    @inline(never)
    static func measuredRecord(_ recorder: TraceRecorder, _ i: UInt64, _ label: EventLabel) {
        recorder.record(
            RuntimeEvent(
                time: MonotonicClock.now(), runtime: RuntimeID(rawValue: 1), detail: .transduce(cycle: i, step: 0, event: label)))
    }

    /// `disabled`: with a trace recorder attached whose ring buffer and LTTng are off.
    static func sendLoop(_ n: Int, disabled: Bool = false) async {
        let recorder = disabled ? TraceRecorder(capacity: 1 << 12, lttng: false, ringEnabled: false) : nil
        let host = BaseRuntime(of: Counter.self, instrument: recorder)
        for _ in 0..<n { await measuredSend(host) }
    }

    @inline(never)
    static func measuredSend(_ host: BaseRuntime<Counter>) async {
        try? await host.input.send(.tick)
    }

    static func requestLoop(_ n: Int) async {
        let host = BaseRuntime(of: Counter.self)
        for _ in 0..<n { await measuredRequest(host) }
    }

    @inline(never)
    static func measuredRequest(_ host: BaseRuntime<Counter>) async {
        _ = try? await host.input.request(.work)
    }

    /// The floor of a request through a task: a bare `Task` that resumes a continuation.
    static func taskFloorLoop(_ n: Int) async {
        for _ in 0..<n { await measuredTaskFloor() }
    }

    @inline(never)
    static func measuredTaskFloor() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Task { continuation.resume() }
        }
    }

    static func hopLoop(_ n: Int) async {
        let actor = PlainActor()
        for _ in 0..<n { await measuredHop(actor) }
    }

    @inline(never)
    static func measuredHop(_ actor: PlainActor) async {
        await actor.bump()
    }

    @MainActor
    static func observableLoop(_ n: Int) async {
        let host = EffectObservable(of: Counter.self)
        for _ in 0..<n { await measuredObservableSend(host) }
    }

    @MainActor @inline(never)
    static func measuredObservableSend(_ host: EffectObservable<Counter>) async {
        try? await host.send(.tick)
    }
}
