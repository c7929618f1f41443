import Transduce
import TransduceTrace

/// Entry points for `Benchmarks/callgrind.sh`: tight loops whose instruction counts callgrind
/// collects (only inside the named functions, via --toggle-collect).
enum CallgrindTargets {
    @inline(never)
    static func recordLoop(_ n: Int) {
        let recorder = TraceRecorder(capacity: 1 << 12, lttng: false)
        let label: EventLabel = "tick"
        for i in 0..<n { callgrindRecordOne(recorder, UInt64(i), label) }
    }

    @inline(never)
    static func callgrindRecordOne(_ recorder: TraceRecorder, _ i: UInt64, _ label: EventLabel) {
        recorder.record(RuntimeEvent(time: MonotonicClock.now(), runtime: RuntimeID(rawValue: 1), detail: .transduce(cycle: i, step: 0, event: label)))
    }

    static func sendLoop(_ n: Int) async {
        await Task.detached {
            let host = BaseRuntime(of: Bench.self)
            for _ in 0..<n { await callgrindSendOne(host) }
        }.value
    }

    @inline(never)
    static func callgrindSendOne(_ host: BaseRuntime<Bench>) async {
        try? await host.input.send(.tick)
    }
}
