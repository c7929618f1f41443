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
        epilogue:
            "Exits with the command's status; 69 when it ran but recorded no transduce event; when LTTng could not "
            + "record: 74 the trace's file system filled up, 75 LTTng's consumer daemon went away, 71 its session "
            + "daemon went away, 65 the trace it wrote cannot be read (each says what became of the trace).")

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
        let (status, consumers, stopFailed): (Int32, [pid_t], Bool) = try RecordSessions.ignoringInterrupts {
            do {
                try session.start()
            } catch {
                throw CLIError.data("\(error)")
            }
            // The daemons that write this session's trace, to tell later whether they went away.
            let consumers = RecordFailure.consumerDaemons()
            let status: Int32
            do {
                status = try Subprocess.run(
                    recording.executable, Array(args.rest.dropFirst()), environment: recording.environment
                ).status
            } catch {
                throw CLIError.data("\(error)")
            }
            // A session daemon gone cannot stop its session: told below, with the rest.
            let stopFailed = (try? session.stop()) == nil
            return (status, consumers, stopFailed)
        }
        var events = 0
        var readError: String?
        do {
            _ = try CTFChild.read(path: recording.directory, recordTag: recording.tag) { _ in events += 1 }
        } catch {
            readError = (error as? CLIError)?.message ?? "\(error)"
        }
        let seen = RecordFailure.Observation(
            available: RecordFailure.available(at: recording.directory), stopFailed: stopFailed,
            sessionDaemonAnswers: !stopFailed || RecordFailure.sessionDaemonAnswers(),
            consumersAtStart: consumers.count, consumersLeft: consumers.count { !processEnded($0) }, readError: readError,
            events: events)
        switch RecordFailure.diagnose(seen) {
        case .nothingRecorded:
            throw RecordSessions.recordedNothing(
                recording.command, status: status, detail: "; the trace directory \(recording.output) holds nothing of it")
        case .some(let failure):
            let message = failure.message(
                command: recording.command, output: recording.output, events: events, readError: readError)
            // What was written before stays readable, marked as stopping early.
            if events > 0 { TraceInput.markIncomplete(recording.directory, why: message) }
            throw CLIError(message, failure.status)
        case nil:
            break
        }
        Terminal.error(
            "trace-view: LTTng trace of \(events) events kept in \(recording.output); view it with: trace-view summary \(recording.output)"
        )
        if status != 0 { throw CLIError(message: "\(recording.command) exited with status \(status)", status: status) }
    }
}
