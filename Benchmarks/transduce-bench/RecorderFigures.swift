import CBenchFloor
import Dispatch
import Foundation
import Synchronization
import Transduce
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private let label: EventLabel = "tick"
private let runtimeID = RuntimeID(rawValue: 1)

/// `n` records of a transduce event on `recorder`, each reading the clock: the loop every
/// recorder figure times (LTTng's too).
@inline(never)
func recordLoop(_ recorder: TraceRecorder, _ n: Int, _ base: UInt64, runtime: RuntimeID = runtimeID) {
    for i in 0..<n {
        recorder.record(
            RuntimeEvent(
                time: MonotonicClock.now(), runtime: runtime,
                detail: .transduce(cycle: base &+ UInt64(i), step: 0, event: label)))
    }
}

/// The recorder's figures in thread CPU time: one record, two producers at once against one, a
/// resume with the slow-request trigger armed against without, the clock it reads, and the C
/// floors of the ring's slot protocol.
enum RecorderFigures {
    @MainActor static func collect(_ run: BenchRun, into table: FigureTable) {
        let reps = run.reps
        let recordN = 1_000_000 / run.scaleDown
        let recorder = TraceRecorder(capacity: 1 << 16, lttng: false)
        table.add(
            measure("record_ns", unit: "ns", repetitions: reps) {
                cpuNanosPerIteration(recordN) { recordLoop(recorder, recordN, 0) }
            })
        // Single and two producers alternate within each round, on one ring.
        var overlappedBatches = 0
        for f in interleavedSync(
            "record_2p_ns", "record_1p_ns", ratio: "record_2p_ratio", rounds: reps,
            {
                // A round in which the producers never overlapped measures nothing: run it again
                // (a few times at most; then the figure is NaN and its target unmet).
                for _ in 0..<5 {
                    let (nanos, overlapped) = twoProducerNanos(recorder, batches: max(100, recordN / 1_000), batch: 1_000)
                    overlappedBatches += overlapped
                    if overlapped > 0 { return nanos }
                }
                return .nan
            }, { cpuNanosPerIteration(recordN) { recordLoop(recorder, recordN, 0) } })
        { table.add(f) }
        print("  record_2p: \(overlappedBatches) batches of 1,000 records ran while the other producer ran")
        // The slow-request trigger's hot-path check: recording resumes (under the threshold) with
        // and without a trigger armed, alternating within each repetition so both see the same
        // machine.
        let plainResumes = TraceRecorder(capacity: 1 << 16, lttng: false)
        let armedResumes = TraceRecorder(
            capacity: 1 << 16, lttng: false, slowRequests: SlowRequestTrigger(threshold: 1_000_000_000, directory: "/tmp"))
        var triggerRatios: [Double] = []
        table.add(
            measure("resume_record_ns", unit: "ns", repetitions: reps) {
                let plain = cpuNanosPerIteration(recordN) { resumeLoop(plainResumes, recordN) }
                let armed = cpuNanosPerIteration(recordN) { resumeLoop(armedResumes, recordN) }
                triggerRatios.append(armed / plain)
                return armed
            })
        triggerRatios.sort()
        table.add(
            Figure(
                key: "slow_trigger_ratio", value: triggerRatios[triggerRatios.count / 2], min: triggerRatios.first!,
                max: triggerRatios.last!, unit: "×"), quietly: true)
        // The clock every record above read, against clock_gettime; and how far apart they were.
        var clockCosts: [(clock: Double, clockGettime: Double)] = []
        table.add(
            measure("clock_ns", unit: "ns", repetitions: reps) {
                clockCosts.append(ClockCheck.readCosts(recordN))
                return clockCosts.last!.clock
            })
        let gettimeCosts = clockCosts.map(\.clockGettime).sorted()
        table.add(
            Figure(
                key: "clock_gettime_ns", value: gettimeCosts[gettimeCosts.count / 2], min: gettimeCosts.first!,
                max: gettimeCosts.last!, unit: "ns"))
        let clockOffsets = ClockCheck.offsets(seconds: run.quick ? 1 : 5)
        table.add(
            Figure(
                key: "clock_offset_ns", value: clockOffsets.worst, min: clockOffsets.p99, max: clockOffsets.worst, unit: "ns",
                note: MonotonicClock.readsTimeStampCounter
                    ? "the worst of \(clockOffsets.checked) reads; 99th percentile \(Int(clockOffsets.p99)) ns"
                    : "clock_gettime: the counter is not used here"))
        bench_floor_init(1 << 16)
        table.add(
            measure("c_floor_ns", unit: "ns", repetitions: reps) {
                cpuNanosPerIteration(recordN) { bench_floor_loop(UInt64(recordN)) }
            })
        if let r = table.value("record_ns"), let f = table.value("c_floor_ns") {
            table.add(Figure(key: "record_vs_floor", value: r / f, min: 0, max: 0, unit: "×"), quietly: true)
        }
        // The floor of the ring's own slot protocol (a lane several threads may write: the
        // ticket's atomic increment and the slot's compare-and-swap) and of a lane only one thread
        // writes (no locked instruction), alternated round by round: what per-thread lanes would
        // save a record.
        for figure in interleavedSync(
            "c_single_floor_ns", "c_claimed_floor_ns", ratio: "single_vs_claimed_floor", rounds: reps,
            { cpuNanosPerIteration(recordN) { bench_floor_single_loop(UInt64(recordN)) } },
            { cpuNanosPerIteration(recordN) { bench_floor_claimed_loop(UInt64(recordN)) } })
        {
            table.add(figure)
        }
    }

