import Foundation
import TraceInputs
import TraceTooling
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
        options: [
            OptionSpec("output", "DIR", "Where to keep the trace (default ./transduce-trace-<time>-<pid>)"),
            .flag("allow-loss", "Exit with the command's status even when LTTng discarded events"),
            OptionSpec(
                "subbuf-size", "BYTES", "A channel of the session's own: sub-buffers of BYTES (a power of two, 4096 and up)"),
            OptionSpec("num-subbuf", "N", "A channel of the session's own: N sub-buffers (a power of two, 2 and up)"),
            OptionSpec("read-timer", "US", "A channel of the session's own: the consumer reads every US microseconds"),
        ],
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

            LTTng discards events when its channel is full (its consumer daemon did not keep up with
            a burst): record then says how many and exits 79, unless --allow-loss is given (the
            trace holds the rest either way; every view counts the discarded events). The session
            uses LTTng's default channel (4 sub-buffers of 512 KiB per CPU for user space, measured
            lossless here for 1,024,000 events of the demo workload, 3 runs of 3); --subbuf-size,
            --num-subbuf and --read-timer give it a channel of its own.
            """,
        epilogue:
            "Exits with the command's status; 69 when it ran but recorded no transduce event; when LTTng could not "
            + "record: 74 the trace's file system filled up, 75 LTTng's consumer daemon went away, 71 its session "
            + "daemon went away, 65 the trace it wrote cannot be read (each says what became of the trace); 79 LTTng "
            + "discarded events and --allow-loss was not given.")

    static func run(_ args: Arguments) throws {
        let channel = try channel(args)
        let recording = try RecordSessions.prepare(args, for: "record") { "transduce-trace-\($0)-\(getpid())" }
        // Destroys the session if trace-view itself is killed (even with SIGKILL). Started before
        // the session exists: a kill between creating the session and starting its guard would
        // leave the session running until the next record sweeps it.
        let guardian = RecordSessions.guardSession(recording.name)
        defer { guardian.release() }
        let session: LTTngSession
        do {
            session = try LTTngSession(
                name: recording.name, output: recording.directory, events: ["transduce:*"], contexts: ["vtid", "vpid"],
                channel: channel)
        } catch {
            throw CLIError.data("\(error)")
        }
        defer { session.destroy() }
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
        var discarded: UInt64 = 0
        var lossesUnknown = false
        do {
            let read = try CTFChild.read(path: recording.directory, recordTag: recording.tag) { _ in events += 1 }
            discarded = read.counts?.discarded ?? 0
            lossesUnknown = read.lossesUnknown
        } catch {
            readError = (error as? CLIError)?.message ?? "\(error)"
        }
        let seen = RecordFailure.Observation(
            available: RecordFailure.available(at: recording.directory), stopFailed: stopFailed,
            sessionDaemonAnswers: !stopFailed || RecordFailure.sessionDaemonAnswers(),
            consumersAtStart: consumers.count, consumersLeft: consumers.count { !processEnded($0) }, readError: readError,
            events: events, streamBytes: RecordFailure.streamBytes(under: recording.directory))
        switch RecordFailure.diagnose(seen) {
        case .nothingRecorded:
            throw RecordSessions.recordedNothing(
                recording.command, status: status, discarded: discarded, lossesUnknown: lossesUnknown,
                detail: "; the trace directory \(recording.output) holds nothing of it")
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
        if discarded > 0 || lossesUnknown {
            let what =
                discarded > 0 ? "LTTng discarded \(discarded) events" : "LTTng lost packets of events (how many it does not say)"
            let why = "\(what) while \(recording.command) ran: its channel was full (the consumer daemon did not keep up)"
            guard args.flag("allow-loss") else {
                throw CLIError(
                    "\(why); the trace in \(recording.output) holds the rest. Record with a larger channel "
                        + "(--subbuf-size, --num-subbuf), or accept the loss with --allow-loss", .eventsLost)
            }
            Terminal.error("trace-view: note: \(why) (--allow-loss)")
        }
        if status != 0 { throw CLIError(message: "\(recording.command) exited with status \(status)", status: status) }
    }

    /// The session's own channel, when any of its options is given (else LTTng's default).
    static func channel(_ args: Arguments) throws -> LTTngSession.Channel? {
        let size = try args.integer("subbuf-size")
        let count = try args.integer("num-subbuf")
        let timer = try args.integer("read-timer")
        guard size != nil || count != nil || timer != nil else { return nil }
        let bytes = Int(size ?? 1 << 19)
        let buffers = Int(count ?? 4)
        guard bytes >= 4_096, bytes <= 1 << 30, bytes & (bytes - 1) == 0 else {
            throw CLIError.usage("--subbuf-size takes a power of two from 4096 to 2^30 bytes, not \(bytes)")
        }
        guard buffers >= 2, buffers <= 1 << 16, buffers & (buffers - 1) == 0 else {
            throw CLIError.usage("--num-subbuf takes a power of two from 2 to 65536, not \(buffers)")
        }
        guard (timer ?? 0) <= 60_000_000 else { throw CLIError.usage("--read-timer takes at most 60000000 microseconds") }
        return LTTngSession.Channel(subbufferSize: bytes, subbuffers: buffers, discard: true, readTimer: timer.map { Int($0) })
    }
}
