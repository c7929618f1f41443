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
/// with plain `write(2)` calls of 1 MiB, and prints one line:
///
///     rss_before_kb=… hwm_after_kb=… dump_s=… write_s=… bytes=… events=…
///
/// `hwm_after_kb − rss_before_kb` is what the dump added to the process's peak (the ring itself is
/// resident before it starts); the dump's and the write's seconds are their threads' CPU time
/// plus the time waiting for the disk, as wall time. Both files are removed afterwards.
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
        let dumpStart = MonotonicClock.now()
        try recorder.write(to: file)
        let dumpSeconds = Double(MonotonicClock.now() - dumpStart) / 1e9
        let after = status("VmHWM:")
        let bytes = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        unlink(file)
        let writeSeconds = try plainWrite(bytes: bytes, to: file + ".write")
        unlink(file + ".write")
        print(
            "rss_before_kb=\(before) hwm_after_kb=\(after) dump_s=\(dumpSeconds) write_s=\(writeSeconds) bytes=\(bytes) "
                + "events=\(recorder.ring.capacity)")
        exit(0)
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
