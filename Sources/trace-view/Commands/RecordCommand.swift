import Foundation
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `trace-view record`: a command run under an LTTng session made for it.
enum RecordCommand: Subcommand {
    static let spec = CommandSpec(
        name: "record", abstract: "Run a command under an LTTng session and keep the CTF trace",
        options: [OptionSpec("output", "DIR", "Where to keep the trace (default ./transduce-trace-<time>-<pid>)")],
        arguments: "-- COMMAND [ARG...]",
        discussion: """
            Runs COMMAND under an LTTng session made for it (starting lttng-sessiond when none
            answers), with transduce:* enabled and the vtid and vpid contexts, and keeps the CTF
            trace in DIR (it must not exist, and two runs never share one). The command needs a
            TraceRecorder (TRANSDUCE_TRACE, or one in code); it runs with TRANSDUCE_LTTNG=required,
            so a recorder that cannot load LTTng-UST says why. The trace shows COMMAND's processes
            only (its children too): reading DIR with --all-processes shows everything the session
            caught. Ctrl-C ends the command; trace-view then stops the session and keeps what was
            recorded. The session is destroyed even when trace-view itself is killed, and sessions
            left by a killed trace-view are destroyed (and named) by the next record.
            """,
        epilogue: "Exits with the command's status; 69 when it ran but recorded no transduce event.")

    static func run(_ args: Arguments) throws {
        let recording = try RecordSessions.prepare(args, for: "record") { "transduce-trace-\($0)-\(getpid())" }
        let session: LTTngSession
        do {
            session = try LTTngSession(
                name: recording.name, output: recording.directory, events: ["transduce:*"], contexts: ["vtid", "vpid"])
        } catch {
            throw CLIError.data("\(error)")
        }
        // Destroys the session if trace-view itself is killed (even with SIGKILL).
        let guardian = RecordSessions.guardSession(recording.name)
        defer {
            session.destroy()
            guardian.release()
        }
        let status: Int32 = try RecordSessions.ignoringInterrupts {
            do {
                try session.start()
                let status = try Subprocess.run(
                    recording.executable, Array(args.rest.dropFirst()),
                    environment: recording.environment
                ).status
                try session.stop()
                return status
            } catch {
                throw CLIError.data("\(error)")
            }
        }
        var events = 0
        do {
            _ = try CTFChild.read(path: recording.directory, recordTag: recording.tag) { _ in events += 1 }
        } catch {
            // An empty LTTng output is not a readable trace: that is the case reported below.
        }
        guard events > 0 else {
            throw RecordSessions.recordedNothing(
                recording.command, status: status, detail: "; the trace directory \(recording.output) holds nothing of it")
        }
        Terminal.error(
            "trace-view: LTTng trace of \(events) events kept in \(recording.output); view it with: trace-view summary \(recording.output)"
        )
        if status != 0 { throw CLIError(message: "\(recording.command) exited with status \(status)", status: status) }
    }
}
