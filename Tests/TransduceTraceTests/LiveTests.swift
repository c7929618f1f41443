import Foundation
import Testing
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

        /// The workload streams live; `trace-view live` shows every event it made while it still
        /// runs (the oracle is the workload's own ring buffer, dumped on SIGUSR2), and its final
        /// counts equal those of the trace it kept.
        @Test(.enabled(if: Live.available), .timeLimit(.minutes(5)))
        func aLiveViewSeesEveryEventWhileTheWorkloadRunsAndKeepsTheTrace() async throws {
            let dir = TemporaryDirectory()
            let example = try #require(builtProduct("TracedExample"))
            let binary = try #require(builtProduct("trace-view"))
            let output = dir.file("live")
            let ringFile = dir.file("ring.tdtrace")
            let child = try Subprocess.start(
                binary, ["live", "--every", "0.2", "--output", output, "--", example, "--serve", ringFile],
                environment: ["NO_COLOR": "1"], errors: dir.file("errors"), input: true)
            let lines = Lines(child.output)
            defer {
                if let input = child.input { close(input) }
                close(child.output)
                kill(child.pid, SIGKILL)
                _ = try? Subprocess.wait(child.pid, name: "trace-view live")
            }
            let deadline = Date().addingTimeInterval(120)
            // The workload has run and waits for the end of its input: it is still running.
            var workload: pid_t = 0
            while workload == 0, let line = try await lines.next(before: deadline) {
                if line.hasPrefix("ready "), let pid = Int32(line.dropFirst(6)) { workload = pid }
            }
            try #require(workload > 0, "the workload never said it was ready")
            #expect(kill(workload, SIGUSR2) == 0)
            var ring: Trace?
            while ring == nil && Date() < deadline {
                ring = try? TraceFileReader(path: ringFile).readAll()
                if ring == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            let expected = try #require(ring, "the workload's ring dump never came")
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
            if let input = child.input { close(input) }
            var ended: [String: Int]?
            while let line = try await lines.next(before: deadline) {
                if line.hasPrefix("live ended, ") { ended = Self.counts(of: line) }
            }
            let status = try Subprocess.wait(child.pid, name: "trace-view live")
            let errors = (try? String(contentsOfFile: dir.file("errors"), encoding: .utf8)) ?? ""
            #expect(status == 0, "\(errors)")
            #expect(ended == byKind)
            #expect(errors.contains("LTTng trace kept in \(output)"), "\(errors)")
            // The kept trace, read back through babeltrace2 (only the command's processes, as every
            // command reads a trace-view recording), holds exactly what was seen live.
            let summary = try traceView(["summary", output])
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

        @Test(.enabled(if: Live.available)) func wrongURLsAndOptionsAreClearErrors() throws {
            let notLive = try traceView(["live", "/tmp/a-directory"])
            #expect(notLive.status == 64 && notLive.err.contains("is not a live URL"), "\(notLive.err)")
            let every = try traceView(["live", "--every", "0", "net://127.0.0.1/host/h/s"])
            #expect(every.status == 64 && every.err.contains("--every takes seconds"), "\(every.err)")
            // Nothing listens on port 1: the relay daemon cannot be reached.
            let unreachable = try traceView(["live", "--list", "net://127.0.0.1:1"])
            #expect(unreachable.status == 65, "\(unreachable.err)")
            let noCommand = try traceView(["live"])
            #expect(noCommand.status == 64, "\(noCommand.err)")
        }
    }
}
