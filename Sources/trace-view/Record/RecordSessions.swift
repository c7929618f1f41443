import Foundation
import TraceInputs
import TraceTooling
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The LTTng sessions of `trace-view record`: named `trace-view-PID-STAMP`, so that a session
/// left behind by a killed trace-view is known by its dead PID.
enum RecordSessions {
    static let prefix = "trace-view-"

    static func name(stamp: Int) -> String { "\(prefix)\(getpid())-\(stamp)" }

    /// What `record` and `live -- COMMAND` prepare before their session: the command to run, the
    /// trace's directory (made here, this run's alone), the session's name, and the tag that marks
    /// the command's processes (written with the command line to the directory's record file).
    struct Recording {
        let command: String
        let executable: String
        let output: String
        let directory: String
        let name: String
        let tag: String

        /// The command's environment: the tag its processes carry into the trace, and a recorder
        /// required to reach LTTng (one that cannot says why on its standard error).
        var environment: [String: String] { ["TRANSDUCE_RECORD_TAG": tag, LTTngProvider.environmentVariable: "required"] }
    }

    /// Checks the command after `--` and the tools, makes the output directory (`--output`, else
    /// `defaultOutput`), destroys sessions left by a killed trace-view, and writes the record file.
    static func prepare(_ args: Arguments, for verb: String, defaultOutput: (Int) -> String) throws -> Recording {
        guard let command = args.rest.first else { throw CLIError.usage("\(verb) needs a command after --") }
        guard args.positionals.isEmpty else { throw CLIError.usage("put the command after --") }
        let stamp = Int(Date().timeIntervalSince1970)
        let output = args.options["output"] ?? defaultOutput(stamp)
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
        for stale in destroyStale() {
            Terminal.error("trace-view: destroyed the LTTng session \(stale), left active by a trace-view that was killed")
        }
        // The tag marks this command's processes (they inherit it), so the trace shows them alone.
        let tag = "\(getpid())-\(stamp)-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try "tag=\(tag)\ncommand=\(Escaping.oneLine(args.rest.joined(separator: " ")))\n".write(
                toFile: directory + "/" + TraceInput.recordFile, atomically: true, encoding: .utf8)
        } catch {
            throw CLIError.data("\(error)")
        }
        return Recording(
            command: command, executable: executable, output: output, directory: directory, name: name(stamp: stamp),
            tag: tag)
    }

    /// Runs `body` with SIGINT and SIGQUIT ignored, like system(3): Ctrl-C ends the command, and
    /// trace-view stays to stop the session.
    static func ignoringInterrupts<R>(_ body: () throws -> R) rethrows -> R {
        let previousInterrupt = signal(SIGINT, SIG_IGN)
        let previousQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, previousInterrupt)
            signal(SIGQUIT, previousQuit)
        }
        return try body()
    }

    /// The error of a command that left no transduce event in the trace (it exited with
    /// `status`): LTTng's loss when it discarded events meanwhile (`discarded`, or
    /// `lossesUnknown`: packets lost, how many events it does not say), exit 79; else the app's
    /// (it recorded none), exit 69 or its own status.
    static func recordedNothing(
        _ command: String, status: Int32, discarded: UInt64 = 0, lossesUnknown: Bool = false, detail: String = ""
    ) -> CLIError {
        let ended = status == 0 ? "" : " (it exited with status \(status))"
        if discarded > 0 || lossesUnknown {
            // The session records every traced process of the user into the same channel, so its
            // discards may be other programs' as well: they are counted, not attributed.
            let what = discarded > 0 ? "\(discarded) events" : "packets of events (how many it does not say)"
            return CLIError(
                "the trace holds none of the events \(command) recorded\(ended): LTTng discarded \(what) meanwhile, "
                    + "its channel being full (the consumer daemon did not keep up; the session records every traced "
                    + "process of the user, so some may be other programs'). Record with a larger channel "
                    + "(--subbuf-size, --num-subbuf); --allow-loss does not make an empty trace a success",
                .eventsLost)
        }
        return CLIError(
            message: "\(command) recorded no transduce events\(ended). Either it makes no TraceRecorder, or the "
                + "recorder could not load LTTng-UST (see its error output), or TRANSDUCE_LTTNG=off is set" + detail,
            status: status == 0 ? ExitStatus.recordedNothing.rawValue : status)
    }

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
    /// ``Guardian/release()`` stops it when trace-view destroyed the session itself. Start it
    /// before creating the session; a session whose `lttng create` was still running when
    /// trace-view died is left to the next record's ``destroyStale()``.
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
