import BenchWorkload
// transduce-bench: the runtime and the toolkit against their floors, measured side by side in
// one run (see Benchmarks/README.md). `swift run -c release transduce-bench [--json FILE] [--quick]`
import CBenchFloor
import CLTTng
import Dispatch
import Foundation
import Observation
import Synchronization
import TraceGenerator
import TraceTooling
import Transduce
import TransduceTrace

// The transducer (Bench) is BenchWorkload's, shared with transduce-callgrind.

/// The floor of `send`, in this program's own module as a caller's actor would be (in another
/// module its method would not be inlined, and the floor would be higher).
actor PlainActor {
    var count = 0
    func bump() { count += 1 }
}

// MARK: - Options

var jsonPath: String?
var quick = false
var childView: String?
/// The output of Benchmarks/callgrind.sh, whose instruction counts join the figures.
var callgrindPath: String?
/// Only the `view_*` scale figures (generated traces; minutes at full size).
var viewsOnly = false
/// The scale figures' sizes: 1M and 10M events (50k and 500k with --quick), 100M too with
/// --scale-100m (a 100M-event trace takes ~10 GB of disk and an hour of every view).
var scale100M = false
bench_line_buffered_stdout()

var args = Array(CommandLine.arguments.dropFirst())
while let a = args.first {
    args.removeFirst()
    switch a {
    case "--json": jsonPath = args.isEmpty ? nil : args.removeFirst()
    case "--quick": quick = true
    case "--callgrind": callgrindPath = args.isEmpty ? nil : args.removeFirst()
    case "--view-child": childView = args.isEmpty ? nil : args.removeFirst()
    case "--dump-child":
        guard args.count == 2, let events = Int(args[0]), events > 0 else {
            FileHandle.standardError.write(Data("usage: transduce-bench --dump-child EVENTS FILE\n".utf8))
            exit(64)
        }
        try DumpChild.run(events: events, file: args[1])
    case "--clock-check":
        // The runtime's clock against clock_gettime over a long run: --clock-check SECONDS
        guard let seconds = args.first.flatMap(Double.init), seconds > 0 else {
            FileHandle.standardError.write(Data("usage: transduce-bench --clock-check SECONDS\n".utf8))
            exit(64)
        }
        ClockCheck.runAndExit(seconds: seconds)
    case "--views-only": viewsOnly = true
    case "--scale-100m": scale100M = true
    case "--generate-trace":
        // A realistic trace of about EVENTS events (TraceGenerator): --generate-trace FILE EVENTS
        guard args.count == 2, let events = Int(args[1]), events > 0 else {
            FileHandle.standardError.write(Data("usage: transduce-bench --generate-trace FILE EVENTS\n".utf8))
            exit(64)
        }
        try await TraceGenerator.writeAndExit(events: events, to: args[0])
    case "--make-trace":
        // Writes the synthetic trace of the view_1m figures: --make-trace FILE [EVENTS]
        let path = args.isEmpty ? "synthetic.tdtrace" : args.removeFirst()
        try writeSyntheticTrace(Int(args.first ?? "") ?? 1_000_000, to: path)
        exit(0)
    default:
        let usage =
            "usage: transduce-bench [--json FILE] [--quick] [--callgrind CALLGRIND_OUTPUT] [--views-only] [--scale-100m] [--clock-check SECONDS]\n"
        FileHandle.standardError.write(Data(usage.utf8))
        exit(64)
    }
}

// The child process of `view_1m_*`: the same reading and report as `trace-view contention`.
if let path = childView {
    let reader = try TraceFileReader(path: path)
    var report = ContentionReport()
    while let e = reader.next() { report.consume(e) }
    _ = report.render()
    // Peak resident memory of this process image (VmHWM is per address space, so unlike
    // wait4's ru_maxrss it does not include the parent's peak that exec carries over).
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let hwm = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst().first ?? "0"
    print(hwm)
    exit(reader.notes.isEmpty ? 0 : 65)
}

let scaleDown = quick ? 20 : 1
let reps = quick ? 3 : 9
var figures: [Figure] = []
@MainActor func add(_ f: Figure) {
    figures.append(f)
    print("  \(f.key): \(fmt(f.value, 2)) \(f.unit) \(f.spread)")
}
print("transduce-bench (\(quick ? "quick" : "full") run, \(ProcessInfo.processInfo.activeProcessorCount) cores)")

// MARK: - Views at scale

let scaleSizes: [(name: String, events: Int)] =
    quick
    ? [("50k", 50_000), ("500k", 500_000)]
    : [("1m", 1_000_000), ("10m", 10_000_000)] + (scale100M ? [("100m", 100_000_000)] : [])
let traceViewPath =
    URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    .appendingPathComponent("trace-view").path
