import Dispatch
import Foundation
import TraceInputs
import TraceTooling
import Transduce
import TransduceTrace
import TransduceTraceCTF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `trace-view live`: LTTng live sessions read while they are recorded, through a relay daemon.
///
/// Three forms: `live URL...` reads sessions a relay daemon offers (a URL without a session:
/// every session it offers), `live --list [URL]` lists them, and `live -- COMMAND` records
/// COMMAND under a live session of its own (with a relay daemon of its own, ``LiveRelay``) and
/// keeps the trace like `record`. What it shows is ``LiveView``'s: the browser on a terminal,
/// plain lines otherwise.
enum LiveCommand: Subcommand {
    static let spec = CommandSpec(
        name: "live", abstract: "Watch a running service through LTTng live sessions",
        options: [
            .flag("list", "List the sessions the relay daemon at URL offers (default net://127.0.0.1)"),
            OptionSpec("every", "SECONDS", "Refresh every SECONDS (default 1; 0.1 to 3600)"),
            OptionSpec("window", "EVENTS", "Compute the panes from the last EVENTS events (default 50000; 1000 to 2000000)"),
            OptionSpec("output", "DIR", "With -- COMMAND: where to keep the trace (default ./transduce-live-<time>-<pid>)"),
            .flag("plain", "Plain lines even on a terminal"),
            OptionSpec(
                "timeout", "SECONDS",
                "Seconds a relay daemon has to answer each step: connect, list, attach, each read (default 10; 1 to 3600)"),
            OptionSpec(
                "max-sessions", "N", "With net://HOST: read at most N of the sessions it offers (default 8; 1 to 64)"),
            OptionSpec(
                "tag", "TAG",
                "With URLs: only the processes that run with TRANSDUCE_RECORD_TAG=TAG (a session sees every process of its user)"),
            OptionSpec.ascii, OptionSpec.noColor, OptionSpec.color,
        ],
        arguments: "URL... | -- COMMAND [ARG...]",
        discussion: """
            Reads the transduce:* events of LTTng live sessions while they are recorded, from a
            relay daemon (lttng-relayd). URL is net://HOST[:PORT]/host/HOSTNAME/SESSION, as --list
            shows it; net://HOST[:PORT] alone reads every session that relay daemon offers now.
            Several URLs (several sessions, hosts or relay daemons) are one view, each runtime
            shown with its host.

            On a terminal it opens the browser of `tui` on the stream: the header counts every
            event so far, what LTTng discarded, the requests still waiting and the state (live,
            paused, ended); the rule under it gives the requests' p99, the gate waits' p99 and
            the longest hold over everything. The panes are computed every --every seconds from
            the last --window events (requests still waiting first, then the slowest; tasks;
            each runtime's gate, with the cycle holding it now). p pauses the panes (the reading
            goes on), Enter opens a request's diagram, q quits (and stops reading). When the
            sessions end the view stays, marked ended, until q.

            Without a terminal (or with --plain) it prints two lines every --every seconds: the
            totals (the time since the first event, the events so far, the runtimes, the awaited
            dispatches still waiting, the deepest queue, those three aggregates and the count of
            each event kind) and the window's requests and busiest gate; when the sessions end
            (they are destroyed) it prints the totals once more and exits; Ctrl-C stops watching.

            With -- COMMAND it starts a relay daemon of its own on loopback, a live session that
            enables transduce:* with the vtid and vpid contexts, runs COMMAND (which needs a
            TraceRecorder) and shows it live; when COMMAND ends it destroys the session, stops the
            daemon and keeps the trace in DIR, readable by every other command. Under the browser,
            COMMAND's input is /dev/null and its output goes to DIR/command.log; q ends COMMAND
            (SIGTERM, then SIGKILL after 5 s) and keeps what was recorded.

            A relay daemon is a network peer and may misbehave: each step of talking to it
            (connecting, listing, attaching, each read) must be answered within --timeout seconds,
            or that session's reader stops with a clear error (and live exits 65); while no event
            has come, the plain view says what it waits for. net://HOST reads at most
            --max-sessions of the sessions it offers, and says how many it leaves out; the
            readers share one memory budget (TRANSDUCE_CTF_MEMORY_MB, 2048 by default).

            Several hosts: start one relay daemon, create each host's session with
            `lttng create NAME --live --set-url=net://RELAY-HOST`, and watch them all with
            `trace-view live net://RELAY-HOST` (live --list net://RELAY-HOST shows them, host by
            host).
            """,
        epilogue:
            "Exits 0 when the sessions ended or you quit; with -- COMMAND, the command's status (0 when you quit; 69 when it recorded nothing); 65 when a relay daemon or a session cannot be read, does not answer in time, or its reader stops mid-stream."
    )

