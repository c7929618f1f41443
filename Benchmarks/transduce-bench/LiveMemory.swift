import Foundation
import TraceTooling
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `live_1m_rss_mb`: the peak resident memory of `trace-view live` (the viewer and its
/// babeltrace2 reader child together) while it watches a live session of about `events` events:
/// `TracedExample --repeat` runs the demo workload (128 events) over and over under
/// `trace-view live -- …`, whose plain view builds the panes of its window (the browser's model:
/// the last 50,000 events' requests, tasks and gates) every second. Each process's peak is its `VmHWM`, sampled every 50 ms until it exits
/// (a high-water mark: the last sample is the peak). `nil`, with the reason, when trace-view,
/// TracedExample or LTTng is not there.
func liveMemory(events: Int, traceView: String, example: String) throws -> (megabytes: Double, received: Int)? {
    guard FileManager.default.isExecutableFile(atPath: traceView), FileManager.default.isExecutableFile(atPath: example)
    else { return nil }
    guard LTTngSession.toolsMissing == nil, Subprocess.which("lttng-relayd") != nil else { return nil }
    let directory = NSTemporaryDirectory() + "transduce-bench-live-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let runs = max(1, events / 128)
    let child = try Subprocess.start(
        traceView,
        ["live", "--every", "1", "--output", directory, "--", example, "--repeat", String(runs), directory + ".ring"],
        errors: directory + ".errors")
    defer {
        try? FileManager.default.removeItem(atPath: directory + ".ring")
        try? FileManager.default.removeItem(atPath: directory + ".errors")
    }
    var peaks: [pid_t: Int] = [:]
    var output: [UInt8] = []
    var status: Int32 = 0
    while waitpid(child.pid, &status, WNOHANG) == 0 {
        for pid in [child.pid] + children(of: child.pid) { peaks[pid] = max(peaks[pid] ?? 0, highWaterKB(pid)) }
        var poller = pollfd(fd: child.output, events: Int16(POLLIN), revents: 0)
        if poll(&poller, 1, 50) > 0 {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(child.output, &chunk, chunk.count)
            if n > 0 { output += chunk[0..<n] }
        }
    }
    close(child.output)
    let text = String(decoding: output, as: UTF8.self)
    guard status == 0, let ended = text.split(separator: "\n").last(where: { $0.hasPrefix("live ended") }),
        let received = ended.split(separator: " ").firstIndex(of: "events,").map({ Int(ended.split(separator: " ")[$0 - 1]) })
            ?? nil
    else {
        let errors = (try? String(contentsOfFile: directory + ".errors", encoding: .utf8)) ?? ""
        throw Subprocess.Failure("trace-view live failed (status \(status)): \(errors.suffix(400))")
    }
    return (Double(peaks.values.reduce(0, +)) / 1024, received)
}

/// The process's peak resident set (`VmHWM`) in KiB, or 0.
private func highWaterKB(_ pid: pid_t) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// The process's children that are trace-view (its reader child), not the watched command.
private func children(of pid: pid_t) -> [pid_t] {
    guard let list = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8) else { return [] }
    return list.split(separator: " ").compactMap { Int32($0) }.filter { child in
        ((try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)) ?? "").hasPrefix("trace-view")
    }
}
