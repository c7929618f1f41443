import Transduce

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A user-space LTTng session driven through the `lttng` command line tool: what
/// `trace-view record`, the LTTng tests and the benchmark share.
///
/// Every `lttng` call has a time limit, so a session daemon that never answers is an error, not a
/// hang.
package struct LTTngSession {
    package let name: String
    /// The directory the CTF trace is written to.
    package let output: String
    private let lttng: String

    /// Seconds any one `lttng` or `lttng-sessiond` call may take.
    package static let callTimeout = 60.0

    /// Why a session cannot be made here, or `nil` when lttng-tools is installed.
    package static var toolsMissing: String? {
        Subprocess.which("lttng") == nil || Subprocess.which("lttng-sessiond") == nil
            ? "lttng-tools is not installed (scripts/bootstrap.sh installs it)" : nil
    }

    /// Starts `lttng-sessiond --daemonize` unless a session daemon already answers `lttng list`.
    package static func ensureSessionDaemon() throws {
        guard let lttng = Subprocess.which("lttng"), let sessiond = Subprocess.which("lttng-sessiond") else {
            throw Subprocess.Failure(toolsMissing!)
        }
        if try Subprocess.run(lttng, ["list"], output: .discard, timeout: callTimeout).status == 0 { return }
        let started = try Subprocess.run(sessiond, ["--daemonize"], output: .capture, timeout: callTimeout)
        guard started.status == 0 else {
            throw Subprocess.Failure("lttng-sessiond --daemonize failed (status \(started.status)): \(started.output)")
        }
    }

    /// Creates a session writing to `output`, with `events` enabled (user space) and `contexts`
    /// added (`vtid`, `vpid`…), starting the session daemon first when none runs. The session
    /// records nothing until ``start()``.
    /// A channel of the session's own, instead of LTTng's default one.
    package struct Channel: Sendable {
        package var name = "transduce"
        package var subbufferSize = 4_096
        package var subbuffers = 2
        /// `true`: discard new events when full (LTTng's default mode); `false`: overwrite.
        package var discard = true
        /// Microseconds between the consumer daemon's reads (`nil`: read when woken, LTTng's
        /// default); a long period lets a burst overrun a small buffer.
        package var readTimer: Int?
        package init(subbufferSize: Int = 4_096, subbuffers: Int = 2, discard: Bool = true, readTimer: Int? = nil) {
            self.subbufferSize = subbufferSize
            self.subbuffers = subbuffers
            self.discard = discard
            self.readTimer = readTimer
        }
    }

    /// With `live` (`net://HOST:CONTROL-PORT:DATA-PORT`), a live session streaming to the relay
    /// daemon there every `liveTimer` microseconds instead (`output` then only names where that
    /// daemon keeps it).
    package init(
        name: String, output: String, events: [String], contexts: [String] = [], channel: Channel? = nil,
        live: String? = nil, liveTimer: Int = 200_000
    ) throws {
        try Self.ensureSessionDaemon()
        self.name = name
        self.output = output
        lttng = Subprocess.which("lttng")!
        if let live {
            try call(["create", name, "--live=\(liveTimer)", "--set-url=\(live)"])
        } else {
            try call(["create", name, "--output=\(output)"])
        }
        do {
            var channelArguments: [String] = []
            if let channel {
                try call(
                    [
                        "enable-channel", "-u", channel.name, "-s", name, "--subbuf-size=\(channel.subbufferSize)",
                        "--num-subbuf=\(channel.subbuffers)", channel.discard ? "--discard" : "--overwrite",
                    ] + (channel.readTimer.map { ["--read-timer=\($0)"] } ?? []))
                channelArguments = ["-c", channel.name]
            }
            for event in events { try call(["enable-event", "-u", event, "-s", name] + channelArguments) }
            if !contexts.isEmpty {
                try call(["add-context", "-u"] + contexts.flatMap { ["-t", $0] } + ["-s", name] + channelArguments)
            }
        } catch {
            destroy()
            throw error
        }
    }

    package func start() throws { try call(["start", name]) }

    package func stop() throws { try call(["stop", name]) }

    /// Destroys the session (the trace on disk stays). Never throws: used on every exit path.
    package func destroy() {
        _ = try? Subprocess.run(lttng, ["destroy", name], output: .discard, timeout: Self.callTimeout)
    }

    private func call(_ arguments: [String]) throws {
        let result = try Subprocess.run(lttng, arguments, output: .capture, timeout: Self.callTimeout)
        guard result.status == 0 else {
            // The status too: lttng can fail without a word (CI once saw `enable-event` do so),
            // and then the status is all there is to go on (128 + N: signal N ended it).
            let detail = String(result.output.reversed().drop(while: \.isWhitespace).reversed())
            throw Subprocess.Failure(
                "lttng \(arguments.joined(separator: " ")) failed (status \(result.status))\(detail.isEmpty ? "" : ": " + detail)"
            )
        }
    }
}
