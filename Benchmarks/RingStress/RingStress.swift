import Foundation
import Synchronization
import TransduceTrace

/// A stress run of ``TraceRingBuffer`` with its three kinds of user at once: producers on threads
/// of their own, one thread draining, one thread taking snapshots. Each record's words are derived
/// from (producer, sequence) so that a torn copy is detectable, and the run checks the buffer's
/// accounting exactly: every event offered is read once or counted lost.
///
/// Used by the test suite (debug and ThreadSanitizer) and by `transduce-stress` (release, in CI).
package enum RingStress {
    package struct Report: Sendable, CustomStringConvertible {
        package var produced: UInt64 = 0
        package var drained: UInt64 = 0
        package var snapshots = 0
        package var snapshotEvents: UInt64 = 0
        package var counts: TraceRingBuffer.Counts?
        /// Everything that went wrong; empty for a correct buffer.
        package var failures: [String] = []

        package var description: String {
            let c = counts
            let lost = "overwritten \(c?.overwritten ?? 0) (contended \(c?.contended ?? 0)), discarded \(c?.discarded ?? 0)"
            let verdict = failures.isEmpty ? "ok" : "FAILED: " + failures.joined(separator: "; ")
            return
                "produced \(produced), drained \(drained), \(lost), \(snapshots) snapshots holding \(snapshotEvents) events: \(verdict)"
        }
    }

    /// A record whose words check each other.
    package static func stamped(producer: UInt64, sequence: UInt64) -> RawRecord {
        var r = RawRecord()
        r.kindCode = 2
        r.time = sequence
        r.runtime = producer
        r.dispatch = producer << 32 | sequence
        r.cycle = ~(producer << 32 | sequence)
        r.task = sequence &* 0x9E37_79B9_7F4A_7C15
        r.otherTask = producer &+ sequence
        r.nanos = sequence ^ 0xDEAD_BEEF
        r.count = UInt32(truncatingIfNeeded: sequence)
        r.thread = UInt32(truncatingIfNeeded: producer)
        r.label = sequence &+ 1
        r.label2 = producer &* 31
        return r
    }

    /// Whether every word of `r` agrees with its (producer, sequence).
    package static func isWhole(_ r: RawRecord) -> Bool {
        let p = r.runtime
        let s = r.time
        return r.dispatch == p << 32 | s && r.cycle == ~(p << 32 | s) && r.task == s &* 0x9E37_79B9_7F4A_7C15
            && r.otherTask == p &+ s && r.nanos == s ^ 0xDEAD_BEEF && r.count == UInt32(truncatingIfNeeded: s)
            && r.thread == UInt32(truncatingIfNeeded: p) && r.label == s &+ 1 && r.label2 == p &* 31 && r.kindCode == 2
    }

    /// Runs the stress for `seconds` (and at least until the drainer and the snapshotter have
    /// each run `minimumPasses` times while producers were writing), then checks it. Blocks until
    /// every thread has finished.
    package static func run(
        producers: Int, capacity: Int, mode: TraceRingBuffer.Mode, seconds: Double, minimumPasses: Int = 1_000
    ) -> Report {
        let ring = TraceRingBuffer(capacity: capacity, mode: mode)
        let stop = Atomic<Bool>(false)
        let producing = Atomic<Int>(producers)
        let produced = Atomic<UInt64>(0)
        let drainPasses = Atomic<Int>(0)
        let snapshotPasses = Atomic<Int>(0)
        let group = DispatchGroup()
        func thread(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread {
                body()
                group.leave()
            }.start()
        }
        for p in 0..<producers {
            thread {
                var s: UInt64 = 0
                while !stop.load(ordering: .relaxed) {
                    // Bursts, so readers also meet a buffer that is partly drained or idle.
                    for _ in 0..<Int.random(in: 1...2_048) {
                        ring.record(stamped(producer: UInt64(p + 1), sequence: s))
                        s += 1
                    }
                    if Bool.random() { sched_yield() }
                }
                produced.wrappingAdd(s, ordering: .relaxed)
                producing.wrappingAdd(-1, ordering: .releasing)
            }
        }
        let drained = Mutex<[RawRecord]>([])
        thread {
            var mine: [RawRecord] = []
            while producing.load(ordering: .acquiring) > 0 {
                mine += ring.drain(limit: Int.random(in: 1...4_096)).records
                drainPasses.wrappingAdd(1, ordering: .relaxed)
            }
            mine += ring.drain().records
            drained.withLock { $0 = mine }
        }
        let snapshotFindings = Mutex<(count: Int, events: UInt64, torn: Int, unordered: Int)>((0, 0, 0, 0))
        thread {
            var count = 0
            var events: UInt64 = 0
            var torn = 0
            var unordered = 0
            while producing.load(ordering: .acquiring) > 0 {
                let batch = ring.snapshot()
                count += 1
                snapshotPasses.wrappingAdd(1, ordering: .relaxed)
                events += UInt64(batch.records.count)
                var last: [UInt64: UInt64] = [:]
                for r in batch.records {
                    if !isWhole(r) { torn += 1 }
                    if let previous = last[r.runtime], previous >= r.time { unordered += 1 }
                    last[r.runtime] = r.time
                }
            }
            snapshotFindings.withLock { $0 = (count, events, torn, unordered) }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let limit = UInt64(seconds * 1e9)
        // The deadline bounds the run even on a starved machine: ten times the asked duration.
        while true {
            let elapsed = DispatchTime.now().uptimeNanoseconds - started
            let enough =
                elapsed >= limit && drainPasses.load(ordering: .relaxed) >= minimumPasses
                && snapshotPasses.load(ordering: .relaxed) >= minimumPasses
            if enough || elapsed >= 10 * limit { break }
            usleep(1_000)
        }
        stop.store(true, ordering: .relaxed)
        group.wait()

        var report = Report()
        report.produced = produced.load(ordering: .relaxed)
        let delivered = drained.withLock { $0 }
        report.drained = UInt64(delivered.count)
        let c = ring.counts
        report.counts = c
        let found = snapshotFindings.withLock { $0 }
        report.snapshots = found.count
        report.snapshotEvents = found.events
        if found.torn > 0 { report.failures.append("\(found.torn) torn events in snapshots") }
        if found.unordered > 0 { report.failures.append("\(found.unordered) snapshot events out of producer order") }
        let torn = delivered.filter { !isWhole($0) }.count
        if torn > 0 { report.failures.append("\(torn) torn events drained") }
        var last: [UInt64: UInt64] = [:]
        var seen = Set<UInt64>()
        var duplicates = 0
        var reordered = 0
        for r in delivered {
            if !seen.insert(r.dispatch).inserted { duplicates += 1 }
            if let previous = last[r.runtime], previous >= r.time { reordered += 1 }
            last[r.runtime] = r.time
        }
        if duplicates > 0 { report.failures.append("\(duplicates) events drained twice") }
        if reordered > 0 { report.failures.append("\(reordered) drained events out of producer order") }
        if c.offered + c.discarded != report.produced {
            report.failures.append("offered \(c.offered) + discarded \(c.discarded) != produced \(report.produced)")
        }
        if report.drained + c.overwritten + c.discarded != report.produced {
            report.failures.append(
                "drained \(report.drained) + overwritten \(c.overwritten) + discarded \(c.discarded) != produced \(report.produced)"
            )
        }
        if c.contended > c.overwritten { report.failures.append("contended \(c.contended) > overwritten \(c.overwritten)") }
        if mode == .discardNewest && c.overwritten != 0 { report.failures.append("overwritten in discard mode") }
        if mode == .overwriteOldest && c.discarded != 0 { report.failures.append("discarded in overwrite mode") }
        return report
    }
}
