import Foundation
import Testing
import Transduce
import TransduceTestSupport
import TransduceTesting
import TransduceTrace

/// `trace-view check --shrink` on invariant breaks injected into a recorded run of two ledgers:
/// the window it writes breaks the same rule with the same message when `check` reads it back,
/// is at most twice the smallest window an exhaustive search over every window of the runtime
/// finds, and replays.
@Suite struct CheckShrinkTests {
    /// Two ledgers of about 45 cycles each, recorded with their values and states.
    static func recorded(seed: UInt64) async throws -> Trace {
        let recorder = replayRecorder(capacity: 1 << 14, states: .snapshots)
        var random = SeededRandom(seed: seed)
        for _ in 0..<2 {
            let runtime = BaseRuntime(of: Ledger.self, instrument: recorder)
            try await runLedger(runtime, cycles: 40, random: &random)
        }
        return recorder.snapshot()
    }

    /// A break of one invariant, made in the first runtime's events around the cycle at `at`
    /// (an index into its cycles).
    enum Break: CaseIterable {
        case resumedTwice, taskEndedTwice, cycleIDTwice, cyclesOverlap, admittedOutOfOrder, transducedAfterStop
        case leftBeforeEntering

        func inject(into events: [TraceEvent], runtime: RuntimeKey, at: Int) -> [TraceEvent] {
            var events = events
            let mine = events.indices.filter { events[$0].runtimeKey == runtime }
            let cycles = Array(Set(mine.filter { events[$0].kind == .cycleEnter }.map { events[$0].cycle })).sorted()
            let cycle = cycles[min(at, cycles.count - 2)]
            func index(_ kind: TraceEvent.Kind, cycle c: UInt64) -> Int {
                mine.first { events[$0].kind == kind && events[$0].cycle == c }!
            }
            func nth(_ kind: TraceEvent.Kind) -> Int {
                let all = mine.filter { events[$0].kind == kind }
                return all[at % all.count]
            }
            func swap(_ a: Int, _ b: Int) {
                let (ta, tb) = (events[a].time, events[b].time)
                events.swapAt(a, b)
                events[a].time = ta
                events[b].time = tb
            }
            switch self {
            case .resumedTwice, .taskEndedTwice:
                let i = nth(self == .resumedTwice ? .requestResume : .taskSettle)
                var copy = events[i]
                copy.time += 1
                events.insert(copy, at: i + 1)
            case .cycleIDTwice:
                // Three cycles on, a cycle takes this one's number.
                let later = cycles[min(cycles.count - 1, cycles.firstIndex(of: cycle)! + 3)]
                for i in mine where events[i].cycle == later && events[i].kind != .requestResume {
                    events[i].cycle = cycle
                }
            case .cyclesOverlap:
                let next = cycles[cycles.firstIndex(of: cycle)! + 1]
                swap(index(.cycleLeave, cycle: cycle), index(.cycleEnter, cycle: next))
            case .admittedOutOfOrder:
                let dispatches = mine.filter { events[$0].kind == .dispatch }
                let i = dispatches[at % (dispatches.count - 1)]
                swap(i, dispatches[dispatches.firstIndex(of: i)! + 1])
            case .transducedAfterStop:
                let enter = index(.cycleEnter, cycle: cycle)
                var stop = TraceEvent(
                    kind: .runtimeStop, time: events[enter].time - 1, thread: events[enter].thread, runtime: runtime.runtime)
                stop.process = runtime.process
                events.insert(stop, at: enter)
            case .leftBeforeEntering:
                swap(index(.cycleEnter, cycle: cycle), index(.cycleLeave, cycle: cycle))
            }
            return events
        }
    }

    @Test(arguments: Break.allCases) func aShrunkWindowBreaksTheSameRuleAndIsNearTheSmallest(_ injected: Break) async throws {
        let dir = TemporaryDirectory()
        for seed: UInt64 in [1, 2, 3] {
            let clean = try await Self.recorded(seed: seed)
            let first = try #require(clean.events.first { $0.kind == .runtimeStart }?.runtimeKey)
            var broken = clean
            broken.events = injected.inject(into: clean.events, runtime: first, at: Int(seed) * 11)
            let path = dir.file("broken-\(injected)-\(seed).tdtrace")
            try TraceFileWriter.write(broken, to: path)
            let report = InvariantReport(broken, complete: nil)
            let violation = try #require(report.violations.first, "\(injected) \(seed): nothing broken")

            let shrunk = dir.file("shrunk-\(injected)-\(seed).tdtrace")
            let run = try await traceView(["check", "--shrink", shrunk, path])
            #expect(run.status == 1, "\(injected) \(seed): \(run.err)")
            let said = try #require(
                run.out.firstMatch(of: /shrunk (\w+) on runtime .* to cycles (\d+)–(\d+) \((\d+) cycles? of (\d+)/),
                "\(injected) \(seed): \(run.out)")
            #expect(String(said.1) == violation.rule.rawValue)
            let width = try #require(Int(said.4))

            // The written window, read back: the same rule, the same message.
            let window = try TraceFileReader(path: shrunk).readAll()
            let again = InvariantReport(window, complete: nil)
            #expect(
                again.violations.contains { $0.rule == violation.rule && $0.message == violation.message },
                "\(injected) \(seed): \(again.violations)")
            let checked = try await traceView(["check", "--width", "1000", shrunk])
            #expect(checked.status == 1 && checked.out.contains(violation.message), "\(checked.out)")

            // Every window of the runtime: the smallest that breaks it.
            let shrinker = ViolationShrinker(trace: broken, whole: report.whole, lossy: report.lossy)
            let runtime = RuntimeWindows(broken.events.filter { $0.runtimeKey == violation.runtime })
            var smallest = runtime.cycles.count
            for lo in runtime.cycles.indices {
                for hi in lo..<min(runtime.cycles.count, lo + smallest) where hi - lo + 1 < smallest {
                    if shrinker.breaksRule(runtime.events(lo...hi), as: violation) { smallest = hi - lo + 1 }
                }
            }
            #expect(width <= 2 * smallest, "\(injected) \(seed): shrunk to \(width) cycles, the smallest is \(smallest)")
            if ProcessInfo.processInfo.environment["TRANSDUCE_SHOW_SHRINK"] != nil {
                print("shrink \(injected) \(seed): \(width) of \(runtime.cycles.count) cycles, smallest \(smallest)")
            }

            // What the window holds of the ledger replays (from its first snapshot), unless the
            // break is in the cycles' own numbering or order.
            if [.resumedTwice, .taskEndedTwice, .admittedOutOfOrder].contains(injected) {
                #expect(throws: Never.self, "\(injected) \(seed)") {
                    try Replay(of: Ledger.self, trace: window, runtime: violation.runtime).run()
                }
            }
        }
    }

    /// A trace that breaks nothing: nothing written, status 0, and it says so.
    @Test func aSoundTraceWritesNothing() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("sound.tdtrace")
        try TraceFileWriter.write(try await Self.recorded(seed: 5), to: path)
        let run = try await traceView(["check", "--shrink", dir.file("shrunk.tdtrace"), path])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("no invariant is broken: nothing written"), "\(run.out)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("shrunk.tdtrace")))
    }
}