    static func run(_ args: Arguments) throws {
        guard CTFTraceReader.isAvailable else { throw CLIError.data("this trace-view was built without libbabeltrace2") }
        if let timeout = args.options["timeout"] {
            guard let seconds = Double(timeout), seconds >= 1, seconds <= 3600 else {
                throw CLIError.usage("--timeout takes seconds from 1 to 3600, not \(timeout)")
            }
            // The reader children read it from the environment.
            setenv(LiveBudget.variable, String(seconds), 1)
        }
        let maxSessions = try maxSessions(args.options["max-sessions"])
        let view = LiveView(
            every: try interval(args.options["every"]), window: try window(args.options["window"]), plain: args.flag("plain"),
            ascii: args.flag("ascii"), palette: try TUICommand.palette(args))
        if args.flag("list") {
            guard args.rest.isEmpty, args.positionals.count <= 1 else { throw CLIError.usage("--list takes one URL at most") }
            return try list(args.positionals.first ?? "net://127.0.0.1")
        }
        if !args.rest.isEmpty {
            guard args.positionals.isEmpty else { throw CLIError.usage("put the command after --, and no URL") }
            guard args.options["tag"] == nil else {
                throw CLIError.usage("--tag goes with URLs: live -- COMMAND keeps its command's processes already")
            }
            return try record(args, view: view)
        }
        guard !args.positionals.isEmpty else { throw CLIError.usage("live needs a URL, --list, or -- COMMAND") }
        for url in args.positionals where !(url.hasPrefix("net://") || url.hasPrefix("net4://") || url.hasPrefix("net6://")) {
            throw CLIError.usage("\(url) is not a live URL (net://HOST[:PORT]/host/HOSTNAME/SESSION)")
        }
        let urls = try sessions(args.positionals, max: maxSessions)
        let title =
            "trace-view live " + (urls.count == 1 ? String(urls[0].split(separator: "/").last ?? "") : "\(urls.count) sessions")
        if let tag = args.options["tag"], tag.isEmpty { throw CLIError.usage("--tag needs a tag") }
        let watched = try view.watch(urls: urls, title: title, recordTag: args.options["tag"]) { $0.stop() }
        if watched.tally.events == 0 && !watched.quit {
            Terminal.error("trace-view: the session\(urls.count == 1 ? "" : "s") ended without a transduce event")
        }
    }

    /// Each URL's sessions: a session's URL itself, a relay daemon's URL every session it offers.
    /// A relay daemon's URL gives at most `max` of its sessions (each is a reader child), and
    /// says how many it leaves out.
    static func sessions(_ urls: [String], max: Int) throws -> [String] {
        var out: [String] = []
        for url in urls {
            if url.contains("/host/") {
                out.append(url)
                continue
            }
            let offered = try LiveListing.sessions(url: url)
            guard !offered.isEmpty else { throw CLIError.data("no live sessions at \(url)") }
            if offered.count > max {
                Terminal.error(
                    "trace-view: reading \(max) of the \(offered.count) sessions \(url) offers (--max-sessions \(max)); "
                        + "name the sessions' URLs (live --list \(url)) or raise --max-sessions")
            }
            out += offered.prefix(max).map(\.url)
        }
        // The same session named twice is read once.
        var seen = Set<String>()
        return out.filter { seen.insert($0).inserted }
    }

    static func maxSessions(_ value: String?) throws -> Int {
        guard let value else { return 8 }
        guard let n = Int(value), n >= 1, n <= 64 else {
            throw CLIError.usage("--max-sessions takes 1 to 64, not \(value)")
        }
        return n
    }

    static func interval(_ value: String?) throws -> Double {
        guard let value else { return 1 }
        guard let seconds = Double(value), seconds >= 0.1, seconds <= 3600 else {
            throw CLIError.usage("--every takes seconds from 0.1 to 3600, not \(value)")
        }
        return seconds
    }

    static func window(_ value: String?) throws -> Int {
        guard let value else { return 50_000 }
        guard let events = Int(value), events >= 1_000, events <= 2_000_000 else {
            throw CLIError.usage("--window takes 1000 to 2000000 events, not \(value)")
        }
        return events
    }

    static func list(_ url: String) throws {
        let sessions = try LiveListing.sessions(url: url)
        guard !sessions.isEmpty else { return Terminal.print(["no live sessions at \(url)"]) }
        Terminal.print(
            sessions.map { "\($0.url)  (host \($0.hostname), \($0.streams) streams, \($0.clients) readers connected)" })
    }

