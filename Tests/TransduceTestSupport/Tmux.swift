import Foundation
import Testing
import TraceTooling
import Transduce

@testable import TransduceTrace

/// trace-view's terminal UI in a real terminal: tmux sessions of their own, screens captured once settled.
package enum Tmux {
    package static let tmux = Subprocess.which("tmux")
    package static var available: Bool {
        if tmux == nil { print("TUI tests skipped: tmux is not installed (scripts/bootstrap.sh installs it)") }
        return tmux != nil
    }

    /// One tmux server (its own socket) with one session running `trace-view tui` in a shell
    /// that records `stty -a` before and after it, and its exit status.
    package struct Session {
        package let socket = "trace-view-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        package let dir = TemporaryDirectory()
        package init() {}

        package func tmux(_ arguments: [String]) throws -> String {
            let result = try Subprocess.run(
                Tmux.tmux!, ["-L", socket, "-f", "/dev/null"] + arguments, output: .capture, timeout: 30)
            guard result.status == 0 else { throw Subprocess.Failure("tmux \(arguments) failed: \(result.output)") }
            return result.output
        }

        package func start(_ trace: String, environment: String = "", columns: Int = 120, rows: Int = 40) throws {
            try run("tui \(trace)", environment: environment, columns: columns, rows: rows)
        }

        /// Runs `trace-view ARGUMENTS` (a shell's words) in the session, with `environment`
        /// (`NAME=VALUE` words) set for it, in a window of `columns` × `rows`.
        package func run(_ arguments: String, environment: String = "", columns: Int = 120, rows: Int = 40) throws {
            let binary = try #require(builtProduct("trace-view"))
            let script =
                "stty -a > \(dir.file("before")); \(environment) \(binary) \(arguments); echo $? > \(dir.file("status")); "
                + "stty -a > \(dir.file("after")); sleep 600"
            _ = try tmux(["new-session", "-d", "-s", "ui", "-x", "\(columns)", "-y", "\(rows)", "/bin/sh", "-c", script])
        }

        package func keys(_ keys: String...) throws { _ = try tmux(["send-keys", "-t", "ui"] + keys) }

        package func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", "ui"]) }

        /// How long a wait on the UI may take: a debug trace-view beside the suite's other child
        /// processes (Chromium, PlantUML's JVM) on two busy cores once took more than 20 s to
        /// draw its first screen. The tests' own time limits stay the bound on a hang.
        package static let patience: TimeInterval = 90 * Patience.factor

        /// The screen once it contains `text` (and each of `more`) and has settled (unless not
        /// `settled`: the first capture that contains them) (the UI redraws after each key;
        /// waiting for what the key must show, not for a time). Settled: two captures in a row
        /// are the same, so a frame the terminal has only partly received (on a busy machine)
        /// is not taken for the whole.
        package func screen(
            containing text: String, _ more: String..., settled: Bool = true,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> String {
            try await screen(containingAll: [text] + more, settled: settled, sourceLocation: sourceLocation)
        }

        /// What the browser's header shows once it has read the whole trace: its tabs end with
        /// the keys' hint; until then the header shows its progress ("reading …", "finding the
        /// largest parts"), for seconds on a loaded machine.
        package static let loaded = "| ? keys"

        /// The settled screen once it contains `text` (and each of `more`) and the browser has
        /// finished loading (``loaded``): what a golden compares. Keys pressed while it still
        /// loads are acted on, so a screen can hold what a key asked for and still change.
        package func loadedScreen(
            containing text: String, _ more: String..., sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> String {
            try await screen(containingAll: [Self.loaded, text] + more, settled: true, sourceLocation: sourceLocation)
        }

        private func screen(
            containingAll texts: [String], settled: Bool, sourceLocation: SourceLocation
        ) async throws -> String {
            let deadline = Date().addingTimeInterval(Self.patience)
            var last = ""
            var previous: String?
            while Date() < deadline {
                last = try screen()
                if texts.allSatisfy({ last.contains($0) }) {
                    if last == previous || !settled { return last }
                    previous = last
                } else {
                    previous = nil
                }
                try await Task.sleep(for: .milliseconds(30))
            }
            Issue.record("the screen never showed \(texts):\n\(last)", sourceLocation: sourceLocation)
            return last
        }

        /// The UI's exit status, once it has exited, and whether the terminal was put back.
        package func ended() async throws -> (status: Int32?, restored: Bool) {
            let deadline = Date().addingTimeInterval(Self.patience)
            while Date() < deadline {
                if let status = try? String(contentsOfFile: dir.file("status"), encoding: .utf8),
                    let after = try? String(contentsOfFile: dir.file("after"), encoding: .utf8), !after.isEmpty
                {
                    // The settings, not the size (a test may resize the window on purpose).
                    let settings = { (text: String) in text.replacing(/rows \d+; columns \d+;/, with: "") }
                    let before = try String(contentsOfFile: dir.file("before"), encoding: .utf8)
                    return (Int32(status.trimmingCharacters(in: .whitespacesAndNewlines)), settings(before) == settings(after))
                }
                try await Task.sleep(for: .milliseconds(30))
            }
            return (nil, false)
        }

        package func stop() { _ = try? tmux(["kill-server"]) }
    }
}
