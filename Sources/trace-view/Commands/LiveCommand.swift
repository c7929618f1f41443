import Dispatch
import Foundation
import Synchronization
import TransduceTrace
import TransduceTraceCTF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `trace-view live`: an LTTng live session read while it is recorded, through a relay daemon.
///
/// Three forms: `live URL` reads a session a relay daemon offers, `live --list [URL]` lists them,
/// and `live -- COMMAND` records COMMAND under a live session of its own (with a relay daemon of
/// its own, ``LiveRelay``) and keeps the trace like `record`. What it shows is a ``LiveTally``,
/// printed as one plain line every `--every` seconds and once more when the session ends.
enum LiveCommand: Subcommand {
    static let spec = CommandSpec(
        name: "live", abstract: "Watch a running service through an LTTng live session",
        options: [
            .flag("list", "List the sessions the relay daemon at URL offers (default net://127.0.0.1)"),
            OptionSpec("every", "SECONDS", "Print the running totals every SECONDS (default 1; 0.1 to 3600)"),
            OptionSpec("output", "DIR", "With -- COMMAND: where to keep the trace (default ./transduce-live-<time>-<pid>)"),
        ],
        arguments: "URL | -- COMMAND [ARG...]",
        discussion: """
            Reads the transduce:* events of an LTTng live session while it is recorded, from a
            relay daemon (lttng-relayd): URL is net://HOST[:PORT]/host/HOSTNAME/SESSION, as
            --list shows it. Every --every seconds it prints one line: the time since the first
            event, the events so far, the runtimes, the awaited dispatches still waiting, the
            deepest queue and the count of each event kind; the span is from the first event to
            the latest. When the session ends (it is
            destroyed) it prints the totals once more and exits; Ctrl-C stops watching.

            With -- COMMAND it starts a relay daemon of its own on loopback, a live session that
            enables transduce:* with the vtid and vpid contexts, runs COMMAND (which needs a
            TraceRecorder) and shows it live; when COMMAND ends it destroys the session, stops the
            daemon and keeps the trace in DIR, readable by every other command.

            Several hosts: start one relay daemon, create each host's session with
            `lttng create NAME --live --set-url=net://RELAY-HOST`, and watch each with its URL
            (live --list net://RELAY-HOST shows them all, host by host).
            """,
        epilogue:
            "Exits 0 when the session ended; with -- COMMAND, the command's status (69 when it recorded nothing); 65 when the relay daemon or the session cannot be read."
    )

    static func run(_ args: Arguments) throws {
        guard CTFTraceReader.isAvailable else { throw CLIError.data("this trace-view was built without libbabeltrace2") }
        let every = try interval(args.options["every"])
        if args.flag("list") {
            guard args.rest.isEmpty, args.positionals.count <= 1 else { throw CLIError.usage("--list takes one URL at most") }
            return try list(args.positionals.first ?? "net://127.0.0.1")
        }
        if !args.rest.isEmpty {
            guard args.positionals.isEmpty else { throw CLIError.usage("put the command after --, and no URL") }
            return try record(args, every: every)
        }
        guard args.positionals.count == 1, let url = args.positionals.first else {
            throw CLIError.usage("live needs a URL, --list, or -- COMMAND")
        }
        guard url.hasPrefix("net://") || url.hasPrefix("net4://") || url.hasPrefix("net6://") else {
            throw CLIError.usage("\(url) is not a live URL (net://HOST[:PORT]/host/HOSTNAME/SESSION)")
        }
        let tally = try watch(url: url, every: every, recordTag: nil)
        if tally.events == 0 { Terminal.error("trace-view: the session ended without a transduce event") }
    }

    static func interval(_ value: String?) throws -> Double {
        guard let value else { return 1 }
        guard let seconds = Double(value), seconds >= 0.1, seconds <= 3600 else {
            throw CLIError.usage("--every takes seconds from 0.1 to 3600, not \(value)")
        }
        return seconds
    }

