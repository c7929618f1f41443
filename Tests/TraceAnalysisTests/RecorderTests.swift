import Testing
import Transduce
import TransduceDemo
import TransduceTestSupport

@testable import TransduceTrace

@Suite struct RecorderTests {
    /// A ring split into lanes keeps `capacity ÷ lanes` events of a runtime, as its doc says; with
    /// one lane a single runtime keeps the whole capacity.
    @Test func oneLaneKeepsTheWholeCapacityForOneRuntime() async throws {
        let split = TraceRecorder(capacity: 1 << 13, lttng: false)
        #expect(split.eventsKeptPerRuntime == (1 << 13) / split.ring.lanes.count)
        let whole = TraceRecorder(capacity: 1 << 13, lttng: false, lanes: 1)
        #expect(whole.eventsKeptPerRuntime == 1 << 13)
        let runtime = BaseRuntime(of: Storefront.self, env: DemoBackend(), instrument: whole)
        for _ in 0..<3_000 { try await runtime.input.send(.ping) }
        runtime.cancel()
        let trace = whole.snapshot()
        #expect(trace.counts.overwritten > 0)
        #expect(trace.events.count == 1 << 13)
    }

    @Test(arguments: 0..<10) func chartScenarioOnARealHost(_ iteration: Int) async throws {
        let recorder = TraceRecorder(capacity: 1 << 12, lttng: false)
        // A hang detector, not a speed bound: under ThreadSanitizer, with the suites that block
        // threads on children running at once, ten of these took over 10 s.
        // Under a server's trace context, so that every kind shows up.
        let context = try #require(TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        let runtime = try await withTimeout(60) {
            try await TraceContext.withCurrent(context) { try await DemoWorkload.run(instrument: recorder) }
        }
        let trace = recorder.snapshot()
        let events = trace.events.filter { $0.runtime == runtime.rawValue }
        #expect(trace.counts.overwritten == 0 && trace.counts.lost == 0)
        #expect(Set(events.map(\.kind)) == Set(TraceEvent.Kind.allCases))
        // Each dispatch from outside the runtime comes after its context; a task's own have none.
        var contexts: [UInt64: TraceContext] = [:]
        for e in events {
            if e.kind == .traceContext { contexts[e.dispatch] = e.traceContext }
            guard e.kind == .dispatch || e.kind == .dispatchRejected else { continue }
            let fromOutside = e.otherTask == 0
            #expect(contexts[e.dispatch] == (fromOutside ? context : nil), "\(e.kind) #\(e.dispatch) \(e.codeName)")
        }
        #expect(events.allSatisfy { $0.thread != 0 })
        // The chart: request(load) → cycle → spawn(load) → leave(handedOff) → send(ping) gets through
        // → task settles → taskRequest(loaded) → cycle → resume of the request by that cycle.
        let load = try #require(events.first { $0.kind == .dispatch && $0.label == "load" })
        #expect(load.codeName == "request")
        let loadCycle = try #require(events.first { $0.kind == .cycleEnter && $0.dispatch == load.dispatch })
        #expect(loadCycle.nanos > 0)
        let spawn = try #require(events.first { $0.kind == .taskSpawn && $0.label == "load" })
        #expect(spawn.cycle == loadCycle.cycle)
        #expect(spawn.count == 1)
        let leave = try #require(events.first { $0.kind == .cycleLeave && $0.cycle == loadCycle.cycle })
        #expect(leave.codeName == "handedOff" && leave.nanos > 0)
        let ping = try #require(events.first { $0.kind == .dispatch && $0.label == "ping" })
        let settle = try #require(events.first { $0.kind == .taskSettle && $0.task == spawn.task })
        #expect(settle.codeName == "request" && settle.label == "loaded" && settle.nanos > 0)
        let reentry = try #require(events.first { $0.kind == .dispatch && $0.otherTask == spawn.task })
        #expect(reentry.codeName == "taskRequest" && reentry.label == "loaded")
        let reentryCycle = try #require(events.first { $0.kind == .cycleEnter && $0.dispatch == reentry.dispatch })
        let resume = try #require(events.first { $0.kind == .requestResume && $0.dispatch == load.dispatch })
        #expect(resume.cycle == reentryCycle.cycle)
        #expect(resume.codeName == "response" && resume.nanos > 0)
        // Order: the ping's cycle ran while the task held the request.
        let index = { (e: TraceEvent) in events.firstIndex(of: e)! }
        #expect(index(leave) < index(ping) && index(ping) < index(settle) && index(settle) < index(resume))
        // Replacement, join, unique, drop and stop are all there.
        #expect(events.contains { $0.kind == .taskCancel && $0.codeName == "replaced" })
        #expect(events.contains { $0.kind == .taskCancel && $0.codeName == "uniqueRequest" })
        #expect(events.contains { $0.kind == .taskSpawn && $0.codeName == "unique" })
        #expect(events.contains { $0.kind == .eventDropped && $0.label == "ping" && $0.codeName == "sequenceIntermediate" })
        #expect(events.contains { $0.kind == .dispatchRejected && $0.code2Name == "cancelled" })
        #expect(events.last { $0.kind == .runtimeStop }?.codeName == "cancelled")
        let start = try #require(events.first)
        #expect(start.kind == .runtimeStart && start.label == "Storefront" && start.label2 == "BaseRuntime")
    }

    @Test func disabledRecorderRecordsNothing() async throws {
        let recorder = TraceRecorder(capacity: 64, lttng: false, ringEnabled: false)
        #expect(!recorder.isRecording)
        _ = try await DemoWorkload.run(instrument: recorder)
        #expect(recorder.snapshot().events.isEmpty)
        recorder.isRingEnabled = true
        #expect(recorder.isRecording)
    }

    @Test func payloadsAreCapturedOnlyWhenAskedAndRedacted() async throws {
        let plain = TraceRecorder(capacity: 256, lttng: false)
        _ = try await DemoWorkload.run(instrument: plain)
        #expect(plain.snapshot().events.allSatisfy { $0.payload.isEmpty })

        let redacting = TraceRecorder(
            capacity: 256, lttng: false,
            payloads: PayloadCapture { value in
                let text = String(describing: value)
                return text.contains("refresh") ? text : nil
            })
        _ = try await DemoWorkload.run(instrument: redacting)
        let payloads = redacting.snapshot().events.map(\.payload).filter { !$0.isEmpty }
        #expect(payloads.contains("refresh(page: 4)"))
        #expect(payloads.allSatisfy { $0.contains("refresh") })
    }

    /// A dump is streamed from the ring, not built from a snapshot: it must read back as the
    /// snapshot does, labels (static, interned, a type's name), payloads and counts alike, over
    /// several chunks and with events lapped.
    @Test func aStreamedDumpReadsBackAsTheSnapshot() async throws {
        let recorder = TraceRecorder(
            capacity: 1 << 13, lttng: false, payloads: PayloadCapture { String(describing: $0) })
        for _ in 0..<80 { _ = try await DemoWorkload.run(instrument: recorder) }
        let dir = TemporaryDirectory()
        try recorder.write(to: dir.file("dump.tdtrace"))
        let snapshot = recorder.snapshot()
        let dumped = try TraceFileReader(path: dir.file("dump.tdtrace")).readAll()
        // 80 runtimes over the ring's lanes: more events than a lane holds.
        #expect(dumped.events.count > recorder.ring.capacity / recorder.ring.lanes.count)
        #expect(dumped.events == snapshot.events)
        #expect(dumped.counts.overwritten == snapshot.counts.overwritten)
        #expect(dumped.counts.events == UInt64(dumped.events.count))
        #expect(dumped.counts.occasion == .byCode)
        #expect(dumped.hosts == snapshot.hosts)
        #expect(dumped.events.contains { !$0.payload.isEmpty })
    }

    @Test func labelTableResolvesStaticAndInternedLabels() {
        let table = LabelTable()
        let literal = table.reference(EventLabel("static"))
        #expect(!EventLabel(bits: literal).isInterned)
        #expect(table.resolve(literal) == "static")
        let name = "interned-\(UInt64.random(in: 0...UInt64.max))"
        let interned = table.reference(EventLabel(name))
        #expect(EventLabel(bits: interned).isInterned)
        #expect(table.reference(EventLabel(name)) == interned)
        #expect(table.resolve(interned) == name)
        struct Unlabelled {}
        #expect(EventLabel(reflecting: Unlabelled()).description == "Unlabelled")
        #expect(EventLabel(reflecting: Unlabelled()).bits == EventLabel(reflecting: Unlabelled()).bits, "a type is interned once")
        #expect(table.resolve(0) == "")
    }

    /// The interner keeps at most its limit of strings: labels made from unbounded data cannot
    /// grow the process without bound.
    @Test func theInternerIsBounded() throws {
        let interner = LabelInterner(limit: 2)
        let a = interner.label(for: "a")
        #expect(interner.label(for: "a").bits == a.bits)
        #expect(interner.string(at: try #require(a.internedIndex)) == "a")
        _ = interner.label(for: "b")
        let full = interner.label(for: "c")
        #expect(full.internedIndex == 2)
        #expect(interner.string(at: 2) == LabelInterner.fullText)
        #expect(interner.count == 2)
        #expect(interner.label(for: "").bits == 0)
    }

    @Test func overwriteModeReportsExactLoss() async throws {
        let recorder = TraceRecorder(capacity: 16, lttng: false)
        _ = try await DemoWorkload.run(instrument: recorder)
        let trace = recorder.snapshot()
        #expect(trace.events.count == 16)
        #expect(trace.counts.overwritten + UInt64(trace.events.count) == recorder.ring.counts.offered)
    }
}
