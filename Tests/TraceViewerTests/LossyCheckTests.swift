import Foundation
import Testing
import TraceTooling
import Transduce
import TransduceDemo
import TransduceTestSupport

@testable import TransduceTrace

/// `check` judges only what a trace can show. A trace that lost events (a flight recorder's ring
/// cut, LTTng's discards) from a correct runtime has no violation: a finding that rests on an
/// event the trace does not hold is counted as not judged. Forged traces (ids used twice, a resume
/// of nothing, times against cause and effect, impossible counts) each break a named rule.
@Suite struct LossyCheckTests {
    /// A correct runtime's trace (eight clients sending at one runtime, all recorded), then
    /// losses cut into it as a recorder makes them: its oldest events overwritten (a ring cut at
    /// each of its first 300 places) and a stretch discarded mid-trace (LTTng's full channel, at
    /// 100 places). No cut makes a violation; the findings each cut leaves open are set aside as
    /// not judged, and across the cuts there are some (else the test would show nothing).
    @Test(.timeLimit(.minutes(Patience.minutes(3)))) func aCorrectRuntimesLossesMakeNoViolation() async throws {
        let recorder = TraceRecorder(capacity: 1 << 16, lttng: false)
        let runtime = BaseRuntime(of: Storefront.self, env: DemoBackend(), instrument: recorder)
        let input = runtime.input
        try await withTimeout(120) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask { for _ in 0..<250 { try await input.send(.ping) } }
                }
                try await group.waitForAll()
            }
        }
        runtime.cancel()
        let whole = recorder.snapshot()
        #expect(whole.counts.overwritten == 0 && whole.events.count > 8_000)
        #expect(TraceInvariants.check(whole, complete: false).isEmpty)
        // 400 checks of some 16,000 events each: seconds of CPU, kept off the concurrency pool.
        var cuts: [(what: String, trace: Trace)] = []
        for cut in 1...300 {
            var trace = whole
            trace.events.removeFirst(cut)
            trace.counts.overwritten = UInt64(cut)
            cuts.append(("the oldest \(cut) overwritten", trace))
        }
        for at in stride(from: 500, to: 500 + 100 * 37, by: 37) {
            var trace = whole
            trace.events.removeSubrange(at..<(at + 23))
            trace.counts.discarded = 23
            cuts.append(("23 discarded at \(at)", trace))
        }
        let all = cuts
        let results = try await offThePool {
            all.map { cut -> (what: String, lossy: Bool, violations: [String], notJudged: Int, unqualified: Int) in
                let report = InvariantReport(cut.trace, complete: true)
                var checker = InvariantChecker()
                cut.trace.feed(&checker)
                // Judged as before this rule (every finding a violation).
                let unqualified = checker.finish(whole: false, lossy: false)
                return (
                    cut.what, report.lossy && !report.whole, report.violations.prefix(3).map(\.description),
                    report.notJudged, unqualified.count
                )
            }
        }
        var setAside = 0
        for r in results {
            #expect(r.lossy, "\(r.what)")
            #expect(r.violations.isEmpty, "\(r.what): \(r.violations)")
            #expect(r.notJudged == r.unqualified, "\(r.what)")
            setAside += r.notJudged
        }
        #expect(setAside > 0, "no cut left a finding to set aside")
    }

    /// A forged trace (`forged_traces.py MODE`) fails `check --complete` with the named rule, or
    /// is refused as damaged (exit 65).
    @Test(
        .enabled(if: Subprocess.which("python3") != nil),
        arguments: [
            ("dispatch-ids", "idsUsedOnce (runtime 1): dispatch #1 was dispatched twice"),
            ("cycle-ids", "idsUsedOnce (runtime 1): cycle #1 was entered twice"),
            ("unknown-resume", "resumedExactlyOnce (runtime 1): dispatch #77 was resumed (response) but never dispatched"),
            ("backwards", "causalOrder (runtime 1): cycle #1 entered before its dispatch #1 was made"),
            ("footer", "more than any recorder can count"),
        ])
    func aForgedTraceBreaksANamedRule(_ mode: String, _ says: String) async throws {
        let dir = TemporaryDirectory()
        let (status, text) = try await offThePool {
            try runBlocking(Subprocess.which("python3")!, [fixtures + "/scripts/forged_traces.py", mode])
        }
        #expect(status == 0, "\(text)")
        try text.write(toFile: dir.file("forged.jsonl"), atomically: true, encoding: .utf8)
        let check = try await traceView(["check", "--complete", dir.file("forged.jsonl")])
        #expect(check.status == (mode == "footer" ? 65 : 1), "\(mode): \(check.out) \(check.err)")
        #expect((check.out + check.err).contains(says), "\(mode): \(check.out) \(check.err)")
    }
}
