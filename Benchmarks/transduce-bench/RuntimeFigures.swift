// The transducer (Bench) is BenchWorkload's, shared with transduce-callgrind.
import BenchWorkload
import Foundation
import Observation
import Transduce
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The floor of `send`, in this program's own module as a caller's actor would be (in another
/// module its method would not be inlined, and the floor would be higher).
actor PlainActor {
    var count = 0
    func bump() { count += 1 }
}

/// A plain `@MainActor @Observable` model: the floor of `EffectObservable.send`.
@MainActor @Observable final class PlainModel {
    var count = 0
    func tick() async { count += 1 }
}

/// The runtime's figures, each beside its floor in interleaved rounds: `send` against an actor
/// hop (alone and four at once), `request` through a task against a bare task, the observable
/// host's `send` against a plain model, and what a recorder adds to a send.
enum RuntimeFigures {
    static let none: (any RuntimeInstrument)? = NoOpInstrument()

    @MainActor static func collect(_ run: BenchRun, into table: FigureTable) async throws {
        let reps = run.reps
        let sendN = 20_000 / run.scaleDown
        for f in try await interleaved(
            "send_ns", "actor_hop_ns", ratio: "send_vs_actor", rounds: reps, { try await sendNanos(sendN, instrument: none) },
            { await actorHopNanos(sendN) })
        { table.add(f) }
        let concurrentN = 5_000 / run.scaleDown
        let sharedHost = BaseRuntime(of: Bench.self, instrument: none)
        let sharedActor = PlainActor()
        for f in try await interleaved(
            "send_4x_ns", "actor_4x_ns", ratio: "send_4x_vs_actor", rounds: reps,
            { try await concurrentNanos(4, concurrentN) { try await sharedHost.input.send(.tick) } },
            { try await concurrentNanos(4, concurrentN) { await sharedActor.bump() } })
        { table.add(f) }
        let requestN = 5_000 / run.scaleDown
        for f in try await interleaved(
            "request_task_ns", "task_floor_ns", ratio: "request_task_vs_floor", rounds: reps,
            { try await requestTaskNanos(requestN) }, { await taskFloorNanos(requestN) })
        { table.add(f) }
        let observableN = 20_000 / run.scaleDown
        for f in try await interleaved(
            "observable_send_ns", "model_method_ns", ratio: "observable_send_vs_model", rounds: reps,
            { try await observableSendNanos(observableN) }, { await plainModelNanos(observableN) })
        { table.add(f) }

        /// Throughput ratio (instrumented ÷ uninstrumented: plain time ÷ instrumented time), from
        /// interleaved rounds like the other ratios.
        func ratio(_ key: String, _ make: @escaping @Sendable () -> any RuntimeInstrument) async throws -> Figure {
            try await interleaved(
                key + "_plain", key + "_instrumented", ratio: key, rounds: reps, { try await sendNanos(sendN, instrument: none) },
                { try await sendNanos(sendN, instrument: make()) })[2]
        }
        table.add(try await ratio("disabled_ratio") { TraceRecorder(capacity: 1 << 12, lttng: false, ringEnabled: false) })
        table.add(try await ratio("ring_ratio") { TraceRecorder(capacity: 1 << 16, lttng: false) })

        // Traced ÷ untraced, so the interleaved ratio is the second over the first.
        // One recorder for every round: a new one's first lap of page faults would count as tracing.
        let tracing = TraceRecorder(capacity: 1 << 16, lttng: false)
        for f in try await interleaved(
            "traced_send_cpu_ns", "send_cpu_ns", ratio: "traced_send_ratio", rounds: reps,
            { try await sendCPUNanos(sendN, instrument: tracing) },
            { try await sendCPUNanos(sendN, instrument: none) })
        { table.add(f) }
    }

    /// Nanoseconds per `send` from a detached task (not the main actor), on a fresh host.
    static func sendNanos(_ n: Int, instrument: (any RuntimeInstrument)?) async throws -> Double {
        try await Task.detached {
            let host = BaseRuntime(of: Bench.self, instrument: instrument)
            let start = MonotonicClock.now()
            for _ in 0..<n { try await host.input.send(.tick) }
            return Double(MonotonicClock.now() - start) / Double(n)
        }.value
    }

    /// Nanoseconds per call of an empty method on a plain actor, from a detached task.
    static func actorHopNanos(_ n: Int) async -> Double {
        await Task.detached {
            let actor = PlainActor()
            let start = MonotonicClock.now()
            for _ in 0..<n { await actor.bump() }
            return Double(MonotonicClock.now() - start) / Double(n)
        }.value
    }

    /// Nanoseconds per operation with `senders` tasks each doing `n` of them at once (throughput).
    static func concurrentNanos(_ senders: Int, _ n: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws
        -> Double
    {
        let start = MonotonicClock.now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<senders { group.addTask { for _ in 0..<n { try await operation() } } }
            try await group.waitForAll()
        }
        return Double(MonotonicClock.now() - start) / Double(senders * n)
    }

    /// Nanoseconds per `request` whose cycle starts a task that responds.
    static func requestTaskNanos(_ n: Int) async throws -> Double {
        try await Task.detached {
            let host = BaseRuntime(of: Bench.self, instrument: none)
            let start = MonotonicClock.now()
            for _ in 0..<n { _ = try await host.input.request(.work) }
            return Double(MonotonicClock.now() - start) / Double(n)
        }.value
    }

    /// The floor of a request through a task: a bare `Task` whose body resumes a continuation the
    /// caller waits on (what any request through a task must at least do).
    static func taskFloorNanos(_ n: Int) async -> Double {
        await Task.detached {
            let start = MonotonicClock.now()
            for _ in 0..<n {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    Task { continuation.resume() }
                }
            }
            return Double(MonotonicClock.now() - start) / Double(n)
        }.value
    }

    /// Nanoseconds per `EffectObservable.send` on the main actor.
    @MainActor static func observableSendNanos(_ n: Int) async throws -> Double {
        let host = EffectObservable(of: Bench.self, instrument: none)
        let start = MonotonicClock.now()
        for _ in 0..<n { try await host.send(.tick) }
        return Double(MonotonicClock.now() - start) / Double(n)
    }

    /// Nanoseconds per awaited call of the plain model's mutating method on the main actor.
    @MainActor static func plainModelNanos(_ n: Int) async -> Double {
        let model = PlainModel()
        let start = MonotonicClock.now()
        for _ in 0..<n { await model.tick() }
        return Double(MonotonicClock.now() - start) / Double(n)
    }

    /// Process CPU nanoseconds per `send` (every thread's, so the hop's other side counts too):
    /// unlike wall time, what the machine's other programs take does not count.
    static func sendCPUNanos(_ n: Int, instrument: (any RuntimeInstrument)?) async throws -> Double {
        try await Task.detached {
            let host = BaseRuntime(of: Bench.self, instrument: instrument)
            func cpu() -> UInt64 {
                var ts = timespec()
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
                return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
            }
            let start = cpu()
            for _ in 0..<n { try await host.input.send(.tick) }
            return Double(cpu() - start) / Double(n)
        }.value
    }
}