    /// `live -- COMMAND`.
    static func record(_ args: Arguments, view: LiveView) throws {
        if let missing = LiveRelay.toolMissing { throw CLIError.data(missing) }
        let recording = try RecordSessions.prepare(args, for: "live") { "transduce-live-\($0)-\(getpid())" }
        let relay = try LiveRelay.start(output: recording.directory)
        defer { relay.stop() }
        // Before the session exists, as in `record`.
        let guardian = RecordSessions.guardSession(recording.name)
        defer { guardian.release() }
        let session: LTTngSession
        do {
            session = try LTTngSession(
                name: recording.name, output: recording.directory, events: ["transduce:*"], contexts: ["vtid", "vpid"],
                live: relay.sessionURL)
        } catch {
            throw CLIError.data("\(error)")
        }
        var destroyed = false
        defer { if !destroyed { session.destroy() } }
        let url = relay.liveURL(session: recording.name)
        // Under the browser the command must not write over the screen nor read its keys.
        let browsing = !view.plain && isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0
        let log = recording.directory + "/command.log"
        if !browsing { Terminal.error("trace-view: watching \(url)") }
        let (status, watched): (Int32, LiveView.Watched) = try RecordSessions.ignoringInterrupts {
            do { try session.start() } catch { throw CLIError.data("\(error)") }
            // When the command ends, its session is stopped and destroyed, which ends the live
            // stream once its last data is read.
            let command = Lock<(pid: pid_t, status: Int32?)>((0, nil))
            let commandEnded = DispatchSemaphore(value: 0)
            let begin = { (feed: LiveFeed) throws in
                // The reader sees a stream from where it was when it attached: attached first, it
                // sees everything the command records.
                try relay.awaitReader(session: recording.name, ended: { feed.ended })
                let pid: pid_t
                do {
                    pid = try Subprocess.spawn(
                        recording.executable, Array(args.rest.dropFirst()),
                        environment: recording.environment,
                        output: browsing ? .file(log) : .inherit)
                } catch {
                    throw CLIError.data("\(error)")
                }
                command.withLock { $0.pid = pid }
                Thread.detachNewThread {
                    let status = (try? Subprocess.wait(pid, name: recording.command)) ?? 1
                    command.withLock { $0.status = status }
                    try? session.stop()
                    session.destroy()
                    commandEnded.signal()
                }
            }
            let watched = Result {
                try view.watch(
                    urls: [url], title: "trace-view live -- \(recording.command.split(separator: "/").last ?? "")",
                    recordTag: recording.tag, begin: begin
                ) { _ in
                    // q before the command ended: end it; its end ends the stream.
                    let pid = command.withLock { $0.status == nil ? $0.pid : 0 }
                    if pid > 0 { kill(pid, SIGTERM) }
                    DispatchQueue.global().asyncAfter(deadline: .now() + 5) {
                        let pid = command.withLock { $0.status == nil ? $0.pid : 0 }
                        if pid > 0 { kill(pid, SIGKILL) }
                    }
                }
            }
            let started = command.withLock { $0.pid > 0 }
            if case .failure(let error) = watched, started, command.withLock({ $0.status == nil }) {
                // The view failed, not the recording: the command goes on to its end.
                Terminal.error(
                    "trace-view: \((error as? CLIError)?.message ?? "\(error)"); \(recording.command) goes on recording into "
                        + "\(recording.output): waiting for it to end (Ctrl-C ends it)")
            }
            if started {
                commandEnded.wait()
                destroyed = true
            }
            // The relay daemon is what writes the kept trace: dead before the end, the trace stops
            // where it died, and says so to every view of it.
            if relay.ended {
                let why = "the relay daemon (lttng-relayd) died while \(recording.command) ran: this trace stops where it died"
                TraceInput.markIncomplete(recording.directory, why: why)
                throw CLIError.data(
                    "\(why) (kept in \(recording.output)); "
                        + ((try? watched.get()) == nil ? "the live view stopped with it" : "the live view saw it end early"))
            }
            return (command.withLock { $0.status } ?? 1, try watched.get())
        }
        guard watched.tally.events > 0 || watched.quit else {
            throw RecordSessions.recordedNothing(recording.command, status: status)
        }
        Terminal.error(
            "trace-view: LTTng trace kept in \(recording.output); view it with: trace-view summary \(recording.output)"
                + (browsing ? "; the command's output is in \(recording.output)/command.log" : ""))
        if watched.quit {
            if status != 0 { Terminal.error("trace-view: \(recording.command) was ended (status \(status))") }
            return
        }
        if status != 0 { throw CLIError(message: "\(recording.command) exited with status \(status)", status: status) }
    }
}
