import Foundation
import Testing
import TraceTooling
import TransduceTestSupport
import TransduceTrace

@testable import trace_view

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `live` against relay daemons that misbehave (``FakeRelay``): every form ends on its own, in
/// time, with exit 65, a message that says why, a bounded number of readers and bounded memory.
@Suite(.serialized) struct LiveFaultTests {
    enum Form: String, CaseIterable, Sendable {
        /// `live --list net://HOST`
        case list
        /// `live net://HOST`: every session it offers
        case relay
        /// `live net://HOST/host/H/S`
        case session
    }

    static let modes: [FakeRelay.Mode] = [.silent, .connectOnly, .hugeCount, .neverAttach(100), .garbage]

    static var available: Bool { LTTngTools.available && Subprocess.which("lttng-relayd") != nil }

    @Test(.enabled(if: available), .timeLimit(.minutes(Patience.minutes(3))), arguments: modes, Form.allCases)
    func aMisbehavingRelayDaemonEndsTheViewInTime(_ mode: FakeRelay.Mode, _ form: Form) async throws {
        let relay = try FakeRelay(mode)
        defer { relay.stop() }
        let dir = TemporaryDirectory()
        let binary = try #require(builtProduct("trace-view"))
        let target: [String]
        switch form {
        case .list: target = ["--list", relay.url]
        case .relay: target = [relay.url]
        case .session: target = [relay.sessionURL()]
        }
        let timeout = 2.0
        let arguments = ["live", "--plain", "--every", "0.5", "--timeout", String(Int(timeout))] + target
        // GNU time gives the peak memory of trace-view and its reaped children.
        let measured = Subprocess.which("time") != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        let started = Date()
        let timeFile = dir.file("time")
        let run = try await offThePool {
            try Subprocess.run(
                measured ? "/usr/bin/time" : binary,
                (measured ? ["-f", "peak-kb %M", "-o", timeFile, binary] : []) + arguments,
                environment: ["NO_COLOR": "1", "TRANSDUCE_LTTNG": "off"], output: .captureSeparately, timeout: 120)
        }
        let elapsed = Date().timeIntervalSince(started)
        let context = "\(mode), \(form): status \(run.status) after \(Int(elapsed)) s\n\(run.output)\(run.errors)"
        if case .neverAttach(let count) = mode, form == .list {
            // Listing is all this relay daemon does right, and all --list asks of it.
            #expect(run.status == 0, "\(context)")
            #expect(run.output.split(separator: "\n").count == count, "\(context)")
            return
        }
        #expect(run.status == 65, "\(context)")
        // Each step has `timeout` seconds; a reader's failure is then diagnosed by one listing
        // more. Generous for a busy machine (both cores busy beside the suite's other child
        // processes, one case took 71 s), short of a hang (the run is killed at 120 s).
        #expect(elapsed < 100 * Patience.factor, "\(context)")
        #expect(
            run.errors.contains("did not answer within \(Int(timeout)) s") || run.errors.contains("cannot")
                || run.errors.contains("failed"),
            "\(context)")
        #expect(!run.errors.contains("\u{1B}") && !run.output.contains("\u{1B}"), "\(context)")
        if measured {
            let text = try String(contentsOfFile: dir.file("time"), encoding: .utf8)
            let kb = text.split(separator: "\n").compactMap { $0.hasPrefix("peak-kb ") ? Int($0.dropFirst(8)) : nil }.last
            let peak = try #require(kb, "\(text)")
            // (ThreadSanitizer's shadow memory multiplies a process's; measured on plain builds.)
            if !underThreadSanitizer { #expect(peak < 600_000, "peak \(peak) KB; \(context)") }
        }
        // One listing, at most --max-sessions (8) readers, and a listing per failed reader.
        #expect(relay.connections.peak <= 1 + 8 + 8, "\(relay.connections); \(context)")
        if case .neverAttach = mode, form == .relay {
            #expect(run.errors.contains("reading 8 of the 100 sessions"), "\(context)")
        }
        // The session's reader waits for its relay daemon with the view open: the view says so.
        if form == .session, case .silent = mode {
            #expect(run.output.contains("live: waiting for the relay daemon"), "\(context)")
        }
    }

    /// A reader child's standard error is a file without a name: SIGTERM (which runs no
    /// cleanup) leaves nothing in /tmp, whatever the number of readers.
    @Test(.enabled(if: available), .timeLimit(.minutes(Patience.minutes(2))))
    func readersLeaveNoFilesBehindWhenTraceViewIsTerminated() async throws {
        let relay = try FakeRelay(.silent)
        defer { relay.stop() }
        let dir = TemporaryDirectory()
        let binary = try #require(builtProduct("trace-view"))
        let child = try Subprocess.start(
            binary, ["live", "--plain", "--timeout", "60", relay.sessionURL()], environment: ["TRANSDUCE_LTTNG": "off"],
            errors: dir.file("errors"))
        defer { close(child.output) }
        let deadline = Date().addingTimeInterval(60)
        var reader: Int32?
        while reader == nil && Date() < deadline {
            let found = try Subprocess.run(
                "/usr/bin/pgrep", ["-P", String(child.pid), "-f", "__read-ctf"], output: .capture, timeout: 30)
            reader = found.output.split(separator: "\n").compactMap { Int32($0) }.first
            if reader == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let pid = try #require(reader, "no reader child")
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/2")) ?? ""
        #expect(target.hasSuffix(" (deleted)"), "the reader's standard error is \(target)")
        #expect(kill(child.pid, SIGTERM) == 0)
        let status = try Subprocess.wait(child.pid, timeout: 60, name: "trace-view live")
        #expect(status == 128 + SIGTERM)
        if !target.isEmpty {
            let name = String(target.dropLast(" (deleted)".count))
            #expect(!FileManager.default.fileExists(atPath: name), "\(name) was left behind")
        }
    }

    @Test(.enabled(if: available)) func timeoutAndMaxSessionsAreCheckedOptions() async throws {
        let timeout = try await traceView(["live", "--timeout", "0", "net://127.0.0.1/host/h/s"])
        #expect(timeout.status == 64 && timeout.err.contains("--timeout takes seconds"), "\(timeout.err)")
        let sessions = try await traceView(["live", "--max-sessions", "1000", "net://127.0.0.1"])
        #expect(sessions.status == 64 && sessions.err.contains("--max-sessions takes"), "\(sessions.err)")
    }
}

/// The live reader child's watchdog, which ends the child when its relay daemon says nothing for
/// `live --timeout`.
@Suite struct LiveWatchdogTests {
    /// A read of the clock that comes out before the last progress (noted between the
    /// watchdog's two reads, or on another thread's clock a few nanoseconds ahead) is no
    /// silence: once it wrapped around and ended a reader two seconds in.
    @Test func aReadBeforeTheLastProgressIsNoSilence() {
        let limit: UInt64 = 10_000_000_000
        #expect(!LiveBudget.expired(heard: 1_000_000_005, now: 1_000_000_000, limit: limit))
        #expect(!LiveBudget.expired(heard: 5, now: 5 + limit, limit: limit))
        #expect(LiveBudget.expired(heard: 5, now: 6 + limit, limit: limit))
    }
}
