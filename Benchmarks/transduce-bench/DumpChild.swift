import Foundation
import Transduce
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `transduce-bench --dump-child EVENTS FILE`: fills a ring recorder of EVENTS events, writes it
/// to FILE as `TraceRecorder.write(to:)` does, then writes the same number of bytes to FILE.write
/// with plain `write(2)` calls of 1 MiB, three times alternated, and prints one line of medians:
///
///     rss_before_kb=… hwm_after_kb=… dump_s=… write_s=… dump_user_s=… dump_sys_s=… bytes=… events=…
///
/// `hwm_after_kb − rss_before_kb` is what the dumps added to the process's peak (the ring itself
/// is resident before they start); the dump's and the write's seconds are wall time (their CPU
/// time plus any wait for the disk); the dump's user and system seconds say where its CPU went.
/// The files are removed after each round.
enum DumpChild {
    static func run(events: Int, file: String) throws -> Never {
        let recorder = TraceRecorder(capacity: events, lttng: false)
        let label: EventLabel = "tick"
        // Sixteen runtimes, so that every lane (at most 16) fills.
        for i in 0..<recorder.ring.capacity {
            recorder.record(
                RuntimeEvent(
                    time: MonotonicClock.now(), runtime: RuntimeID(rawValue: UInt64(i & 15) + 1),
                    detail: .transduce(cycle: UInt64(i), step: 0, event: label)))
        }
        let before = status("VmRSS:")
        // Three dumps alternated with three plain writes of as many bytes, medians reported: one
        // of each depended on what the page cache held (the plain write's time moved 3× between
        // runs).
        var dumps: [(wall: Double, user: Double, system: Double)] = []
        var writes: [Double] = []
        var bytes = 0
        for _ in 0..<3 {
            let start = (MonotonicClock.now(), usage())
            try recorder.write(to: file)
            let end = (MonotonicClock.now(), usage())
            dumps.append((Double(end.0 - start.0) / 1e9, end.1.user - start.1.user, end.1.system - start.1.system))
            bytes = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            unlink(file)
            writes.append(try plainWrite(bytes: bytes, to: file + ".write"))
            unlink(file + ".write")
        }
        let after = status("VmHWM:")
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        print(
            "rss_before_kb=\(before) hwm_after_kb=\(after) dump_s=\(median(dumps.map(\.wall))) "
                + "write_s=\(median(writes)) dump_user_s=\(median(dumps.map(\.user))) "
                + "dump_sys_s=\(median(dumps.map(\.system))) bytes=\(bytes) events=\(recorder.ring.capacity)")
        exit(0)
    }

    /// The calling thread's user and system CPU seconds so far (`RUSAGE_THREAD`).
    private static func usage() -> (user: Double, system: Double) {
        var u = rusage()
        getrusage(__rusage_who_t(1), &u)  // RUSAGE_THREAD, which Glibc's module does not export
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return (seconds(u.ru_utime), seconds(u.ru_stime))
    }

    /// Seconds to write `bytes` bytes to `path` with `write(2)` calls of 1 MiB (and close it).
    private static func plainWrite(bytes: Int, to path: String) throws -> Double {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        let block = [UInt8](repeating: 0x5A, count: 1 << 20)
        let start = MonotonicClock.now()
        var left = bytes
        while left > 0 {
            let n = block.withUnsafeBytes { write(fd, $0.baseAddress, min(left, $0.count)) }
            guard n > 0 else { close(fd); throw CocoaError(.fileWriteOutOfSpace) }
            left -= n
        }
        close(fd)
        return Double(MonotonicClock.now() - start) / 1e9
    }

    /// A `/proc/self/status` figure in KiB (`VmRSS:`, `VmHWM:`), or 0.
    private static func status(_ key: String) -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix(key) }
        return Int(line?.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
