import Foundation
import TraceInputs
import TraceTooling
import TransduceTrace
import TransduceTraceCTF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A relay daemon of `trace-view live -- COMMAND`'s own: `lttng-relayd` on three loopback ports
/// nobody else uses, keeping what it receives in `output`. Its own, so that the trace lands where
/// the user asked and a relay daemon someone else runs is never touched; it is stopped (and
/// reaped) at the end, and dies with trace-view if trace-view is killed.
struct LiveRelay {
    let pid: pid_t
    /// Stops the daemon if trace-view is gone, however it ended.
    let watcher: pid_t
    let controlPort: Int
    let dataPort: Int
    let livePort: Int

    /// Seconds the daemon may take to listen.
    static let startTimeout = 20.0

    static var toolMissing: String? {
        Subprocess.which("lttng-relayd") == nil ? "lttng-relayd is not installed (scripts/bootstrap.sh installs it)" : nil
    }

    /// Starts the daemon and waits until its live port accepts connections.
    static func start(output: String) throws -> LiveRelay {
        guard let relayd = Subprocess.which("lttng-relayd") else { throw CLIError.data(toolMissing!) }
        let ports: [Int]
        do { ports = try Loopback.freePorts(3) } catch { throw CLIError.data("\(error)") }
        let pid = try Subprocess.startWatcher(
            relayd,
            [
                "-C", "tcp://127.0.0.1:\(ports[0])", "-D", "tcp://127.0.0.1:\(ports[1])", "-L",
                "tcp://127.0.0.1:\(ports[2])", "-o", output,
            ])
        let script = "trap '' INT QUIT; while kill -0 \"$1\" 2>/dev/null; do sleep 0.2; done; kill \"$2\""
        let watcher = (try? Subprocess.startWatcher("/bin/sh", ["-c", script, "sh", String(getpid()), String(pid)])) ?? 0
        let relay = LiveRelay(pid: pid, watcher: watcher, controlPort: ports[0], dataPort: ports[1], livePort: ports[2])
        let deadline = Date().addingTimeInterval(startTimeout)
        while !Loopback.accepts(port: ports[2]) {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw CLIError.data("lttng-relayd exited at once (status \(status)); is another one using its ports?")
            }
            guard Date() < deadline else {
                relay.stop()
                throw CLIError.data("lttng-relayd did not listen within \(Int(startTimeout)) s")
            }
            usleep(20_000)
        }
        return relay
    }

    /// Where a session sends its streams (`lttng create --set-url`).
    var sessionURL: String { "net://127.0.0.1:\(controlPort):\(dataPort)" }

    /// The live URL of `session`, recorded on this host.
    func liveURL(session: String) -> String { "net://127.0.0.1:\(livePort)/host/\(Self.hostname)/\(session)" }

    /// Seconds a live reader may take to attach to a session.
    static let attachTimeout = 20.0

    /// Waits until a live reader is attached to `session` (the daemon counts it), or `ended`
    /// says the reader gave up.
    func awaitReader(session: String, ended: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(Self.attachTimeout)
        while true {
            let sessions = (try? LiveListing.sessions(url: "net://127.0.0.1:\(livePort)")) ?? []
            if sessions.contains(where: { $0.name == session && $0.clients > 0 }) { return }
            guard !ended() else { throw CLIError.data("the live reader of \(session) ended before it attached") }
            guard Date() < deadline else {
                throw CLIError.data("no live reader attached to \(session) within \(Int(Self.attachTimeout)) s")
            }
            usleep(100_000)
        }
    }

    /// Whether the daemon has ended (it is a zombie, or gone), without reaping it.
    var ended: Bool { processEnded(pid) }

    /// Stops the daemon and reaps it.
    func stop() {
        for child in [pid, watcher] where child > 0 {
            kill(child, SIGTERM)
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        }
    }

    /// The name the session daemon gives this host in live URLs.
    static var hostname: String { TraceRecorder.hostName.isEmpty ? "localhost" : TraceRecorder.hostName }
}