    static func list(_ url: String) throws {
        let sessions: [CTFTraceReader.LiveSession]
        do {
            sessions = try CTFTraceReader.liveSessions(url: url)
        } catch {
            throw CLIError.data("\(error)")
        }
        guard !sessions.isEmpty else { return Terminal.print(["no live sessions at \(url)"]) }
        Terminal.print(
            sessions.map { "\($0.url)  (host \($0.hostname), \($0.streams) streams, \($0.clients) readers connected)" })
    }

    /// Reads the live session at `url` until it ends, printing the tally every `every` seconds.
    static func watch(url: String, every: Double, recordTag: String?) throws -> LiveTally {
        let state = Mutex(LiveTally())
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.schedule(deadline: .now() + every, repeating: every)
        timer.setEventHandler {
            let tally = state.withLock { $0 }
            if tally.events > 0 { Terminal.print([line(tally, ended: false)]) }
        }
        timer.resume()
        let result: (notes: [String], counts: TraceCounts?, hosts: [UInt32: String], lossesUnknown: Bool)
        do {
            result = try CTFChild.read(path: url, recordTag: recordTag, live: true) { event in
                state.withLock { $0.add(event) }
            }
        } catch {
            timer.cancel()
            throw error
        }
        timer.cancel()
        let tally = state.withLock { $0 }
        Terminal.print([line(tally, ended: true)])
        for note in result.notes.prefix(20) { Terminal.error("trace-view: note: \(note)") }
        return tally
    }

    /// One plain line of running totals.
    static func line(_ tally: LiveTally, ended: Bool) -> String {
        let kinds = tally.kindsSeen.map { "\($0)=\(tally.count(of: $0))" }.joined(separator: " ")
        return (ended ? "live ended, " : "live, ") + "span \(formatDuration(tally.lastTime &- tally.firstTime, ascii: true))"
            + ": \(tally.events) events, \(tally.runtimes.count) runtimes, \(tally.inFlight.count) waiting, "
            + "max queue \(tally.maxQueueDepth); \(kinds)"
    }

    /// `live -- COMMAND`.
    static func record(_ args: Arguments, every: Double) throws {
        if let missing = LiveRelay.toolMissing { throw CLIError.data(missing) }
        let recording = try RecordSessions.prepare(args, for: "live") { "transduce-live-\($0)-\(getpid())" }
        let relay = try LiveRelay.start(output: recording.directory)
        defer { relay.stop() }
        let session: LTTngSession
        do {
            session = try LTTngSession(
                name: recording.name, output: recording.directory, events: ["transduce:*"], contexts: ["vtid", "vpid"],
                live: relay.sessionURL)
        } catch {
            throw CLIError.data("\(error)")
        }
        let guardian = RecordSessions.guardSession(recording.name)
        var destroyed = false
        defer {
            if !destroyed { session.destroy() }
            guardian.release()
        }
        let url = relay.liveURL(session: recording.name)
        Terminal.error("trace-view: watching \(url)")
        let (status, tally): (Int32, LiveTally) = try RecordSessions.ignoringInterrupts {
            do { try session.start() } catch { throw CLIError.data("\(error)") }
            // The watcher runs beside the command and ends when the session is destroyed.
            let watched = Mutex<Result<LiveTally, any Error>?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let result = Result { try watch(url: url, every: every, recordTag: recording.tag) }
                watched.withLock { $0 = result }
                done.signal()
            }
            let status: Int32
            do {
                status = try Subprocess.run(
                    recording.executable, Array(args.rest.dropFirst()),
                    environment: ["TRANSDUCE_RECORD_TAG": recording.tag, LTTngProvider.environmentVariable: "required"]
                ).status
                try session.stop()
            } catch {
                throw CLIError.data("\(error)")
            }
            // Destroying the session ends the live stream once its last data is read.
            session.destroy()
            destroyed = true
            done.wait()
            return (status, try watched.withLock { $0! }.get())
        }
        guard tally.events > 0 else { throw RecordSessions.recordedNothing(recording.command, status: status) }
        Terminal.error(
            "trace-view: LTTng trace kept in \(recording.output); view it with: trace-view summary \(recording.output)")
        if status != 0 { throw CLIError(message: "\(recording.command) exited with status \(status)", status: status) }
    }
}