let scale = try await ViewScale.figures(traceView: traceViewPath, sizes: scaleSizes, repetitions: quick ? 1 : 3)
if viewsOnly { try ViewScale.writeAndExit(scale, json: jsonPath) }

// MARK: - Runtime

/// Nanoseconds per `send` from a detached task (not the main actor), on a fresh host.
func sendNanos(_ n: Int, instrument: (any RuntimeInstrument)?) async throws -> Double {
    try await Task.detached {
        let host = BaseRuntime(of: Bench.self, instrument: instrument)
        let start = MonotonicClock.now()
        for _ in 0..<n { try await host.input.send(.tick) }
        return Double(MonotonicClock.now() - start) / Double(n)
    }.value
}

/// Nanoseconds per call of an empty method on a plain actor, from a detached task.
func actorHopNanos(_ n: Int) async -> Double {
    await Task.detached {
        let actor = PlainActor()
        let start = MonotonicClock.now()
        for _ in 0..<n { await actor.bump() }
        return Double(MonotonicClock.now() - start) / Double(n)
    }.value
}

/// Nanoseconds per operation with `senders` tasks each doing `n` of them at once (throughput).
func concurrentNanos(_ senders: Int, _ n: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws -> Double {
    let start = MonotonicClock.now()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<senders { group.addTask { for _ in 0..<n { try await operation() } } }
        try await group.waitForAll()
    }
    return Double(MonotonicClock.now() - start) / Double(senders * n)
}

/// Nanoseconds per `request` whose cycle starts a task that responds.
func requestTaskNanos(_ n: Int) async throws -> Double {
    try await Task.detached {
        let host = BaseRuntime(of: Bench.self, instrument: none)
        let start = MonotonicClock.now()
        for _ in 0..<n { _ = try await host.input.request(.work) }
        return Double(MonotonicClock.now() - start) / Double(n)
    }.value
}

