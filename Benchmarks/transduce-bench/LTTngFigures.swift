import CLTTng
import Foundation
import TraceTooling
import Transduce
import TransduceTrace

/// LTTng's figure: one enabled tracepoint through the wrapper, with a session recording, against
/// a record into the ring, the same events through the same entry alternating within each round.
enum LTTngFigures {
    /// Measures `lttng_ns`, `ring_record_ns` and `lttng_vs_record`; returns why not when LTTng
    /// cannot record here (then the table says so of its keys), or "".
    @MainActor static func collect(_ run: BenchRun, into table: FigureTable) throws -> String {
        if try measured(run, into: table) { return "" }
        let note =
            "LTTng unavailable: "
            + {
                switch LTTngProvider.status {
                case .loaded: return "no session could be created (is lttng-tools installed and lttng-sessiond startable?)"
                case .disabled(let r), .unavailable(let r): return r
                }
            }()
        print("  lttng_ns: \(note)")
        return note
    }

    @MainActor private static func measured(_ run: BenchRun, into table: FigureTable) throws -> Bool {
        guard LTTngProvider.isLoaded, LTTngSession.toolsMissing == nil else { return false }
        let dir = NSTemporaryDirectory() + "transduce-bench-\(getpid())"
        let session: LTTngSession
        do {
            // As `trace-view record` makes its sessions: every event, with the thread and process.
            session = try LTTngSession(
                name: "transduce-bench-\(getpid())", output: dir, events: ["transduce:*"], contexts: ["vtid", "vpid"])
        } catch {
            print("  lttng: \(error)")
            return false
        }
        defer {
            session.destroy()
            try? FileManager.default.removeItem(atPath: dir)
        }
        try session.start()
        // Registration of the enablement reaches this process asynchronously: wait for it.
        let deadline = MonotonicClock.now() + 5_000_000_000
        while clttng_any_enabled() == 0 && MonotonicClock.now() < deadline { usleep(1_000) }
        guard clttng_any_enabled() != 0 else { return false }
        // A recorder that feeds LTTng only, and one that feeds its ring only (each thread CPU time).
        let n = 200_000 / run.scaleDown
        let lttngOnly = TraceRecorder(capacity: 1 << 12, lttng: true, ringEnabled: false)
        let ringOnly = TraceRecorder(capacity: 1 << 16, lttng: false)
        for f in interleavedSync(
            "lttng_ns", "ring_record_ns", ratio: "lttng_vs_record", rounds: run.reps,
            { cpuNanosPerIteration(n) { recordLoop(lttngOnly, n, 0) } },
            { cpuNanosPerIteration(n) { recordLoop(ringOnly, n, 0) } })
        {
            table.add(f)
        }
        try session.stop()
        return table.value("lttng_ns") != nil
    }
}
