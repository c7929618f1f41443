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
        guard let command = args.rest.first else { throw CLIError.usage("record needs a command after --") }
        guard args.positionals.isEmpty else { throw CLIError.usage("put the command after --") }
        let stamp = Int(Date().timeIntervalSince1970)
        let output = args.options["output"] ?? "transduce-trace-\(stamp)-\(getpid())"
        let directory = output.hasPrefix("/") ? output : FileManager.default.currentDirectoryPath + "/" + output
        guard let executable = command.contains("/") ? command : Subprocess.which(command),
            access(executable, X_OK) == 0
        else { throw CLIError.usage("cannot run \(command): not an executable file") }
        if let missing = LTTngSession.toolsMissing { throw CLIError.data(missing) }
        // The directory is this run's alone: mkdir is atomic, so of two runs given one --output
        // only the first gets it.
        guard mkdir(directory, 0o755) == 0 else {
            if errno == EEXIST { throw CLIError.usage("\(output) exists already; choose another --output") }
            throw CLIError.data("\(output): cannot create: \(String(cString: strerror(errno)))")
        }
        for stale in RecordSessions.destroyStale() {
            Terminal.error("trace-view: destroyed the LTTng session \(stale), left active by a trace-view that was killed")
        }
        // The tag marks this command's processes (they inherit it), so the trace shows them alone.
        let tag = "\(getpid())-\(stamp)-\(UInt32.random(in: 0...UInt32.max))"
        let name = RecordSessions.name(stamp: stamp)
        let recordFile = directory + "/" + TraceInput.recordFile
        let session: LTTngSession
        do {
            try "tag=\(tag)\ncommand=\(args.rest.joined(separator: " "))\n".write(
                toFile: recordFile, atomically: true, encoding: .utf8)
            session = try LTTngSession(name: name, output: directory, events: ["transduce:*"], contexts: ["vtid", "vpid"])
        } catch {
            throw CLIError.data("\(error)")
        }
        // Destroys the session if trace-view itself is killed (even with SIGKILL).
        let guardian = RecordSessions.guardSession(name)
        defer {
            session.destroy()
            guardian.release()
        }
        // Like system(3): Ctrl-C ends the command, and trace-view stays to stop the session.
        let previousInterrupt = signal(SIGINT, SIG_IGN)
        let previousQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, previousInterrupt)
            signal(SIGQUIT, previousQuit)
        }
        let status: Int32
        do {
            try session.start()
            // TRANSDUCE_LTTNG=required: a recorder that cannot reach LTTng says why on stderr.
            status = try Subprocess.run(
                executable, Array(args.rest.dropFirst()),
                environment: ["TRANSDUCE_RECORD_TAG": tag, LTTngProvider.environmentVariable: "required"]
            ).status
            try session.stop()
        } catch {
            throw CLIError.data("\(error)")
        }
        var events = 0
        do {
            _ = try CTFChild.read(path: directory, recordTag: tag) { _ in events += 1 }
        } catch {
            // An empty LTTng output is not a readable trace: that is the case reported below.
        }
        guard events > 0 else {
            let ended = status == 0 ? "" : " (it exited with status \(status))"
            throw CLIError(
                message: "\(command) recorded no transduce events\(ended). Either it makes no TraceRecorder, or the "
                    + "recorder could not load LTTng-UST (see its error output), or TRANSDUCE_LTTNG=off is set; "
                    + "the trace directory \(output) holds nothing of it",
                status: status == 0 ? ExitStatus.recordedNothing.rawValue : status)
        }
        Terminal.error(
            "trace-view: LTTng trace of \(events) events kept in \(output); view it with: trace-view summary \(output)")
        if status != 0 { throw CLIError(message: "\(command) exited with status \(status)", status: status) }
    }
}
