import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace

@Suite struct SubprocessTests {
    /// The CI hang of session 1: children of a Swift program inherited its threads' blocked
    /// signals, so `lttng-sessiond --daemonize` never saw its daemon's "ready" SIGUSR1.
    @Test func childrenStartWithNoSignalBlockedOrIgnored() throws {
        // Block SIGUSR1 and ignore SIGINT here: the child must see neither.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR1)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previousMask)
        let previousInterrupt = signal(SIGINT, SIG_IGN)
        defer {
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
            signal(SIGINT, previousInterrupt)
        }
        let result = try Subprocess.run(
            "/bin/sh", ["-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status"], output: .capture, timeout: 30)
        #expect(result.status == 0)
        let fields = Dictionary(
            uniqueKeysWithValues: result.output.split(separator: "\n").map { line in
                let parts = line.split(separator: ":")
                return (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces))
            })
        #expect(fields["SigBlk"] == "0000000000000000", "\(result.output)")
        // SIGINT is bit 1; nothing the shell itself ignores may include it.
        let ignored = UInt64(fields["SigIgn"] ?? "", radix: 16)
        #expect(ignored.map { $0 & (1 << (SIGINT - 1)) } == 0, "\(result.output)")
    }

    @Test func statusOutputAndEnvironment() throws {
        let result = try Subprocess.run(
            "/bin/sh", ["-c", "echo out; echo err >&2; echo \"$TRANSDUCE_PROBE\"; exit 3"],
            environment: ["TRANSDUCE_PROBE": "seen"], output: .capture, timeout: 30)
        #expect(result.status == 3)
        #expect(result.output.split(separator: "\n").sorted() == ["err", "out", "seen"])
        #expect(result.pid > 0)
    }

    @Test func aSignalEndingTheChildIsReportedAs128PlusItsNumber() throws {
        let result = try Subprocess.run("/bin/sh", ["-c", "kill -TERM $$"], output: .discard, timeout: 30)
        #expect(result.status == 128 + SIGTERM)
    }

    @Test func aChildPastItsTimeoutIsKilledAndReported() throws {
        let start = Date()
        #expect(throws: Subprocess.Failure.self) {
            try Subprocess.run("/bin/sleep", ["30"], output: .discard, timeout: 0.2)
        }
        #expect(Date().timeIntervalSince(start) < 20)
    }

    @Test func aMissingExecutableIsAnErrorNotACrash() throws {
        #expect(throws: Subprocess.Failure.self) {
            try Subprocess.run("/nonexistent/transduce-tool", [], output: .discard, timeout: 5)
        }
        #expect(Subprocess.which("sh") != nil)
        #expect(Subprocess.which("transduce-no-such-tool") == nil)
    }
}