    /// Records resumes (under the slow-request threshold) on `recorder`.
    static func resumeLoop(_ recorder: TraceRecorder, _ n: Int) {
        for i in 0..<n {
            recorder.record(
                RuntimeEvent(
                    time: MonotonicClock.now(), runtime: runtimeID,
                    detail: .requestResume(
                        dispatch: UInt64(i), outcome: .response, error: nil, byCycle: 1, byTask: 0, latencyNanos: 1_000)))
        }
    }

    /// Nanoseconds of thread CPU time per record while two producers (of two runtimes) really ran at
    /// once: each
    /// records in batches of `batch`, and a batch counts only when the other producer finished one
    /// of its own meanwhile (a producer descheduled for the whole batch would leave the other
    /// running alone, as a shared-ring benchmark's producers mostly did).
    static func twoProducerNanos(_ recorder: TraceRecorder, batches: Int, batch: Int) -> (nanos: Double, overlapped: Int) {
        /// Batches each producer has finished, and how many are ready to start.
        final class Progress: Sendable {
            let first = Atomic<Int>(0)
            let second = Atomic<Int>(0)
            let ready = Atomic<Int>(0)
            func of(_ p: Int) -> Int { p == 0 ? first.load(ordering: .acquiring) : second.load(ordering: .acquiring) }
            func finished(_ p: Int) {
                if p == 0 { first.wrappingAdd(1, ordering: .releasing) } else { second.wrappingAdd(1, ordering: .releasing) }
            }
        }
        let progress = Progress()
        let totals = Mutex<(nanos: UInt64, batches: Int)>((0, 0))
        @Sendable func threadCPU() -> UInt64 {
            var ts = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
            return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
        }
        DispatchQueue.concurrentPerform(iterations: 2) { p in
            progress.ready.wrappingAdd(1, ordering: .acquiringAndReleasing)
            while progress.ready.load(ordering: .acquiring) < 2 {}
            var nanos: UInt64 = 0
            var counted = 0
            for b in 0..<batches {
                let other = progress.of(1 - p)
                let start = threadCPU()
                // Two runtimes, as two runtimes of an app record at once (each its lane).
                recordLoop(recorder, batch, UInt64(p) << 40 | UInt64(b * batch), runtime: RuntimeID(rawValue: UInt64(p + 1)))
                let spent = threadCPU() - start
                progress.finished(p)
                if progress.of(1 - p) > other {
                    nanos += spent
                    counted += 1
                }
            }
            totals.withLock {
                $0.nanos += nanos
                $0.batches += counted
            }
        }
        let (nanos, counted) = totals.withLock { $0 }
        return (counted == 0 ? 0 : Double(nanos) / Double(counted * batch), counted)
    }
}
