import Foundation
import Synchronization
import Testing
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

/// A workload with known, injected delays: each scene makes one request slow in one way.
enum Delays: Transducer {
    struct State: Sendable {}
    enum Event: Sendable {
        /// An async action that holds the gate until the environment's gate opens.
        case hold
        case quick
        /// A shareable task that runs `ms`; with `ms == 0`, until the environment's gate opens.
        case shared(ms: Int)
        /// A switchToLatest task `x` that runs `ms` (or until replaced).
        case latest(ms: Int)
        /// A task whose result starts a second task, whose result answers.
        case chain
        case second
        /// A task that makes a request of its own.
        case outer
        case inner
        case done
    }
    typealias Response = Int
    typealias Env = Latch

    static var initialState: State { State() }

    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .hold:
            return .action(nonsendingOperation: { gate in
                await gate.wait()
                return nil
            })
        case .quick, .done, .inner: return .none
        case .shared(let ms):
            return .task(id: "shared", option: .shareable) { _, gate -> TaskReturn<Event> in
                if ms == 0 { await gate.wait() } else { try await Task.sleep(for: .milliseconds(ms)) }
                return .response(.done)
            }
        case .latest(let ms):
            return .task(id: "x") { _, _ -> TaskReturn<Event> in
                try await Task.sleep(for: .milliseconds(ms))
                return .response(.done)
            }
        case .chain:
            return .task { _, _ -> TaskReturn<Event> in
                try await Task.sleep(for: .milliseconds(3))
                return .request(.second)
            }
        case .second:
            return .task { _, _ -> TaskReturn<Event> in
                try await Task.sleep(for: .milliseconds(3))
                return .response(.done)
            }
        case .outer:
            return .task { input, _ -> TaskReturn<Event> in
                _ = try await input.request(.inner)
                return .response(.done)
            }
        }
    }

    static func response(state: State, event: Event) -> Int { 0 }

    static func traceLabel(of event: Event) -> EventLabel { EventLabel(reflecting: event) }
}

@Suite(.serialized) struct SlowRequestTests {
    static let ms: UInt64 = 1_000_000

    func breakdowns(_ trace: Trace) -> [String: [LatencyBreakdown]] {
        let index = TraceIndex(trace.events)
        var out: [String: [LatencyBreakdown]] = [:]
        for b in index.latencyBreakdowns() {
            // Every breakdown adds up exactly, to the runtime's own latency.
            let resume = trace.events.first { $0.kind == .requestResume && $0.dispatch == b.dispatch }
            #expect(b.parts.reduce(0) { $0 + $1.nanos } == b.total && b.total == resume?.nanos, "\(b.title)")
            out[b.label, default: []].append(b)
        }
        return out
    }

    func nanos(_ b: LatencyBreakdown, _ kind: LatencyBreakdown.Part.Kind) -> UInt64 {
        b.parts.filter { $0.kind == kind }.reduce(0) { $0 + $1.nanos }
    }

    @Test func anAsyncActionHoldingTheGateIsWhatThreeRequestsWaitedFor() async throws {
        let recording = TraceRecording(capacity: 1 << 12)
        let gate = Latch("hold")
        let host = BaseRuntime(of: Delays.self, env: gate, instrument: recording.instrument)
        try host.input.post(.hold)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { _ = try await host.input.request(.quick) } }
            // Once the three are queued behind it, the action holds the gate 20 ms more.
            try await withTimeout {
                while recording.trace().events.filter({ $0.kind == .dispatch }).count < 4 {
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            try await Task.sleep(for: .milliseconds(20))
            gate.open()
            try await group.waitForAll()
        }
        let quick = try #require(breakdowns(recording.trace())["quick"])
        #expect(quick.count == 3)
        let trace = recording.trace()
        for b in quick {
            // Typed, with the names the views print.
            #expect(b.style == .request && b.outcome == .response)
            #expect(b.styleName == "request" && b.outcomeName == "response")
            let wait = try #require(b.parts.first { $0.kind == .admissionWait })
            // The wait is the trace's own enter − dispatch, and the async action's cycle held
            // at least the 20 ms the test kept it after they queued. (Bounds from below only:
            // a loaded machine makes every part longer, not shorter.)
            let enter = try #require(trace.events.first { $0.kind == .cycleEnter && $0.cycle == wait.cycle })
            #expect(wait.nanos == enter.time - b.start)
            let hold = try #require(wait.heldBy.first { $0.label == "hold" }, "\(b.render(options: RenderOptions(width: 160)))")
            #expect(hold.asyncActionNanos >= 20 * Self.ms && hold.nanos >= 20 * Self.ms)
        }
    }

