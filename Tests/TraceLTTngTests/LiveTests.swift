import Foundation
import Testing
import TraceTooling
import TransduceTestSupport
import TransduceTraceCTF

@testable import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension LTTngTests {
    /// `trace-view live` against a real relay daemon and session daemon on loopback.
    ///
    /// Nested in ``LTTngTests`` so that its `.serialized` covers it too: a live session created or
    /// destroyed while another suite's session is torn down once aborted the test process inside
    /// liblttng-ust (`shmp_object_destroy: Assertion 0 failed`), and `live -- COMMAND` destroys the
    /// stale sessions it finds, one of which a trust test plants.
    @Suite struct Live {
        static var available: Bool {
            guard LTTngTools.available else { return false }
            guard Subprocess.which("lttng-relayd") != nil else {
                print("live tests skipped: lttng-relayd is not installed (scripts/bootstrap.sh installs it)")
                return false
            }
            return true
        }

        /// Lines of a child's standard output, read with a deadline (a hang fails the test, it does
        /// not stall the run); between reads it sleeps asynchronously, so it blocks no thread of the
        /// pool the runtime's async tests need.
        final class Lines {
            let descriptor: Int32
            var buffer: [UInt8] = []
            var ended = false
            init(_ descriptor: Int32) { self.descriptor = descriptor }

            /// The next line, or `nil` at the end of output; throws past `deadline`.
            func next(before deadline: Date) async throws -> String? {
                while true {
                    if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: buffer[..<newline], as: UTF8.self)
                        buffer.removeSubrange(...newline)
                        return line
                    }
                    if ended { return nil }
                    let left = deadline.timeIntervalSinceNow
                    guard left > 0 else { throw Subprocess.Failure("no output line before the deadline") }
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, 0) > 0 else {
                        try await Task.sleep(for: .milliseconds(20))
                        continue
                    }
                    var chunk = [UInt8](repeating: 0, count: 4096)
                    let n = read(descriptor, &chunk, chunk.count)
                    if n > 0 { buffer += chunk[0..<n] } else if n == 0 || errno != EINTR { ended = true }
                }
            }
        }

        /// `live, span 1.2ms: 128 events, … ; dispatch=18 cycleEnter=18 …` → its counts by kind name.
        static func counts(of line: String) -> [String: Int] {
            guard let semicolon = line.firstIndex(of: ";") else { return [:] }
            var counts: [String: Int] = [:]
            for pair in line[line.index(after: semicolon)...].split(separator: " ") {
                let parts = pair.split(separator: "=")
                if parts.count == 2, let n = Int(parts[1]) { counts[String(parts[0])] = n }
            }
            return counts
        }

        /// The workload's own ring, which it dumps to `file` on SIGUSR2: the oracle.
        static func ring(dumpedBy workload: pid_t, to file: String, before deadline: Date) async throws -> Trace {
            #expect(kill(workload, SIGUSR2) == 0)
            while Date() < deadline {
                if let ring = try? TraceFileReader(path: file).readAll() { return ring }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw Subprocess.Failure("the workload's ring dump never came")
        }

        /// `trace-view live OPTIONS --output DIR -- TracedExample --serve RING`, its standard
        /// output read line by line: the workload runs, says `ready PID`, and waits for the end of
        /// its input, which this holds until ``endInput()``.
        final class ServedRun {
            let dir = TemporaryDirectory()
            let output: String
            let ringFile: String
            let child: Subprocess.Child
            let lines: Lines
            /// Closed once: a descriptor closed twice may be another test's by then.
            private var input: Int32?
            /// Once reaped, its pid may be another process's: never signalled again.
            private var reaped = false

            init(_ options: [String]) throws {
                let example = try #require(builtProduct("TracedExample"))
                let binary = try #require(builtProduct("trace-view"))
                output = dir.file("live")
                ringFile = dir.file("ring.tdtrace")
                child = try Subprocess.start(
                    binary, ["live"] + options + ["--output", output, "--", example, "--serve", ringFile],
                    environment: ["NO_COLOR": "1"], errors: dir.file("errors"), input: true)
                lines = Lines(child.output)
                input = child.input
            }

            var errors: String { (try? String(contentsOfFile: dir.file("errors"), encoding: .utf8)) ?? "" }

            /// The workload's process, once it has run and waits for the end of its input.
            func ready(before deadline: Date) async throws -> pid_t {
                while let line = try await lines.next(before: deadline) {
                    if line.hasPrefix("ready "), let pid = Int32(line.dropFirst(6)) { return pid }
                }
                throw Subprocess.Failure("the workload never said it was ready: \(errors)")
            }

            /// Ends the workload's input: it ends.
            func endInput() {
                if let open = input { close(open) }
                input = nil
            }

            /// trace-view's exit status, once it exited.
            func status() throws -> Int32 {
                defer { reaped = true }
                return try Subprocess.wait(child.pid, name: "trace-view live")
            }

            deinit {
                endInput()
                close(child.output)
                if !reaped {
                    kill(child.pid, SIGKILL)
                    _ = try? Subprocess.wait(child.pid, name: "trace-view live")
                }
            }
        }

        /// The workload streams live; `trace-view live` shows every event it made while it still
        /// runs (the oracle is the workload's own ring buffer, dumped on SIGUSR2), and its final
        /// counts equal those of the trace it kept.
        @Test(.enabled(if: Live.available), .timeLimit(.minutes(Patience.minutes(5))))
        func aLiveViewSeesEveryEventWhileTheWorkloadRunsAndKeepsTheTrace() async throws {
            let run = try ServedRun(["--every", "0.2"])
            let (lines, output) = (run.lines, run.output)
            let deadline = Date().addingTimeInterval(120)
            // The workload has run and waits for the end of its input: it is still running.
            let workload = try await run.ready(before: deadline)
            let expected = try await Self.ring(dumpedBy: workload, to: run.ringFile, before: deadline)
            var byKind: [String: Int] = [:]
            for event in expected.events { byKind["\(event.kind)", default: 0] += 1 }
            // A periodic line shows all of it before the workload ends.
            var seenLive: [String: Int] = [:]
            while seenLive != byKind, let line = try await lines.next(before: deadline) {
                if line.hasPrefix("live, ") { seenLive = Self.counts(of: line) }
            }
            #expect(seenLive == byKind, "live saw \(seenLive), the ring holds \(byKind)")
            #expect(kill(workload, 0) == 0, "the workload was still running")
            // The end of its input ends the workload; the session ends, and the last line says so.
            run.endInput()
            var ended: [String: Int]?
            while let line = try await lines.next(before: deadline) {
                if line.hasPrefix("live ended, ") { ended = Self.counts(of: line) }
            }
            let status = try run.status()
            let errors = run.errors
            #expect(status == 0, "\(errors)")
            #expect(ended == byKind)
            #expect(errors.contains("LTTng trace kept in \(output)"), "\(errors)")
            // The kept trace, read back through babeltrace2 (only the command's processes, as every
            // command reads a trace-view recording), holds exactly what was seen live.
            let summary = try await traceView(["summary", output])
            #expect(summary.status == 0, "\(summary.err)")
            var kept: [String: Int] = [:]
            for line in summary.out.split(separator: "\n").drop(while: { $0 != "Events by kind" }).dropFirst()
                .prefix(while: { $0.hasPrefix("  ") })
            {
                let parts = line.split(separator: " ")
                if parts.count == 2, let n = Int(parts[1]) { kept[String(parts[0])] = n }
            }
            #expect(kept == byKind)
            #expect(summary.out.contains("events      \(expected.events.count)\n"))
        }

        /// The kinds' counts of traces together, by kind name.
        static func kinds(_ traces: Trace...) -> [String: Int] {
            var byKind: [String: Int] = [:]
            for trace in traces { for event in trace.events { byKind["\(event.kind)", default: 0] += 1 } }
            return byKind
        }

        static var hostname: String { TraceRecorder.hostName }

        /// The live browser on a terminal (tmux): it shows the running workload's every event in
        /// its header and every request label in its pane while the workload still runs (the
        /// oracle is the workload's own ring), keeps the command's output off the screen, pauses
        /// with p, opens a request's diagram, and q ends the command, puts the terminal back and
        /// keeps the trace.
        @Test(.enabled(if: Live.available && Tmux.available), .timeLimit(.minutes(Patience.minutes(5))))
        func theLiveBrowserShowsTheRunningWorkloadPausesAndQuitsCleanly() async throws {
            let session = Tmux.Session()
            defer { session.stop() }
            let dir = session.dir
            let example = try #require(builtProduct("TracedExample"))
            // The workload runs until the end of its input: a pipe this test holds open, so it
            // runs until q ends it.
            let fifo = dir.file("input")
            try #require(mkfifo(fifo, 0o600) == 0)
            let holder = open(fifo, O_RDWR)
            try #require(holder >= 0)
            defer { close(holder) }
            let output = dir.file("live")
            let ringFile = dir.file("ring.tdtrace")
            try session.run(
                "live --every 0.2 --output \(output) -- /bin/sh -c 'exec \(example) --serve \(ringFile) < \(fifo)'")
            // What the command prints goes to its log, not over the screen.
            let deadline = Date().addingTimeInterval(120)
            var workload: pid_t = 0
            while workload == 0 && Date() < deadline {
                let log = (try? String(contentsOfFile: output + "/command.log", encoding: .utf8)) ?? ""
                if let line = log.split(separator: "\n").first(where: { $0.hasPrefix("ready ") }) {
                    workload = Int32(line.dropFirst(6)) ?? 0
                } else {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            try #require(workload > 0, "the workload never said it was ready")
            let expected = try await Self.ring(dumpedBy: workload, to: ringFile, before: deadline)
            let screen = try await session.screen(containing: "| \(expected.events.count) events, 1 runtime,")
            #expect(screen.contains("| live, 0 waiting |"), "\(screen)")
            for label in Set(expected.events.filter(\.isAwaitedDispatch).map(\.label)) {
                #expect(screen.contains(" \(label) "), "no request \(label) on the screen:\n\(screen)")
            }
            #expect(!screen.contains("ready \(workload)"))
            #expect(kill(workload, 0) == 0, "the workload was still running")
            try session.keys("p")
            _ = try await session.screen(containing: "| paused (p resumes) |")
            try session.keys("p")
            _ = try await session.screen(containing: "| live, 0 waiting |")
            try session.keys("Tab", "Tab")
            let gate = try await session.screen(containing: "[Gate]")
            #expect(gate.contains("holding now") && gate.contains(" \(Self.hostname.prefix(10))"), "\(gate)")
            try session.keys("Tab", "Tab")  // past the warnings, back to the requests
            _ = try await session.screen(containing: "[Requests]")
            try session.keys("Enter")
            _ = try await session.screen(containing: "Latency of")
            try session.keys("Escape", "q")
            let (status, restored) = try await session.ended()
            #expect(status == 0)
            #expect(restored, "stty -a differs after q")
            #expect(kill(workload, 0) != 0, "q did not end the command")
            // The kept trace holds what was seen.
            let summary = try await traceView(["summary", output])
            #expect(summary.status == 0, "\(summary.err)")
            #expect(summary.out.contains("events      \(expected.events.count)\n"), "\(summary.out)")
        }

        /// The live reader killed while the command runs, after it has streamed events: trace-view
        /// says so, lets the command record to its end, exits 65, and the kept trace holds
        /// everything the command recorded. (Killed before its first event, it was the same; a
        /// busy machine decided which happened, and mid-stream the death went unsaid.)
        @Test(.enabled(if: Live.available), .timeLimit(.minutes(Patience.minutes(5))))
        func aKilledReaderLosesNothingOfTheRecording() async throws {
            let run = try ServedRun(["--plain", "--every", "0.2"])
            let deadline = Date().addingTimeInterval(120)
            let workload = try await run.ready(before: deadline)
            // Mid-stream: once the view has shown events.
            while let line = try await run.lines.next(before: deadline), !line.contains(": 128 events,") {}
            let readers = try Subprocess.run(
                "/usr/bin/pgrep", ["-P", String(run.child.pid), "-f", "__read-ctf"], output: .capture, timeout: 30)
            let reader = try #require(readers.output.split(separator: "\n").compactMap { Int32($0) }.first, "no reader child")
            #expect(kill(reader, SIGKILL) == 0)
            while !run.errors.contains("goes on recording") && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(run.errors.contains("goes on recording into \(run.output)"), "\(run.errors)")
            #expect(kill(workload, 0) == 0, "the workload was ended with the view")
            let expected = try await Self.ring(dumpedBy: workload, to: run.ringFile, before: deadline)
            run.endInput()
            while try await run.lines.next(before: deadline) != nil {}
            #expect(try run.status() == 65)
            let summary = try await traceView(["summary", run.output])
            #expect(summary.status == 0, "\(summary.err)")
            #expect(summary.out.contains("events      \(expected.events.count)\n"), "\(summary.out)")
        }

        /// The relay daemon of `live -- COMMAND` killed mid-stream: the view fails (exit 65), says
        /// the kept trace stops where it died, and every view of that trace says so too.
        @Test(.enabled(if: Live.available), .timeLimit(.minutes(Patience.minutes(5))))
        func aKilledRelayDaemonIsToldAndMarksTheKeptTrace() async throws {
            let run = try ServedRun(["--plain", "--every", "0.2"])
            let deadline = Date().addingTimeInterval(120)
            _ = try await run.ready(before: deadline)
            while let line = try await run.lines.next(before: deadline), !line.contains(": 128 events,") {}
            let relays = try Subprocess.run(
                "/usr/bin/pgrep", ["-P", String(run.child.pid), "-x", "lttng-relayd"], output: .capture, timeout: 30)
            let relay = try #require(relays.output.split(separator: "\n").compactMap { Int32($0) }.first, "no relay daemon")
            #expect(kill(relay, SIGKILL) == 0)
            while !run.errors.contains("goes on recording") && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
            run.endInput()
            while try await run.lines.next(before: deadline) != nil {}
            #expect(try run.status() == 65, "\(run.errors)")
            #expect(run.errors.contains("the relay daemon (lttng-relayd) died while"), "\(run.errors)")
            for command in ["summary", "tasks", "check"] {
                let view = try await traceView([command, run.output])
                #expect(view.status == 65, "\(command): \(view.out)\(view.err)")
                #expect(view.err.contains("incomplete: the relay daemon (lttng-relayd) died"), "\(command): \(view.err)")
            }
        }

        /// While requests keep coming, the browser's selection stays on the request it was on
        /// (runtime and dispatch), wherever the new rows move it.
        @Test(.enabled(if: Live.available && Tmux.available), .timeLimit(.minutes(Patience.minutes(5))))
        func theLiveSelectionFollowsItsRequest() async throws {
            let session = Tmux.Session()
            defer { session.stop() }
            let example = try #require(builtProduct("TracedExample"))
            let output = session.dir.file("live")
            // The workload must outlast the keys and a few refreshes: longer on a slower machine
            // (at load 12, 3000 runs ended before the selection had settled).
            let repeats = Int(6000 * Patience.factor)
            try session.run(
                "live --every 0.2 --window 2000000 --output \(output) -- \(example) --repeat \(repeats) \(session.dir.file("ring"))"
            )
            // Several runtimes, so the rows lead with the runtime and its process (`12 (pid 4567)`).
            let top = try await session.screen(containing: " (pid ")
            let selected = { (screen: String) -> (row: Int, key: String)? in
                let rows = screen.split(separator: "\n", omittingEmptySubsequences: false)
                guard let row = rows.firstIndex(where: { $0.hasPrefix("> ") }) else { return nil }
                // `>`, the runtime, its pid, the dispatch.
                return (row, rows[row].split(separator: " ").prefix(5).joined(separator: " "))
            }
            let header = { (screen: String) in screen.split(separator: "\n").first.map(String.init) ?? "" }
            let start = try #require(selected(top)).key
            try session.keys("j", "j", "j")
            // The keys are read between draws, and the rows may move meanwhile (the selection
            // follows them): the selection has settled once two refreshes came after the keys.
            var first = try session.screen()
            var seen = 0
            var shown = header(first)
            let moved = Date().addingTimeInterval(20)
            while seen < 2 && Date() < moved && !first.contains("ended, q quits") {
                try await Task.sleep(for: .milliseconds(30))
                first = try session.screen()
                if header(first) != shown {
                    shown = header(first)
                    seen += 1
                }
            }
            try #require(selected(first) != nil && selected(first)?.key != start, "j did not move the selection:\n\(first)")
            let key = try #require(selected(first)).key
            // Refreshes while the workload runs: the header's count moves, the selection does not.
            var refreshes = 0
            var last = header(first)
            let deadline = Date().addingTimeInterval(60)
            while refreshes < 5 && Date() < deadline {
                let screen = try session.screen()
                guard header(screen) != last, !screen.contains("ended, q quits") else {
                    if screen.contains("ended, q quits") { break }
                    try await Task.sleep(for: .milliseconds(50))
                    continue
                }
                last = header(screen)
                refreshes += 1
                #expect(selected(screen)?.key == key, "the selection moved off \(key):\n\(screen)")
            }
            #expect(refreshes > 0, "no refresh while the workload ran")
            try session.keys("q")
            let (status, restored) = try await session.ended()
            #expect(status == 0)
            #expect(restored)
        }

        /// A relay daemon of the test's own, on free loopback ports.
        struct Relay {
            let pid: pid_t
            let ports: [Int]
            var liveURL: String { "net://127.0.0.1:\(ports[2])" }
            var sessionURL: String { "net://127.0.0.1:\(ports[0]):\(ports[1])" }

            /// Starts it and waits until it answers on its live port.
            init(output: String) async throws {
                ports = try Loopback.freePorts(3)
                pid = try Subprocess.startWatcher(
                    try #require(Subprocess.which("lttng-relayd")),
                    [
                        "-C", "tcp://127.0.0.1:\(ports[0])", "-D", "tcp://127.0.0.1:\(ports[1])", "-L",
                        "tcp://127.0.0.1:\(ports[2])", "-o", output,
                    ])
                let deadline = Date().addingTimeInterval(60)
                while (try? CTFTraceReader.liveSessions(url: "net://127.0.0.1:\(ports[2])")) == nil {
                    guard Date() < deadline else {
                        stop()
                        throw Subprocess.Failure("the relay daemon never listened")
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }

            func stop() {
                kill(pid, SIGTERM)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }

            /// Waits until `count` sessions whose names end with `suffix` have a reader attached.
            func awaitReaders(_ count: Int, suffix: Substring, before deadline: Date) async throws {
                while try CTFTraceReader.liveSessions(url: liveURL).filter({ $0.name.hasSuffix(suffix) && $0.clients > 0 }).count
                    < count
                {
                    guard Date() < deadline else { throw Subprocess.Failure("the reader never attached") }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }

        /// LTTng's losses in a live session are counted as the kept trace counts them: a small
        /// discard-mode channel under a burst discards events, and `trace-view live` reports the
        /// same events and the same discarded count as `summary` of the relay daemon's trace.
        @Test(.enabled(if: Live.available), .timeLimit(.minutes(Patience.minutes(5))))
        func liveLossesAreTheKeptTracesLosses() async throws {
            let dir = TemporaryDirectory()
            let example = try #require(builtProduct("TracedExample"))
            let binary = try #require(builtProduct("trace-view"))
            let relay = try await Relay(output: dir.file("relay"))
            defer { relay.stop() }
            let tag = UUID().uuidString.prefix(8)
            let session = try LTTngSession(
                name: "transduce-live-loss-\(tag)", output: dir.file("unused"), events: ["transduce:*"],
                contexts: ["vtid", "vpid"],
                channel: .init(subbufferSize: 4_096, subbuffers: 2, discard: true, readTimer: 2_000_000),
                live: relay.sessionURL)
            defer { session.destroy() }
            try session.start()
            let url = try #require(try CTFTraceReader.liveSessions(url: relay.liveURL).first { $0.name.hasSuffix(tag) }?.url)
            // The relay daemon may be slow to say the session ended while the suite's other
            // sessions stream beside it: this test is about losses, not the default 10 s timeout.
            let child = try Subprocess.start(
                binary, ["live", "--plain", "--every", "60", "--timeout", "90", url], environment: ["NO_COLOR": "1"],
                errors: dir.file("errors"))
            let lines = Lines(child.output)
            defer {
                close(child.output)
                kill(child.pid, SIGKILL)
                _ = try? Subprocess.wait(child.pid, name: "trace-view live")
            }
            let deadline = Date().addingTimeInterval(180)
            try await relay.awaitReaders(1, suffix: tag, before: deadline)
            let run = try Subprocess.run(
                example, ["--repeat", "300", dir.file("ring.tdtrace")],
                environment: [LTTngProvider.environmentVariable: "required"],
                output: .capture, timeout: 120)
            #expect(run.status == 0, "\(run.output)")
            try session.stop()
            session.destroy()
            var ended: String?
            while let line = try await lines.next(before: deadline) {
                if line.hasPrefix("live ended, ") { ended = line }
            }
            #expect(try Subprocess.wait(child.pid, name: "trace-view live") == 0)
            let errors = (try? String(contentsOfFile: dir.file("errors"), encoding: .utf8)) ?? ""
            let last = try #require(ended, "no final line: \(errors)")
            // The relay daemon's trace of the session, read back through babeltrace2.
            let kept = try #require(
                try FileManager.default.subpathsOfDirectory(atPath: dir.file("relay")).first { $0.hasSuffix("/ust") }.map {
                    dir.file("relay") + "/" + $0.dropLast(4)
                })
            let summary = try await traceView(["summary", "--all-processes", kept])
            #expect(summary.status == 0, "\(summary.err)")
            let discarded = try #require(
                summary.out.split(separator: "\n").first { $0.contains(" discarded") }.flatMap { line in
                    line.split(separator: " ").firstIndex(of: "discarded,").map { UInt64(line.split(separator: " ")[$0 - 1]) }
                        ?? nil
                }, "\(summary.out)")
            let events = try #require(
                summary.out.split(separator: "\n").first { $0.hasPrefix("  events ") }.flatMap {
                    Int($0.split(separator: " ").last!)
                })
            #expect(discarded > 0, "the burst lost nothing: \(summary.out)")
            #expect(last.contains(" \(events) events,") && last.contains(", \(discarded) lost,"), "\(last)\n\(summary.out)")
            #expect(errors.contains("LTTng discarded \(discarded) event\(discarded == 1 ? "" : "s")"), "\(errors)")
            // Of the workload's own events (by its pid: a session records every process of the
            // user, whose events may fill the tiny channel too, so some or all of the workload's
            // may be among the discarded), none invented.
            var own = 0
            _ = try CTFTraceReader.read(path: kept, process: run.pid) { _ in own += 1 }
            #expect(own <= 300 * 128, "\(own) events of the workload")
        }

        /// Two sessions streaming to one relay daemon (as two hosts would) are one view with
        /// `trace-view live net://RELAY`: its totals are both workloads' (the oracles are their
        /// own rings), with two runtimes, each shown with its host.
        @Test(.enabled(if: Live.available), .timeLimit(.minutes(Patience.minutes(5))))
        func theSessionsOfOneRelayDaemonAreOneView() async throws {
            let dir = TemporaryDirectory()
            let example = try #require(builtProduct("TracedExample"))
            let binary = try #require(builtProduct("trace-view"))
            let relay = try await Relay(output: dir.file("relay"))
            defer { relay.stop() }
            let relayURL = relay.liveURL
            let deadline = Date().addingTimeInterval(120)
            let tag = UUID().uuidString.prefix(8)
            let sessions = try ["a", "b"].map {
                try LTTngSession(
                    name: "transduce-live-\($0)-\(tag)", output: dir.file($0), events: ["transduce:*"],
                    contexts: ["vtid", "vpid"],
                    live: relay.sessionURL)
            }
            defer { sessions.forEach { $0.destroy() } }
            for session in sessions { try session.start() }
            // Only the workloads' processes (tagged): a session records every process of the user.
            let child = try Subprocess.start(
                binary, ["live", "--plain", "--every", "0.2", "--tag", String(tag), relayURL], environment: ["NO_COLOR": "1"],
                errors: dir.file("errors"))
            let lines = Lines(child.output)
            defer {
                close(child.output)
                kill(child.pid, SIGKILL)
                _ = try? Subprocess.wait(child.pid, name: "trace-view live")
            }
            // Both sessions have their reader before anything is recorded.
            try await relay.awaitReaders(2, suffix: tag, before: deadline)
            // Each session records one workload (the other is stopped meanwhile).
            var rings: [Trace] = []
            for (i, session) in sessions.enumerated() {
                try sessions[1 - i].stop()
                if i == 1 { try session.start() }
                let ringFile = dir.file("ring-\(i).tdtrace")
                let run = try Subprocess.run(
                    example, [ringFile],
                    environment: [LTTngProvider.environmentVariable: "required", "TRANSDUCE_RECORD_TAG": String(tag)],
                    output: .capture, timeout: 120)
                #expect(run.status == 0, "\(run.output)")
                rings.append(try TraceFileReader(path: ringFile).readAll())
            }
            try sessions[1].stop()
            for session in sessions { session.destroy() }
            var ended: String?
            var recent: [String] = []
            while let line = try await lines.next(before: deadline) {
                if line.hasPrefix("live ended, ") { ended = line }
                if line.hasPrefix("  recent ") { recent.append(line) }
            }
            let status = try Subprocess.wait(child.pid, name: "trace-view live")
            let errors = (try? String(contentsOfFile: dir.file("errors"), encoding: .utf8)) ?? ""
            #expect(status == 0, "\(errors)")
            let last = try #require(ended, "no final line; errors: \(errors)")
            #expect(Self.counts(of: last) == Self.kinds(rings[0], rings[1]), "\(last)")
            #expect(last.contains(" \(rings[0].events.count + rings[1].events.count) events, 2 runtimes, 0 waiting"), "\(last)")
            #expect(recent.last?.contains(" on \(Self.hostname))") == true, "\(recent.last ?? "no recent line")")
            // The aggregates over everything, on the trace's own clock (LTTng's timestamps, one
            // clock for every view): as computed here from the relay daemon's kept trace of both
            // sessions, the workloads' processes alone.
            var kept: [TraceEvent] = []
            for directory in try FileManager.default.subpathsOfDirectory(atPath: dir.file("relay")).filter({
                $0.hasSuffix("/ust")
            }) {
                _ = try CTFTraceReader.read(path: dir.file("relay") + "/" + directory.dropLast(4), recordTag: String(tag)) {
                    kept.append($0)
                }
            }
            #expect(kept.count == rings[0].events.count + rings[1].events.count)
            var latencies = LatencyHistogram()
            var waits = LatencyHistogram()
            var hold: UInt64 = 0
            var dispatched: [TraceIndex.Key: UInt64] = [:]
            var entered: [TraceIndex.Key: UInt64] = [:]
            for e in kept {
                let dispatch = TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)
                let cycle = TraceIndex.Key(runtime: e.runtimeKey, id: e.cycle)
                switch e.kind {
                case .dispatch: dispatched[dispatch] = e.time
                case .cycleEnter:
                    waits.record(e.time - dispatched[dispatch]!)
                    entered[cycle] = e.time
                case .cycleLeave: hold = max(hold, e.time - entered[cycle]!)
                case .requestResume: latencies.record(e.time - dispatched[dispatch]!)
                default: break
                }
            }
            let aggregates =
                "request p99 \(formatDuration(latencies.percentile(0.99), ascii: true)), "
                + "gate wait p99 \(formatDuration(waits.percentile(0.99), ascii: true)), longest hold \(formatDuration(hold, ascii: true));"
            #expect(last.contains(aggregates), "\(last)\nexpected \(aggregates)")
        }

        /// A relay daemon serves one viewer per session: a second `live` of the same session says
        /// so (babeltrace2 itself says only that reading failed), exits 65, and leaves the first.
        @Test(.enabled(if: Live.available), .timeLimit(.minutes(Patience.minutes(5))))
        func aSecondViewerOfASessionIsToldWhy() async throws {
            let dir = TemporaryDirectory()
            let binary = try #require(builtProduct("trace-view"))
            let relay = try await Relay(output: dir.file("relay"))
            defer { relay.stop() }
            let tag = UUID().uuidString.prefix(8)
            let session = try LTTngSession(
                name: "transduce-live-second-\(tag)", output: dir.file("unused"), events: ["transduce:*"],
                contexts: ["vtid", "vpid"], live: relay.sessionURL)
            defer { session.destroy() }
            try session.start()
            let url = try #require(try CTFTraceReader.liveSessions(url: relay.liveURL).first { $0.name.hasSuffix(tag) }?.url)
            let first = try Subprocess.start(
                binary, ["live", "--plain", "--every", "60", url], environment: ["NO_COLOR": "1"], errors: dir.file("first"))
            defer {
                close(first.output)
                kill(first.pid, SIGKILL)
                _ = try? Subprocess.wait(first.pid, name: "trace-view live")
            }
            try await relay.awaitReaders(1, suffix: tag, before: Date().addingTimeInterval(120))
            let second = try await traceView(["live", "--plain", url])
            #expect(second.status == 65, "\(second.out)\(second.err)")
            #expect(second.err.contains("this session already has a live viewer"), "\(second.err)")
            #expect(kill(first.pid, 0) == 0, "the first viewer went on")
        }

        @Test(.enabled(if: Live.available)) func wrongURLsAndOptionsAreClearErrors() async throws {
            let notLive = try await traceView(["live", "/tmp/a-directory"])
            #expect(notLive.status == 64 && notLive.err.contains("is not a live URL"), "\(notLive.err)")
            let every = try await traceView(["live", "--every", "0", "net://127.0.0.1/host/h/s"])
            #expect(every.status == 64 && every.err.contains("--every takes seconds"), "\(every.err)")
            let window = try await traceView(["live", "--window", "10", "net://127.0.0.1/host/h/s"])
            #expect(window.status == 64 && window.err.contains("--window takes"), "\(window.err)")
            let mixed = try await traceView(["live", "net://127.0.0.1/host/h/s", "/tmp/a-directory"])
            #expect(mixed.status == 64 && mixed.err.contains("is not a live URL"), "\(mixed.err)")
            // Nothing listens on port 1: the relay daemon cannot be reached.
            let unreachable = try await traceView(["live", "--list", "net://127.0.0.1:1"])
            #expect(unreachable.status == 65, "\(unreachable.err)")
            let session = try await traceView(["live", "net://127.0.0.1:1/host/h/s"])
            #expect(
                session.status == 65 && session.err.contains("cannot read this live session")
                    && !session.out.contains("live ended"),
                "\(session.out)\(session.err)")
            let relay = try await traceView(["live", "net://127.0.0.1:1"])
            #expect(relay.status == 65, "\(relay.err)")
            let noCommand = try await traceView(["live"])
            #expect(noCommand.status == 64, "\(noCommand.err)")
        }
    }
}
