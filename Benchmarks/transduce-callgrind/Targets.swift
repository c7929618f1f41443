import BenchWorkload
import Transduce
import TransduceTrace

/// The floor of `send`, in this program's own module as a caller's actor would be (in another
/// module its method would not be inlined, and the floor would be higher).
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

    /// What a measured send has attached: nothing, a trace recorder whose ring buffer and LTTng
    /// are off, or one whose ring buffer records (LTTng off: the ring is the always-on part).
    enum Attached { case none, disabled, ring }

    static func sendLoop(_ n: Int, attached: Attached = .none) async {
        let recorder: TraceRecorder? =
            switch attached {
            case .none: nil
            case .disabled: TraceRecorder(capacity: 1 << 12, lttng: false, ringEnabled: false)
            case .ring: TraceRecorder(capacity: 1 << 12, lttng: false)
            }
        let host = BaseRuntime(of: Bench.self, instrument: recorder)
        for _ in 0..<n { await measuredSend(host) }
    }

    @inline(never)
    static func measuredSend(_ host: BaseRuntime<Bench>) async {
        try? await host.input.send(.tick)
    }

    static func requestLoop(_ n: Int) async {
        let host = BaseRuntime(of: Bench.self)
        for _ in 0..<n { await measuredRequest(host) }
    }

    @inline(never)
    static func measuredRequest(_ host: BaseRuntime<Bench>) async {
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
        let host = EffectObservable(of: Bench.self)
        for _ in 0..<n { await measuredObservableSend(host) }
    }

    @MainActor @inline(never)
    static func measuredObservableSend(_ host: EffectObservable<Bench>) async {
        try? await host.send(.tick)
    }
}
