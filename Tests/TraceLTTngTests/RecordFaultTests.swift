import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TraceInputs
@testable import TransduceTrace
@testable import trace_view

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `record` when LTTng cannot write: the disk fills up, the consumer daemon or the session
/// daemon is killed mid-run. Each is told apart, with its own exit status and what became of
/// the trace (all three once said "the command recorded no transduce events", exit 69). Run as
/// root in a private mount namespace with an LTTng of its own (`record-fault.sh`); skipped,
/// saying why, where that cannot be made.
@Suite(.serialized) struct RecordFaultTests {
    static var namespaces: Bool {
        guard LTTngTools.available, getuid() == 0, let unshare = Subprocess.which("unshare"),
            let probe = try? Subprocess.run(
                unshare, ["--mount", "--propagation", "private", "--fork", "true"], output: .capture, timeout: 30),
            probe.status == 0
        else {
            print("RecordFaultTests skipped: they need LTTng, root and mount namespaces (unshare --mount)")
            return false
        }
        return true
    }

    @Test(
        .enabled(if: namespaces), .timeLimit(.minutes(Patience.minutes(5))),
        arguments: [
            ("full", ExpectedFault(status: 74, says: "filled up while")),
            (
                "lttng-consumerd",
                ExpectedFault(status: 75, says: "consumer daemon (lttng-consumerd), which writes the trace, went away")
            ),
            ("lttng-sessiond", ExpectedFault(status: 71, says: "session daemon (lttng-sessiond) went away")),
        ])
    func eachWayLTTngFailsIsToldApart(_ fault: String, _ expected: ExpectedFault) async throws {
        let dir = TemporaryDirectory()
        let binary = try #require(builtProduct("trace-view"))
        let example = try #require(builtProduct("TracedExample"))
        let unshare = try #require(Subprocess.which("unshare"))
        let work = dir.path
        let run = try await offThePool {
            try Subprocess.run(
                unshare,
                [
                    "--mount", "--propagation", "private", "--fork", "/bin/bash", fixtures + "/scripts/record-fault.sh", fault,
                    binary, example, work,
                ], output: .capture, timeout: 600)
        }
        #expect(run.output.contains("record exit \(expected.status)\n"), "\(fault): \(run.output)")
        #expect(run.output.contains(expected.says), "\(fault): \(run.output)")
        #expect(!run.output.contains("recorded no transduce events"), "\(fault): \(run.output)")
        // What became of the trace is said: what it holds, or why it cannot be read.
        #expect(run.output.contains("the trace in "), "\(fault): \(run.output)")
    }

    struct ExpectedFault: Sendable, CustomTestStringConvertible {
        var status: Int32
        var says: String
        var testDescription: String { "exit \(status)" }
    }
}

/// A command whose every event LTTng discarded is told as LTTng's loss (exit 79), not as an app
/// that records nothing (69): the two need opposite fixes.
@Suite struct RecordedNothingTests {
    @Test func aTraceEmptiedByDiscardsBlamesTheChannel() {
        let lost = RecordSessions.recordedNothing("app", status: 0, discarded: 4_096)
        #expect(lost.status == ExitStatus.eventsLost.rawValue)
        #expect(
            lost.message.contains("holds none of the events app recorded: LTTng discarded 4096 events meanwhile")
                && lost.message.contains("--subbuf-size") && lost.message.contains("may be other programs'"))
        let packets = RecordSessions.recordedNothing("app", status: 3, lossesUnknown: true)
        #expect(packets.status == ExitStatus.eventsLost.rawValue && packets.message.contains("(it exited with status 3)"))
        let none = RecordSessions.recordedNothing("app", status: 0)
        #expect(none.status == ExitStatus.recordedNothing.rawValue && none.message.contains("makes no TraceRecorder"))
        #expect(RecordSessions.recordedNothing("app", status: 3).status == 3)
    }

    /// A session no program wrote to leaves metadata and no packet, which a reader may refuse:
    /// that is a command that recorded nothing (69) every time, never an unreadable trace (65);
    /// a trace with packets that cannot be read stays unreadable.
    @Test func anEmptySessionIsNothingRecordedWhateverItsReaderSays() throws {
        let dir = TemporaryDirectory()
        let channel = dir.file("ust/uid/0/64-bit")
        try FileManager.default.createDirectory(atPath: channel + "/index", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: channel + "/metadata", contents: Data(repeating: 1, count: 4_096))
        _ = FileManager.default.createFile(atPath: channel + "/index/channel0_0.idx", contents: Data(repeating: 1, count: 64))
        _ = FileManager.default.createFile(atPath: channel + "/channel0_0", contents: Data())
        _ = FileManager.default.createFile(atPath: dir.file(TraceInput.recordFile), contents: Data("tag=x\n".utf8))
        #expect(RecordFailure.streamBytes(under: dir.path) == 0)
        #expect(RecordFailure.streamBytes(under: dir.file("absent")) == 0)
        var seen = RecordFailure.Observation(
            available: .max, stopFailed: false, sessionDaemonAnswers: true, consumersAtStart: 1, consumersLeft: 1,
            readError: "babeltrace2 found no stream", events: 0, streamBytes: RecordFailure.streamBytes(under: dir.path))
        #expect(RecordFailure.diagnose(seen) == .nothingRecorded)
        _ = FileManager.default.createFile(atPath: channel + "/channel0_1", contents: Data(repeating: 7, count: 4_096))
        seen.streamBytes = RecordFailure.streamBytes(under: dir.path)
        #expect(seen.streamBytes == 4_096)
        #expect(RecordFailure.diagnose(seen) == .unreadable("babeltrace2 found no stream"))
    }
}