/// The floor of a request through a task: a bare `Task` whose body resumes a continuation the
/// caller waits on (what any request through a task must at least do).
func taskFloorNanos(_ n: Int) async -> Double {
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

/// A plain `@MainActor @Observable` model: the floor of `EffectObservable.send`.
@MainActor @Observable final class PlainModel {
    var count = 0
    func tick() async { count += 1 }
}

/// Nanoseconds per `EffectObservable.send` on the main actor.
@MainActor func observableSendNanos(_ n: Int) async throws -> Double {
    let host = EffectObservable(of: Bench.self, instrument: none)
    let start = MonotonicClock.now()
    for _ in 0..<n { try await host.send(.tick) }
    return Double(MonotonicClock.now() - start) / Double(n)
}

/// Nanoseconds per awaited call of the plain model's mutating method on the main actor.
@MainActor func plainModelNanos(_ n: Int) async -> Double {
    let model = PlainModel()
    let start = MonotonicClock.now()
    for _ in 0..<n { await model.tick() }
    return Double(MonotonicClock.now() - start) / Double(n)
}

/// Interleaved rounds: each round measures `a` then `b` back to back, so both sides of a ratio
/// see the same machine; the figures are the medians of the per-round values and ratios.
func interleaved(
    _ keyA: String, _ keyB: String, ratio ratioKey: String, warmup: Int = 2, rounds: Int,
    _ a: () async throws -> Double, _ b: () async throws -> Double
) async rethrows -> [Figure] {
    for _ in 0..<warmup {
        _ = try await a()
        _ = try await b()
    }
    var samplesA: [Double] = []
    var samplesB: [Double] = []
    var ratios: [Double] = []
    for _ in 0..<rounds {
        let x = try await a()
        let y = try await b()
        samplesA.append(x)
        samplesB.append(y)
        ratios.append(x / y)
    }
    func figure(_ key: String, _ samples: [Double], _ unit: String) -> Figure {
        let sorted = samples.sorted()
        return Figure(key: key, value: sorted[sorted.count / 2], min: sorted.first!, max: sorted.last!, unit: unit)
    }
    return [figure(keyA, samplesA, "ns"), figure(keyB, samplesB, "ns"), figure(ratioKey, ratios, "×")]
}

/// ``interleaved`` for synchronous measurements.
func interleavedSync(
    _ keyA: String, _ keyB: String, ratio ratioKey: String, warmup: Int = 2, rounds: Int, _ a: () -> Double,
    _ b: () -> Double
) -> [Figure] {
    var samples: [(Double, Double)] = []
    for round in 0..<(warmup + rounds) {
        let x = a()
        let y = b()
        if round >= warmup { samples.append((x, y)) }
    }
    func figure(_ key: String, _ values: [Double], _ unit: String) -> Figure {
        let sorted = values.sorted()
        return Figure(key: key, value: sorted[sorted.count / 2], min: sorted.first!, max: sorted.last!, unit: unit)
    }
    return [
        figure(keyA, samples.map(\.0), "ns"), figure(keyB, samples.map(\.1), "ns"),
        figure(ratioKey, samples.map { $0.0 / $0.1 }, "×"),
    ]
}

let sendN = 20_000 / scaleDown
let none: (any RuntimeInstrument)? = NoOpInstrument()
for f in try await interleaved(
    "send_ns", "actor_hop_ns", ratio: "send_vs_actor", rounds: reps, { try await sendNanos(sendN, instrument: none) },
    { await actorHopNanos(sendN) })
{ add(f) }
let concurrentN = 5_000 / scaleDown
let sharedHost = BaseRuntime(of: Bench.self, instrument: none)
let sharedActor = PlainActor()
for f in try await interleaved(
    "send_4x_ns", "actor_4x_ns", ratio: "send_4x_vs_actor", rounds: reps,
    { try await concurrentNanos(4, concurrentN) { try await sharedHost.input.send(.tick) } },
    { try await concurrentNanos(4, concurrentN) { await sharedActor.bump() } })
{ add(f) }
let requestN = 5_000 / scaleDown
for f in try await interleaved(
    "request_task_ns", "task_floor_ns", ratio: "request_task_vs_floor", rounds: reps, { try await requestTaskNanos(requestN) },
    { await taskFloorNanos(requestN) })
{ add(f) }
let observableN = 20_000 / scaleDown
for f in try await interleaved(
    "observable_send_ns", "model_method_ns", ratio: "observable_send_vs_model", rounds: reps,
    { try await observableSendNanos(observableN) }, { await plainModelNanos(observableN) })
{ add(f) }

/// Throughput ratio (instrumented ÷ uninstrumented: plain time ÷ instrumented time), from
/// interleaved rounds like the other ratios.
func ratio(_ key: String, _ make: @escaping @Sendable () -> any RuntimeInstrument) async throws -> Figure {
    try await interleaved(
        key + "_plain", key + "_instrumented", ratio: key, rounds: reps, { try await sendNanos(sendN, instrument: none) },
        { try await sendNanos(sendN, instrument: make()) })[2]
}
add(try await ratio("disabled_ratio") { TraceRecorder(capacity: 1 << 12, lttng: false, ringEnabled: false) })
add(try await ratio("ring_ratio") { TraceRecorder(capacity: 1 << 16, lttng: false) })

/// Process CPU nanoseconds per `send` (every thread's, so the hop's other side counts too):
/// unlike wall time, what the machine's other programs take does not count.
func sendCPUNanos(_ n: Int, instrument: (any RuntimeInstrument)?) async throws -> Double {
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
// Traced ÷ untraced, so the interleaved ratio is the second over the first.
// One recorder for every round: a new one's first lap of page faults would count as tracing.
let tracing = TraceRecorder(capacity: 1 << 16, lttng: false)
for f in try await interleaved(
    "traced_send_cpu_ns", "send_cpu_ns", ratio: "traced_send_ratio", rounds: reps,
    { try await sendCPUNanos(sendN, instrument: tracing) },
    { try await sendCPUNanos(sendN, instrument: none) })
{ add(f) }

// MARK: - Recorder

let recordN = 1_000_000 / scaleDown
let label: EventLabel = "tick"
let runtimeID = RuntimeID(rawValue: 1)
@inline(never)
func recordLoop(_ recorder: TraceRecorder, _ n: Int, _ base: UInt64, runtime: RuntimeID = runtimeID) {
    for i in 0..<n {
        recorder.record(
            RuntimeEvent(
                time: MonotonicClock.now(), runtime: runtime,
                detail: .transduce(cycle: base &+ UInt64(i), step: 0, event: label)))
    }
}
let recorder = TraceRecorder(capacity: 1 << 16, lttng: false)
add(measure("record_ns", unit: "ns", repetitions: reps) { cpuNanosPerIteration(recordN) { recordLoop(recorder, recordN, 0) } })
/// Nanoseconds of thread CPU time per record while two producers (of two runtimes) really ran at
/// once: each
/// records in batches of `batch`, and a batch counts only when the other producer finished one
/// of its own meanwhile (a producer descheduled for the whole batch would leave the other
/// running alone, as a shared-ring benchmark's producers mostly did).
func twoProducerNanos(_ recorder: TraceRecorder, batches: Int, batch: Int) -> (nanos: Double, overlapped: Int) {
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
// Single and two producers alternate within each round, on one ring.
var overlappedBatches = 0
for f in interleavedSync(
    "record_2p_ns", "record_1p_ns", ratio: "record_2p_ratio", rounds: reps,
    {
        // A round in which the producers never overlapped measures nothing: run it again (a few
        // times at most; then the figure is NaN and its target unmet).
        for _ in 0..<5 {
            let (nanos, overlapped) = twoProducerNanos(recorder, batches: max(100, recordN / 1_000), batch: 1_000)
            overlappedBatches += overlapped
            if overlapped > 0 { return nanos }
        }
        return .nan
    }, { cpuNanosPerIteration(recordN) { recordLoop(recorder, recordN, 0) } })
{ add(f) }
print("  record_2p: \(overlappedBatches) batches of 1,000 records ran while the other producer ran")
// The slow-request trigger's hot-path check: recording resumes (under the threshold) with and
// without a trigger armed, alternating within each repetition so both see the same machine.
func resumeLoop(_ recorder: TraceRecorder, _ n: Int) {
    for i in 0..<n {
        recorder.record(
            RuntimeEvent(
                time: MonotonicClock.now(), runtime: runtimeID,
                detail: .requestResume(
                    dispatch: UInt64(i), outcome: .response, error: nil, byCycle: 1, byTask: 0, latencyNanos: 1_000)))
    }
}
let plainResumes = TraceRecorder(capacity: 1 << 16, lttng: false)
let armedResumes = TraceRecorder(
    capacity: 1 << 16, lttng: false, slowRequests: SlowRequestTrigger(threshold: 1_000_000_000, directory: "/tmp"))
let triggerRatios = Mutex<[Double]>([])
add(
    measure("resume_record_ns", unit: "ns", repetitions: reps) {
        let plain = cpuNanosPerIteration(recordN) { resumeLoop(plainResumes, recordN) }
        let armed = cpuNanosPerIteration(recordN) { resumeLoop(armedResumes, recordN) }
        triggerRatios.withLock { $0.append(armed / plain) }
        return armed
    })
// The clock every record above read, against clock_gettime; and how far apart they were.
var clockCosts: [(clock: Double, clockGettime: Double)] = []
add(
    measure("clock_ns", unit: "ns", repetitions: reps) {
        clockCosts.append(ClockCheck.readCosts(recordN))
        return clockCosts.last!.clock
    })
let gettimeCosts = clockCosts.map(\.clockGettime).sorted()
add(
    Figure(
        key: "clock_gettime_ns", value: gettimeCosts[gettimeCosts.count / 2], min: gettimeCosts.first!,
        max: gettimeCosts.last!, unit: "ns"))
let clockOffsets = ClockCheck.offsets(seconds: quick ? 1 : 5)
add(
    Figure(
        key: "clock_offset_ns", value: clockOffsets.worst, min: clockOffsets.p99, max: clockOffsets.worst, unit: "ns",
        note: MonotonicClock.readsTimeStampCounter
            ? "the worst of \(clockOffsets.checked) reads; 99th percentile \(Int(clockOffsets.p99)) ns"
            : "clock_gettime: the counter is not used here"))
bench_floor_init(1 << 16)
add(
    measure("c_floor_ns", unit: "ns", repetitions: reps) {
        cpuNanosPerIteration(recordN) { bench_floor_loop(UInt64(recordN)) }
    })
// The floor of the ring's own slot protocol (a lane several threads may write: the ticket's
// atomic increment and the slot's compare-and-swap) and of a lane only one thread writes (no
// locked instruction), alternated round by round: what per-thread lanes would save a record.
for figure in await interleaved(
    "c_single_floor_ns", "c_claimed_floor_ns", ratio: "single_vs_claimed_floor", rounds: reps,
    { cpuNanosPerIteration(recordN) { bench_floor_single_loop(UInt64(recordN)) } },
    { cpuNanosPerIteration(recordN) { bench_floor_claimed_loop(UInt64(recordN)) } })
{
    add(figure)
}

// LTTng: one enabled tracepoint through the wrapper, with a session recording.
@MainActor func lttngNanos() throws -> Double? {
    guard LTTngProvider.isLoaded, LTTngSession.toolsMissing == nil else { return nil }
    let dir = NSTemporaryDirectory() + "transduce-bench-\(getpid())"
    let session: LTTngSession
    do {
        // As `trace-view record` makes its sessions: every event, with the thread and process.
        session = try LTTngSession(
            name: "transduce-bench-\(getpid())", output: dir, events: ["transduce:*"], contexts: ["vtid", "vpid"])
    } catch {
        print("  lttng: \(error)")
        return nil
    }
    defer {
        session.destroy()
        try? FileManager.default.removeItem(atPath: dir)
    }
    try session.start()
    // Registration of the enablement reaches this process asynchronously: wait for it.
    let deadline = MonotonicClock.now() + 5_000_000_000
    while clttng_any_enabled() == 0 && MonotonicClock.now() < deadline { usleep(1_000) }
    guard clttng_any_enabled() != 0 else { return nil }
    // The same events through the same entry, alternating within each round: a recorder that
    // feeds LTTng only, and one that feeds its ring only (each thread CPU time).
    let n = 200_000 / scaleDown
    let lttngOnly = TraceRecorder(capacity: 1 << 12, lttng: true, ringEnabled: false)
    let ringOnly = TraceRecorder(capacity: 1 << 16, lttng: false)
    for f in interleavedSync(
        "lttng_ns", "ring_record_ns", ratio: "lttng_vs_record", rounds: reps,
        { cpuNanosPerIteration(n) { recordLoop(lttngOnly, n, 0) } }, { cpuNanosPerIteration(n) { recordLoop(ringOnly, n, 0) } })
    {
        add(f)
    }
    try session.stop()
    return value("lttng_ns")
}
var lttngNote = ""
if try lttngNanos() == nil {
    lttngNote =
        "LTTng unavailable: "
        + {
            switch LTTngProvider.status {
            case .loaded: return "no session could be created (is lttng-tools installed and lttng-sessiond startable?)"
            case .disabled(let r), .unavailable(let r): return r
            }
        }()
    print("  lttng_ns: \(lttngNote)")
}

// MARK: - Viewer and dumps

/// A synthetic trace of `n` events: cycles of dispatch, enter, transduce, effect, leave, resume.
func writeSyntheticTrace(_ n: Int, to path: String) throws {
    var events: [TraceEvent] = []
    events.reserveCapacity(n)
    var t: UInt64 = 1_000_000_000
    var start = TraceEvent(kind: .runtimeStart, time: t, thread: 1, runtime: 1)
    start.label = "Bench"
    start.label2 = "BaseRuntime"
    start.count = 1024
    events.append(start)
    var id: UInt64 = 0
    let labels = ["tick", "load", "refresh", "ping", "sync"]
    while events.count < n {
        id += 1
        let label = labels[Int(id % 5)]
        var d = TraceEvent(kind: .dispatch, time: t, thread: 2, runtime: 1)
        d.dispatch = id
        d.code = 2
        d.label = label
        d.count = UInt32(id % 7)
        var enter = TraceEvent(kind: .cycleEnter, time: t + 900, thread: 3, runtime: 1)
        enter.cycle = id
        enter.dispatch = id
        enter.nanos = 900 + (id % 97) * 40
        var tr = TraceEvent(kind: .transduce, time: t + 1_000, thread: 3, runtime: 1)
        tr.cycle = id
        tr.label = label
        var eff = TraceEvent(kind: .effect, time: t + 1_200, thread: 3, runtime: 1)
        eff.cycle = id
        eff.code = id % 11 == 0 ? 3 : 0
        eff.nanos = id % 11 == 0 ? 50_000 : 100
        var leave = TraceEvent(kind: .cycleLeave, time: t + 1_400, thread: 3, runtime: 1)
        leave.cycle = id
        leave.step = 1
        leave.nanos = 400 + (id % 13) * 100
        var resume = TraceEvent(kind: .requestResume, time: t + 1_500, thread: 3, runtime: 1)
        resume.dispatch = id
        resume.cycle = id
        resume.nanos = 1_500
        events += [d, enter, tr, eff, leave, resume]
        t += 2_000
    }
    try TraceFileWriter.write(Trace(events: Array(events.prefix(n))), to: path)
}

let viewN = 1_000_000 / scaleDown
let viewFile = NSTemporaryDirectory() + "transduce-bench-\(getpid()).tdtrace"
try writeSyntheticTrace(viewN, to: viewFile)
defer { try? FileManager.default.removeItem(atPath: viewFile) }
let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
let traceView = exe.deletingLastPathComponent().appendingPathComponent("trace-view").path
let viewer: (String, [String]) =
    FileManager.default.isExecutableFile(atPath: traceView)
    ? (traceView, ["contention", viewFile]) : (exe.path, ["--view-child", viewFile])
/// Runs a command, returning its wall time in seconds and its standard output.
func spawn(_ argv0: String, _ arguments: [String]) throws -> (Double, String) {
    let start = MonotonicClock.now()
    let result = try Subprocess.run(argv0, arguments, output: .capture, timeout: 600)
    guard result.status == 0 else { throw Subprocess.Failure("\(argv0) exited with status \(result.status): \(result.output)") }
    return (Double(MonotonicClock.now() - start) / 1e9, result.output)
}
add(
    try measure("view_1m_s", unit: "s", warmup: 1, repetitions: quick ? 2 : 5) {
        try spawn(viewer.0, viewer.1).0 * Double(scaleDown)
    })
var rssSamples: [Double] = []
for _ in 0..<(quick ? 2 : 5) {
    let (_, out) = try spawn(exe.path, ["--view-child", viewFile])
    rssSamples.append((Double(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) / 1024)
}
rssSamples.sort()
figures.append(
    Figure(
        key: "view_1m_rss_mb", value: rssSamples[rssSamples.count / 2], min: rssSamples.first!, max: rssSamples.last!, unit: "MB",
        note: quick ? "quick run: \(viewN) events" : ""))
print(
    "  view_1m_rss_mb: \(fmt(figures.last!.value, 1)) MB (time: \(viewer.0 == traceView ? "trace-view contention" : "in-process reader"); memory: the same reader and report in a child)"
)

// The live viewer's memory over a long session (LTTng, a relay daemon and TracedExample needed;
// `swift build -c release --product TracedExample` beside trace-view).
let liveEvents = quick ? 20_000 : 1_000_000
let live: (megabytes: Double, received: Int)?
do {
    live = try liveMemory(
        events: liveEvents, traceView: traceView,
        example: exe.deletingLastPathComponent().appendingPathComponent("TracedExample").path)
} catch {
    // A machine whose LTTng cannot run a live session: said, and the rest of the run stands.
    print("  live_1m_rss_mb: failed: \(error)")
    live = nil
}
if let live {
    figures.append(
        Figure(
            key: "live_1m_rss_mb", value: live.megabytes, min: live.megabytes, max: live.megabytes, unit: "MB",
            note: "\(live.received) events received live" + (quick ? " (quick run)" : "")))
    print("  live_1m_rss_mb: \(fmt(live.megabytes, 1)) MB (trace-view live and its reader, \(live.received) events)")
} else {
    print("  live_1m_rss_mb: not measured (needs release trace-view and TracedExample, lttng-tools with lttng-relayd)")
}

// `trace-view record` of a burst of 1,000,064 events (TracedExample --repeat 7813; 12,800 with
// --quick), three times in a row with its default channel: the most events LTTng discarded in
// any of them (record exits 79 and says how many when it discarded any).
func recordLosses(runs: Int, repeats: Int) throws -> Double? {
    let example = exe.deletingLastPathComponent().appendingPathComponent("TracedExample").path
    guard FileManager.default.isExecutableFile(atPath: traceView), FileManager.default.isExecutableFile(atPath: example),
        LTTngSession.toolsMissing == nil
    else { return nil }
    var worst: UInt64 = 0
    for run in 0..<runs {
        let dir = NSTemporaryDirectory() + "transduce-bench-record-\(getpid())-\(run)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try Subprocess.run(
            traceView, ["record", "--output", dir, "--", example, "--repeat", String(repeats), dir + ".tdtrace"],
            output: .capture, timeout: 600)
        try? FileManager.default.removeItem(atPath: dir + ".tdtrace")
        if run == 0 && result.status == 0 { ctfRatios = ctfVersusBabeltrace(dir) }
        switch result.status {
        case 0: continue
        case ExitStatusCode.eventsLost:
            let said = result.output.range(of: "LTTng discarded ").map { result.output[$0.upperBound...] }
            worst = max(worst, UInt64(said?.prefix { $0.isNumber } ?? "") ?? .max)
        default: throw Subprocess.Failure("trace-view record exited with \(result.status): \(result.output.suffix(400))")
        }
    }
    return Double(worst)
}
enum ExitStatusCode { static let eventsLost: Int32 = 79 }
/// `ctf_vs_babeltrace`: `trace-view summary` of an LTTng trace ÷ `babeltrace2 -o dummy` of it,
/// CPU (each with its children), alternated three times; empty without babeltrace2.
nonisolated(unsafe) var ctfRatios: [Double] = []
func ctfVersusBabeltrace(_ dir: String) -> [Double] {
    guard let babeltrace = Subprocess.which("babeltrace2") else { return [] }
    var ratios: [Double] = []
    for _ in 0..<3 {
        guard case .measured(let ours, _) = ViewScale.run(traceView, ["summary", dir]),
            case .measured(let theirs, _) = ViewScale.run(babeltrace, [dir, "-o", "dummy"]), theirs > 0
        else { return ratios }
        ratios.append(ours / theirs)
    }
    return ratios.sorted()
}
do {
    if let worst = try recordLosses(runs: 3, repeats: quick ? 100 : 7_813) {
        add(Figure(key: "record_lossless_discarded", value: worst, min: worst, max: worst, unit: "events"))
    } else {
        print("  record_lossless_discarded: not measured (needs release trace-view and TracedExample, and lttng-tools)")
    }
} catch {
    print("  record_lossless_discarded: failed: \(error)")
}
if !ctfRatios.isEmpty {
    add(
        Figure(
            key: "ctf_vs_babeltrace", value: ctfRatios[ctfRatios.count / 2], min: ctfRatios.first!, max: ctfRatios.last!,
            unit: "×", note: "trace-view summary ÷ babeltrace2 -o dummy, CPU"))
}

// A full ring of 64 Mi events (7 GB of slots, a 5.4 GB file; 1 Mi with --quick), dumped in a
// child of its own so that its peak is the dump's alone.
var dumpSamples: [(mbps: Double, vsWrite: Double, extraMB: Double)] = []
for _ in 0..<(quick ? 1 : 3) {
    let file = NSTemporaryDirectory() + "transduce-bench-dump-\(getpid()).tdtrace"
    let (_, line) = try spawn(exe.path, ["--dump-child", String(quick ? 1 << 20 : 1 << 26), file])
    var fields: [String: Double] = [:]
    for pair in line.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
        let parts = pair.split(separator: "=")
        if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
    }
    guard let bytes = fields["bytes"], let dump = fields["dump_s"], let write = fields["write_s"],
        let before = fields["rss_before_kb"], let after = fields["hwm_after_kb"]
    else { throw Subprocess.Failure("the dump child said: \(line)") }
    dumpSamples.append((bytes / 1e6 / dump, write / dump, max(0, after - before) / 1024))
}
@MainActor func dumpFigure(
    _ key: String, _ unit: String, _ value: ((mbps: Double, vsWrite: Double, extraMB: Double)) -> Double
) -> Figure {
    let values = dumpSamples.map(value).sorted()
    return Figure(key: key, value: values[values.count / 2], min: values.first!, max: values.last!, unit: unit)
}
add(dumpFigure("dump_mb_s", "MB/s") { $0.mbps })
add(dumpFigure("dump_vs_write", "×") { $0.vsWrite })
add(dumpFigure("dump_extra_mb", "MB") { $0.extraMB })

// MARK: - Table

@MainActor func value(_ key: String) -> Double? { figures.first { $0.key == key }?.value }
var derived: [Figure] = []
if let r = value("record_ns"), let f = value("c_floor_ns") {
    derived.append(Figure(key: "record_vs_floor", value: r / f, min: 0, max: 0, unit: "×"))
}
do {
    let ratios = triggerRatios.withLock { $0 }.sorted()
    if !ratios.isEmpty {
        derived.append(
            Figure(
                key: "slow_trigger_ratio", value: ratios[ratios.count / 2], min: ratios.first!, max: ratios.last!, unit: "×"))
    }
}
figures += derived
figures += scale.figures

// Instruction counts from Benchmarks/callgrind.sh's output ("key: value …" lines).
if let callgrindPath {
    let text = try String(contentsOfFile: callgrindPath, encoding: .utf8)
    let pair = try NSRegularExpression(pattern: "(?<![a-z_])([a-z_]+): ([0-9.]+)")
    var counted: [String: Double] = [:]
    for match in pair.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
        guard let key = Range(match.range(at: 1), in: text), let number = Range(match.range(at: 2), in: text),
            let value = Double(text[number])
        else { continue }
        counted[String(text[key])] = value
    }
    for key in ["send_instructions", "traced_send_instructions", "traced_send_instructions_ratio", "record_instructions"] {
        guard let value = counted[key] else { continue }
        figures.append(
            Figure(key: key, value: value, min: value, max: value, unit: key.hasSuffix("ratio") ? "×" : "instr"))
    }
}

var targets: [String: (String, @MainActor (Double) -> Bool)] = [
    "send_vs_actor": ("≤ 4", { $0 <= 4 }),
    "send_4x_vs_actor": ("≤ 4", { $0 <= 4 }),
    "request_task_vs_floor": ("≤ 2", { $0 <= 2 }),
    "observable_send_vs_model": ("≤ 4", { $0 <= 4 }),
    "disabled_ratio": ("≥ 0.97", { $0 >= 0.97 }),
    "ring_ratio": ("≥ 0.70", { $0 >= 0.70 }),
    "traced_send_ratio": ("≤ 1.25", { $0 <= 1.25 }),
    "traced_send_instructions_ratio": ("≤ 1.25", { $0 <= 1.25 }),
    "record_instructions": ("≤ 60", { $0 <= 60 }),
    "record_ns": ("≤ 45", { $0 <= 45 }),
    "record_2p_ratio": ("≤ 1.2", { $0 <= 1.2 }),
    "record_vs_floor": ("≤ 1.1", { $0 <= 1.1 }),  // issue 24
    "lttng_vs_record": ("≥ 4", { $0 >= 4 }),
    "view_1m_s": ("≤ 2", { $0 <= 2 }),
    "view_1m_rss_mb": ("≤ 200", { $0 <= 200 }),
    "live_1m_rss_mb": ("≤ 100", { $0 <= 100 }),
    "dump_mb_s": ("≥ 100", { $0 >= 100 }),
    "dump_vs_write": ("≥ 0.5", { $0 >= 0.5 }),
    "record_lossless_discarded": ("0 in 3 runs", { $0 == 0 }),
    "ctf_vs_babeltrace": ("≤ 2", { $0 <= 2 }),
    "dump_extra_mb": ("≤ 8", { $0 <= 8 }),
    "slow_trigger_ratio": ("≤ 1.05", { $0 <= 1.05 }),
]
for command in ViewScale.commands {
    targets["view_\(command.key)_10m_rss_mb"] = ("≤ 200", { $0 <= 200 })
    targets["view_\(command.key)_100m_rss_mb"] = ("≤ 256", { $0 <= 256 })
    targets["view_\(command.key)_growth"] = ("≤ 11", { $0 <= 11 })
    targets["view_\(command.key)_growth_100m"] = ("≤ 11", { $0 <= 11 })
}
targets["view_slow_10m_cpu_s"] = ("≤ 5", { $0 <= 5 })
// The runtime's clock stays within a microsecond of CLOCK_MONOTONIC (issue 24).
targets["clock_offset_ns"] = ("≤ 1000", { $0 <= 1_000 })
// The TUI's first screen of a 10M-event trace, in a terminal, and its memory (wall time).
targets["view_tui_first_screen_10m_s"] = ("≤ 3", { $0 <= 3 })
targets["view_tui_screen_10m_rss_mb"] = ("≤ 200", { $0 <= 200 })
targets["view_tui_screen_100m_rss_mb"] = ("≤ 256", { $0 <= 256 })
// One request of a 100M-event trace, through its index (the issue asks ≤ 2 s of wall time).
targets["view_sequence_100m_cpu_s"] = ("≤ 2", { $0 <= 2 })
let order =
    [
        "send_ns", "actor_hop_ns", "send_vs_actor", "send_4x_ns", "actor_4x_ns", "send_4x_vs_actor", "request_task_ns",
        "task_floor_ns", "request_task_vs_floor", "observable_send_ns", "model_method_ns", "observable_send_vs_model",
        "disabled_ratio", "ring_ratio", "send_cpu_ns", "traced_send_cpu_ns", "traced_send_ratio", "send_instructions",
        "traced_send_instructions", "traced_send_instructions_ratio", "record_instructions", "record_ns", "record_1p_ns",
        "record_2p_ns", "record_2p_ratio",
        "clock_ns", "clock_gettime_ns", "clock_offset_ns", "c_floor_ns", "record_vs_floor", "c_claimed_floor_ns",
        "c_single_floor_ns", "single_vs_claimed_floor", "lttng_ns", "ring_record_ns",
        "lttng_vs_record", "resume_record_ns",
        "slow_trigger_ratio",
        "view_1m_s",
        "view_1m_rss_mb", "live_1m_rss_mb", "dump_mb_s", "dump_vs_write", "dump_extra_mb", "record_lossless_discarded",
        "ctf_vs_babeltrace",
    ] + ViewScale.keys(sizes: scaleSizes.map(\.name))
print("")
print("| key | value | spread | target | met |")
print("|---|---|---|---|---|")
var json: [String: Any] = [:]
var allMet = true
for key in order {
    guard let f = figures.first(where: { $0.key == key }) else {
        if let failure = scale.failures[key] {
            print("| \(key) | – | | \(targets[key]?.0 ?? "reported") | **failed**: \(failure) |")
            json[key] = "failed: \(failure)"
            allMet = false
            continue
        }
        print("| \(key) | – | | \(targets[key]?.0 ?? "reported") | \(lttngNote.isEmpty ? "not measured" : lttngNote) |")
        json[key] = lttngNote.isEmpty ? "not measured" : lttngNote
        continue
    }
    let target = targets[key]
    let met = target.map { $0.1(f.value) }
    if met == false { allMet = false }
    let decimals = f.unit == "×" || f.unit == "s" ? 3 : 1
    print(
        "| \(key) | \(fmt(f.value, decimals)) \(f.unit) | \(f.spread) | \(target?.0 ?? "reported") | \(met.map { $0 ? "yes" : "**no**" } ?? "") |"
    )
    json[key] = f.value
}
json["quick"] = quick
json["all_targets_met"] = allMet
if let jsonPath {
    let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .prettyPrinted])
    try data.write(to: URL(fileURLWithPath: jsonPath))
}
