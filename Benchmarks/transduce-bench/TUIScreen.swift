import Foundation
import TraceTooling
import Transduce
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#endif

/// The `view_tui_*_screen_<size>` figures: `trace-view tui` opened on a generated trace in a
/// real terminal (tmux, 200 × 50), with no index beside the trace (the first time a trace is
/// opened): wall seconds until the first rows are on the screen, until the whole trace is read
/// and shown, and the UI's peak resident memory (`VmHWM`) by then. Wall time, because that is
/// what a user waits; the machine's load moves it.
enum TUIScreen {
    /// The figures for `trace`, or why they could not be had.
    static func figures(traceView: String, trace: String, size: String) -> Result<[Figure], Failure> {
        guard let tmux = Subprocess.which("tmux") else { return .failure(Failure("tmux is not installed")) }
        try? FileManager.default.removeItem(atPath: trace + ".tdidx")
        let socket = "transduce-bench-\(getpid())"
        func run(_ arguments: [String]) -> String? {
            guard
                let r = try? Subprocess.run(tmux, ["-L", socket, "-f", "/dev/null"] + arguments, output: .capture, timeout: 30),
                r.status == 0
            else { return nil }
            return r.output
        }
        defer { _ = run(["kill-server"]) }
        let start = MonotonicClock.now()
        guard run(["new-session", "-d", "-s", "ui", "-x", "200", "-y", "50", "\(traceView) tui \(trace); sleep 900"]) != nil
        else { return .failure(Failure("tmux could not start trace-view")) }
        var firstRows: Double?
        let deadline = start + 900 * 1_000_000_000
        while MonotonicClock.now() < deadline {
            guard let screen = run(["capture-pane", "-p", "-t", "ui"]) else { break }
            let seconds = Double(MonotonicClock.now() - start) / 1e9
            let header = screen.split(separator: "\n").first ?? ""
            // A request row: its runtime named with its process.
            if firstRows == nil, screen.contains("(pid ") { firstRows = seconds }
            if firstRows != nil, !header.contains("| reading"), !header.contains("| finding"), header.contains(" events,") {
                let rss = peakMB(ofChildOf: run(["display-message", "-p", "-t", "ui", "#{pane_pid}"]))
                return .success([
                    Figure(key: "view_tui_first_screen_\(size)_s", value: firstRows!, min: 0, max: 0, unit: "s"),
                    Figure(key: "view_tui_whole_screen_\(size)_s", value: seconds, min: 0, max: 0, unit: "s"),
                    Figure(key: "view_tui_screen_\(size)_rss_mb", value: rss ?? 0, min: 0, max: 0, unit: "MB"),
                ])
            }
            usleep(20_000)  // between two captures of the screen: a poll, not a wait for an outcome
        }
        return .failure(Failure("the screen never showed the whole trace"))
    }

    struct Failure: Error {
        var why: String
        init(_ why: String) { self.why = why }
    }

    /// The peak resident memory of the shell `pid`'s child (trace-view), in MB.
    private static func peakMB(ofChildOf pid: String?) -> Double? {
        guard let pid = pid?.trimmingCharacters(in: .whitespacesAndNewlines),
            let children = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8),
            let child = children.split(separator: " ").first,
            let status = try? String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Double($0) }.map { $0 / 1024 }
    }
}
