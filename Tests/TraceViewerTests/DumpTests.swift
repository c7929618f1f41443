import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace

@Suite struct DumpTests {
    @Test func dumpAtExitWhenTheEnvironmentNamesAFile() async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        let path = dir.file("exit.jsonl")
        // Under a caller's trace context, so that every kind is there to keep.
        let (status, output) = try await run(
            example, [], environment: ["TRANSDUCE_TRACE": path, "TRACEPARENT": TraceContexts.server.traceparent])
        #expect(status == 0, "\(output)")
        let trace = try JSONLinesReader(path: path).readAll()
        #expect(trace.notes.isEmpty)
        #expect(Set(trace.events.map(\.kind)) == Set(TraceEvent.Kind.allCases))
    }

    @Test func dumpOnSignalWithoutStopping() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("signal.tdtrace")
        let child = try startServingExample(path, in: dir)
        defer { kill(child.pid, SIGKILL) }
        kill(child.pid, TraceRecorder.dumpSignal)
        // The dump is renamed into place when complete: wait for it to appear.
        try await waitForFile(path)
        #expect(kill(child.pid, 0) == 0, "the signal must not stop the process")
        let trace = try TraceFileReader(path: path).readAll()
        #expect(trace.notes.isEmpty)
        #expect(trace.events.contains { $0.kind == .runtimeStop })
        close(child.input!)
        close(child.output)
        #expect(try Subprocess.wait(child.pid, timeout: 60, name: "TracedExample") == 0)
    }
}
