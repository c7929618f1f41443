import Foundation
import Testing

@testable import TransduceTrace

@Suite struct DumpTests {
    @Test func dumpAtExitWhenTheEnvironmentNamesAFile() throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        let path = dir.file("exit.jsonl")
        let (status, output) = try run(example, [], environment: ["TRANSDUCE_TRACE": path])
        #expect(status == 0, "\(output)")
        let trace = try JSONLinesReader(path: path).readAll()
        #expect(trace.notes.isEmpty)
        #expect(Set(trace.events.map(\.kind)) == Set(TraceEvent.Kind.allCases))
    }

    @Test func dumpOnSignalWithoutStopping() async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        let path = dir.file("signal.tdtrace")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: example)
        process.arguments = ["--serve", path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // Wait for the explicit "ready" line, then signal.
        let ready = try await withTimeout {
            String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        #expect(ready.hasPrefix("ready"))
        kill(process.processIdentifier, TraceRecorder.dumpSignal)
        // The dump is renamed into place when complete: wait for it to appear.
        try await withTimeout {
            while !FileManager.default.fileExists(atPath: path) { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(process.isRunning, "the signal must not stop the process")
        let trace = try TraceFileReader(path: path).readAll()
        #expect(trace.notes.isEmpty)
        #expect(trace.events.contains { $0.kind == .runtimeStop })
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