    @Test func aRequestThatJoinedASharedTaskWaitedForItsRest() async throws {
        let recording = TraceRecording(capacity: 1 << 12)
        let gate = Latch("hold")
        let host = BaseRuntime(of: Delays.self, env: gate, instrument: recording.instrument)
        async let first = host.input.request(.shared(ms: 0))
        try await withTimeout {
            while !recording.trace().events.contains(where: { $0.kind == .taskSpawn }) {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        // 5 ms into the task a second request joins it; 5 ms later the task ends.
        try await Task.sleep(for: .milliseconds(5))
        async let second = host.input.request(.shared(ms: 0))
        try await withTimeout {
            while !recording.trace().events.contains(where: { $0.kind == .taskJoin }) {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        try await Task.sleep(for: .milliseconds(5))
        gate.open()
        _ = try await (first, second)
        let shared = try #require(breakdowns(recording.trace())["shared"])
        #expect(shared.count == 2)
        let (starter, joiner) = (shared[0], shared[1])
        #expect(nanos(starter, .task) > 0 && nanos(starter, .sharedTask) == 0)
        #expect(nanos(joiner, .sharedTask) > 0 && nanos(joiner, .task) == 0)
        // The joiner waited for the task's rest: from its own cycle's leave to the task's end
        // (at least the 5 ms the test kept it open after the join), exactly.
        let trace = recording.trace()
        let part = try #require(joiner.parts.first { $0.kind == .sharedTask })
        let settle = try #require(trace.events.first { $0.kind == .taskSettle && $0.task == part.task })
        #expect(part.start + part.nanos == settle.time && part.nanos >= 5 * Self.ms)
        #expect(nanos(starter, .task) > nanos(joiner, .sharedTask))
    }

    @Test func aReplacedTaskLosesTimeAndTheWaiterMovesOn() async throws {
        let recording = TraceRecording(capacity: 1 << 12)
        let host = BaseRuntime(of: Delays.self, env: Latch("hold"), instrument: recording.instrument)
        // Its task would run 30 s: the replacement always comes first, however loaded the machine.
        async let first = host.input.request(.latest(ms: 30_000))
        // 5 ms after its task has started (and its cycle left), the second request replaces it.
        try await withTimeout {
            while !recording.trace().events.contains(where: { $0.kind == .cycleLeave }) {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        try await Task.sleep(for: .milliseconds(5))
        _ = try await host.input.request(.latest(ms: 5))
        _ = try await first
        let latest = try #require(breakdowns(recording.trace())["latest"])
        let replaced = latest[0]
        #expect(replaced.parts.map(\.kind).contains(.replacedTask))
        // After the replacement it waited on the replacing task, whose re-entry answered it.
        let kinds = replaced.parts.map(\.kind)
        let after = try #require(kinds.firstIndex(of: .replacedTask))
        #expect(kinds[(after + 1)...].contains(.task) && kinds.contains(.reentryWait))
        #expect(nanos(replaced, .replacedTask) >= 4 * Self.ms && nanos(replaced, .replacedTask) < 25_000 * Self.ms)
    }

    @Test func aChainThroughTwoTasksAndARequestMadeInsideATask() async throws {
        let recording = TraceRecording(capacity: 1 << 12)
        let host = BaseRuntime(of: Delays.self, env: Latch("hold"), instrument: recording.instrument)
        _ = try await host.input.request(.chain)
        _ = try await host.input.request(.outer)
        let all = breakdowns(recording.trace())
        let chain = try #require(all["chain"]?.first)
        // task, its re-entry and cycle, the second task, its re-entry and cycle.
        #expect(chain.parts.filter { $0.kind == .task }.count == 2)
        #expect(chain.parts.filter { $0.kind == .reentryWait || $0.kind == .transduce }.count >= 3)
        #expect(chain.parts.filter { $0.kind == .task }.allSatisfy { $0.nanos >= 3 * Self.ms })
        let inner = try #require(all["inner"]?.first)
        #expect(inner.originTask != 0, "a request made inside a task has its own breakdown")
        let outer = try #require(all["outer"]?.first)
        #expect(nanos(outer, .task) >= nanos(inner, .admissionWait))
    }

    /// `slow` on a trace file: the slowest first, its breakdown, and JSON whose parts add up.
    @Test func slowListsTheSlowestAndItsJSONAddsUp() async throws {
        let demo = fixtures + "/demo.jsonl"
        let (status, out, err) = try await traceView(["slow", "--top", "3", demo], columns: 120)
        #expect(status == 0, "\(err)")
        #expect(out.contains("Slowest requests: 3 of 12 awaited"))
        #expect(out.contains("gate held by syncPrices cycle #13 async action"))
        let (_, json, _) = try await traceView(["slow", "--json", "--over", "1ms", demo])
        let list = try json.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(list.count == 4)
        for item in list {
            let parts = try #require(item["parts"] as? [[String: Any]])
            #expect(parts.compactMap { $0["ns"] as? Int }.reduce(0, +) == item["total_ns"] as? Int)
        }
        let (_, summary, _) = try await traceView(["summary", "--over", "1ms", demo])
        #expect(summary.contains("slow        4 of 12 resumed requests took 1.00ms or more"))
        let (_, byEvent, _) = try await traceView(["slow", demo], columns: 160)
        #expect(byEvent.contains("By event") && byEvent.contains("98% waiting behind syncPrices (async action)"))
        // contention, streaming, attributes the p99 of each event's requests too.
        let (_, contention, _) = try await traceView(["contention", demo], columns: 120)
        #expect(contention.contains("ping: 5 requests, p99 2.14ms: 98% waiting behind syncPrices (async action)"))
        let (bad, _, message) = try await traceView(["slow", "--over", "fast", demo])
        #expect(bad == 64 && message.contains("needs a duration"))
        let (_, chart, _) = try await traceView(["sequence", "--request", "4", demo], columns: 100)
        #expect(chart.contains("Latency of request(refresh) dispatch #4") && chart.contains("until replaced"))
    }
}

/// The flight recorder that dumps itself when a request is slow.
@Suite(.serialized) struct SlowRequestTriggerTests {
    static let ms: UInt64 = 1_000_000

    func dumps(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("slow-") }.sorted()
    }

    /// The dispatch a dump is named for (`…-d<dispatch>.tdtrace`).
    func dispatch(of name: String) -> UInt64? {
        name.split(separator: "-").last.flatMap { UInt64($0.dropFirst().split(separator: ".").first ?? "") }
    }

    /// A recorder that dumps requests slower than `threshold` into `dir`, at most once an hour,
    /// and a host recording to it.
    func armed(_ threshold: UInt64, in dir: TemporaryDirectory) -> (TraceRecorder, BaseRuntime<Delays>) {
        let recorder = TraceRecorder(
            capacity: 1 << 14, lttng: false,
            slowRequests: SlowRequestTrigger(threshold: threshold, directory: dir.path, minimumInterval: 3_600_000_000_000))
        return (recorder, BaseRuntime(of: Delays.self, env: Latch("hold"), instrument: recorder))
    }

    @Test func oneSlowRequestAmongFastOnesWritesOneDumpWithItsLifecycle() async throws {
        let dir = TemporaryDirectory()
        // Far above what a quick request takes even on a loaded machine.
        let (recorder, host) = armed(1_000 * Self.ms, in: dir)
        for _ in 0..<20 { _ = try await host.input.request(.quick) }
        _ = try await host.input.request(.latest(ms: 1_500))
        for _ in 0..<20 { _ = try await host.input.request(.quick) }
        recorder.flushSlowRequestDumps()
        let files = try dumps(in: dir.path)
        #expect(files.count == 1, "\(files)")
        let counts = recorder.slowRequestDumps
        #expect(counts == SlowRequestDumpCounts(slowRequests: 1, written: 1, suppressed: 0, failed: 0))
        let name = try #require(files.first)
        let trace = try TraceFileReader(path: dir.file(name)).readAll()
        let id = try #require(dispatch(of: name))
        let index = TraceIndex(trace.events)
        let runtime = try #require(index.runtimes.first)
        let kinds = Set(index.requestLifecycle(runtime: runtime, dispatch: id).map { trace.events[$0].kind })
        #expect(kinds.isSuperset(of: [.dispatch, .cycleEnter, .taskSpawn, .taskSettle, .requestResume]), "\(kinds)")
        #expect(trace.events.first { $0.kind == .dispatch && $0.dispatch == id }?.label == "latest")
        // The dump's footer counts what the trigger had seen (this dump not yet written), and
        // says it is a snapshot the trigger took while the process ran.
        #expect(trace.counts.slowRequests == 1 && trace.counts.slowDumps == 0)
        #expect(trace.counts.occasion == .slowRequest)
        let (_, summary, _) = try await traceView(["summary", dir.file(name)])
        #expect(summary.contains("saw 1 slow request, had written 0 slow-request dumps"))
        // A later snapshot counts the dump, in both formats.
        for format in [TraceFileWriter.Format.binary, .jsonLines] {
            let path = dir.file("after." + (format == .binary ? "tdtrace" : "jsonl"))
            try recorder.write(to: path, format: format)
            let again = format == .binary ? try TraceFileReader(path: path).readAll() : try JSONLinesReader(path: path).readAll()
            #expect(again.counts.slowRequests == 1 && again.counts.slowDumps == 1, "\(format)")
            #expect(again.counts.occasion == .byCode, "\(format)")
        }
        // Without a trigger the footer is the 48-byte one every version-2 reader knows.
        var plain: [UInt8] = []
        TraceFileWriter.encodeBinary(Trace(events: [])) { plain += $0 }
        #expect(plain.suffix(TraceFileFormat.footerSize + TraceFileFormat.chunkHeaderSize).first == 3)
    }

    @Test func aBurstOfSlowRequestsIsRateLimited() async throws {
        let dir = TemporaryDirectory()
        let (recorder, host) = armed(10 * Self.ms, in: dir)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { _ = try await host.input.request(.shared(ms: 40)) } }
            try await group.waitForAll()
        }
        // Then later slow ones too, inside the interval.
        for _ in 0..<3 { _ = try await host.input.request(.latest(ms: 15)) }
        recorder.flushSlowRequestDumps()
        #expect(try dumps(in: dir.path).count == 1)
        let counts = recorder.slowRequestDumps
        #expect(counts.slowRequests == 13 && counts.written == 1 && counts.suppressed == 12, "\(counts)")
    }

    /// A writer that stalls never holds up the threads that record.
    @Test func aStalledWriterNeverBlocksProducers() async throws {
        let release = DispatchSemaphore(value: 0)
        let recorder = TraceRecorder(
            capacity: 1 << 14, mode: .overwriteOldest, lttng: false, payloads: nil, ringEnabled: true,
            slowRequests: SlowRequestTrigger(threshold: 0, directory: "/nonexistent", minimumInterval: 0),
            lanes: nil, dumpWriter: { _, _ in release.wait() })
        let host = BaseRuntime(of: Delays.self, env: Latch("hold"), instrument: recorder)
        // Every resume is over a zero threshold; the first dump stalls in its writer.
        try await withTimeout(30) {
            for _ in 0..<500 { _ = try await host.input.request(.quick) }
        }
        let counts = recorder.slowRequestDumps
        #expect(counts.slowRequests == 500 && counts.written == 0)
        #expect(recorder.ring.counts.offered >= 500 * 5, "the producers kept recording")
        release.signal()
        release.signal()
        recorder.flushSlowRequestDumps()
        #expect(recorder.slowRequestDumps.written >= 1)
    }

    /// With no code change: the environment arms the trigger of a bootstrapped recorder, and the
    /// dump a slow request asked for is written before the process exits.
    @Test(.disabled(if: underThreadSanitizer, "a child process; the trigger's concurrency is covered above"))
    func theEnvironmentArmsItWithNoCodeChange() async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        // Every request of the demo takes longer than 20 µs (a task's takes hundreds).
        let (status, output) = try await run(
            example, [],
            environment: [
                "TRANSDUCE_SLOW": "20us", "TRANSDUCE_SLOW_DIR": dir.path, "TRANSDUCE_SLOW_EVERY": "1h", "TRANSDUCE_LTTNG": "off",
            ])
        #expect(status == 0, "\(output)")
        let files = try dumps(in: dir.path)
        #expect(files.count == 1, "\(files) \(output)")
        let name = try #require(files.first)
        let trace = try TraceFileReader(path: dir.file(name)).readAll()
        let id = try #require(dispatch(of: name))
        let resume = try #require(trace.events.first { $0.kind == .requestResume && $0.dispatch == id })
        #expect(resume.nanos > 20_000)
        // Taken mid-run, it is checked as such: it passes, and says so.
        let check = try await traceView(["check", dir.file(name)])
        #expect(check.status == 0, "\(check.out)")
        #expect(check.out.contains("incomplete") && check.out.contains("slow-request trigger"), "\(check.out)")
        let (bad, badOutput) = try await run(example, [], environment: ["TRANSDUCE_SLOW": "soon", "TRANSDUCE_LTTNG": "off"])
        #expect(bad == 64 && badOutput.contains("TRANSDUCE_SLOW=soon is not a duration"))
    }
}
