import BenchWorkload
import Transduce
import TransduceTrace

/// The floor of `send`, in this program's own module as a caller's actor would be (in another
/// module its method would not be inlined, and the floor would be higher).
actor PlainActor {
    var count = 0
    func bump() { count += 1 }
}

/// Tight loops whose instruction counts callgrind.sh takes. The record is counted inside its own
/// function (`--toggle-collect`); every async operation is counted as the difference of two whole
/// runs of different lengths, so each is called directly in its loop: a wrapper function around
/// the measured call would add its own cost to both a send and its floor and flatter their ratio.
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

    /// The sends of ``sendLoop(_:attached:)`` with a ring recorder, each made under a set
    /// `TraceContext` (so each records one event more); the context is set once, around the loop.
    static func contextSendLoop(_ n: Int) async {
        let context = TraceContext(traceIDHigh: 1, traceIDLow: 2, spanID: 3)
        await TraceContext.withCurrent(context) { await sendLoop(n, attached: .ring) }
    }

    static func sendLoop(_ n: Int, attached: Attached = .none) async {
        let recorder: TraceRecorder? =
            switch attached {
            case .none: nil
            case .disabled: TraceRecorder(capacity: 1 << 12, lttng: false, ringEnabled: false)
            case .ring: TraceRecorder(capacity: 1 << 12, lttng: false)
            }
        let host = BaseRuntime(of: Bench.self, instrument: recorder)
        let input = host.input
        for _ in 0..<n { try? await input.send(.tick) }
        withExtendedLifetime(host) {}
    }

    static func requestLoop(_ n: Int) async {
        let host = BaseRuntime(of: Bench.self)
        let input = host.input
        for _ in 0..<n { _ = try? await input.request(.work) }
        withExtendedLifetime(host) {}
    }

    /// The floor of a request through a task: a bare `Task` that resumes a continuation.
    static func taskFloorLoop(_ n: Int) async {
        for _ in 0..<n {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Task { continuation.resume() }
            }
        }
    }

    /// The floor of a send: a call of an empty method on a plain actor.
    static func hopLoop(_ n: Int) async {
        let actor = PlainActor()
        for _ in 0..<n { await actor.bump() }
    }

    @MainActor
    static func observableLoop(_ n: Int) async {
        let host = EffectObservable(of: Bench.self)
        for _ in 0..<n { try? await host.send(.tick) }
    }
}
