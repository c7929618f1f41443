import Foundation
import TransduceTrace

/// The LTTng sessions of `trace-view record`: named `trace-view-PID-STAMP`, so that a session
/// left behind by a killed trace-view is known by its dead PID.
enum RecordSessions {
    static let prefix = "trace-view-"

    static func name(stamp: Int) -> String { "\(prefix)\(getpid())-\(stamp)" }

    /// Destroys the sessions whose trace-view no longer runs; returns their names.
    static func destroyStale() -> [String] {
        guard let lttng = Subprocess.which("lttng"),
            let listing = try? Subprocess.run(lttng, ["list"], output: .capture, timeout: LTTngSession.callTimeout),
            listing.status == 0
        else { return [] }
        var destroyed: [String] = []
        // Lines like "  1) trace-view-4242-1764583200 [active]".
        for line in listing.output.split(separator: "\n") {
            guard let start = line.range(of: prefix) else { continue }
            let name = line[start.lowerBound...].prefix { !$0.isWhitespace }
            let parts = name.dropFirst(prefix.count).split(separator: "-")
            guard parts.count == 2, let pid = Int32(parts[0]), pid != getpid() else { continue }
            guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
            if (try? Subprocess.run(
                lttng, ["destroy", "--no-wait", String(name)], output: .discard, timeout: LTTngSession.callTimeout))?
                .status
                == 0
            {
                destroyed.append(String(name))
            }
        }
        return destroyed
    }

    /// A watcher process that destroys session `name` once trace-view is gone, however it ends
    /// (even SIGKILL). It watches trace-view's pid rather than a pipe: a pipe's end can be held
    /// open by any process that inherited it, and then the watcher would never see the end.
    /// ``Guardian/release()`` stops it when trace-view destroyed the session itself.
    static func guardSession(_ name: String) -> Guardian {
        guard let lttng = Subprocess.which("lttng") else { return Guardian(pid: 0) }
        // `--no-wait`: a session whose trace-view is gone need not wait for its data to be
        // flushed, and once such a destroy waited on an LTTng consumer that never answered.
        let script =
            "trap '' INT QUIT; while kill -0 \"$2\" 2>/dev/null; do sleep 0.2; done; exec \"$0\" destroy --no-wait \"$1\""
        let watcher = try? Subprocess.startWatcher("/bin/sh", ["-c", script, lttng, name, String(getpid())])
        return Guardian(pid: watcher ?? 0)
    }

    struct Guardian {
        let pid: pid_t
        /// Stops the watcher (trace-view has destroyed the session) and reaps it.
        func release() {
            guard pid > 0 else { return }
            kill(pid, SIGTERM)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }
}
