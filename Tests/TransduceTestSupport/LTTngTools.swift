import CLTTng
import Foundation
import Testing
import TraceTooling
import TransduceTraceCTF

@testable import TransduceTrace

/// What the LTTng tests need, and why they skip without it.
package enum LTTngTools {
    package static let babeltrace = Subprocess.which("babeltrace2")

    package static var missing: String? {
        if clttng_available() == 0 { return "this build has no LTTng-UST (install liblttng-ust-dev)" }
        if case .disabled(let reason) = LTTngProvider.status { return "LTTng is disabled (\(reason))" }
        if case .unavailable(let reason) = LTTngProvider.status {
            return "LTTng-UST cannot be loaded (\(reason))"
        }
        if let missing = LTTngSession.toolsMissing { return missing }
        if babeltrace == nil || !CTFTraceReader.isAvailable { return "babeltrace2 / libbabeltrace2-dev is not installed" }
        return nil
    }

    package static var available: Bool {
        if let missing {
            print("LTTng tests skipped: \(missing) (scripts/bootstrap.sh installs it)")
            return false
        }
        return true
    }

    /// Records `command` under a fresh session and returns the CTF directory; waited for off the
    /// concurrency pool.
    package static func record(into directory: String, _ command: String, _ arguments: [String]) async throws -> (
        ctf: String, pid: Int32
    ) {
        try await offThePool { try recordBlocking(into: directory, command, arguments) }
    }

    /// ``record(into:_:_:)`` on the calling thread.
    package static func recordBlocking(into directory: String, _ command: String, _ arguments: [String]) throws -> (
        ctf: String, pid: Int32
    ) {
        expectOffThePool("recording \(command)")
        let ctf = directory + "/ctf"
        let session = try LTTngSession(
            name: "transduce-test-\(UUID().uuidString.prefix(8))", output: ctf, events: ["transduce:*"],
            contexts: ["vtid", "vpid"])
        defer { session.destroy() }
        try session.start()
        let result = try Subprocess.run(command, arguments, output: .capture, timeout: 120 * Patience.factor)
        try session.stop()
        guard result.status == 0 else { throw Subprocess.Failure("\(command) exited \(result.status): \(result.output)") }
        return (ctf, result.pid)
    }
}

/// The fields that both sinks carry (all but the time, which each sink stamps itself).
package struct Comparable: Hashable {
    package var kind: TraceEvent.Kind
    package var thread: UInt32
    package var runtime, dispatch, cycle, task, otherTask, nanos: UInt64
    package var step, count: UInt32
    package var code, code2: UInt8
    package var label, label2: String
    package init(_ e: TraceEvent) {
        kind = e.kind
        thread = e.thread
        runtime = e.runtime
        dispatch = e.dispatch
        cycle = e.cycle
        task = e.task
        otherTask = e.otherTask
        nanos = e.nanos
        step = e.step
        count = e.count
        code = e.code
        code2 = e.code2
        label = e.label
        label2 = e.label2
    }
}

/// `trace-view record …` with LTTng on: status and both output streams together.
package func traceViewRecord(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    try await offThePool { try traceViewRecordBlocking(arguments) }
}

/// `count` processes of `TracedExample --repeat repeats` started at once under `trace-view
/// record --output DIR/ctf`, each keeping its ring (the ground truth of its own events): the
/// CTF directory, and each process's ring events by pid.
package func recordExamples(_ count: Int, repeats: Int, in dir: TemporaryDirectory) async throws -> (
    ctf: String, rings: [UInt32: [TraceEvent]]
) {
    let example = try #require(builtProduct("TracedExample"), "TracedExample was not built")
    let ctf = dir.file("ctf")
    let script = "for i in $(seq \(count)); do \"$0\" --repeat \(repeats) \"$1/ring-$i.tdtrace\" & done; wait"
    let recorded = try await traceViewRecord(["--output", ctf, "--", "/bin/sh", "-c", script, example, dir.path])
    #expect(recorded.status == 0, "\(recorded.output)")
    var rings: [UInt32: [TraceEvent]] = [:]
    for i in 1...count {
        let trace = try TraceFileReader(path: dir.file("ring-\(i).tdtrace")).readAll()
        let pid = try #require(trace.events.first?.process)
        rings[pid] = trace.events
    }
    return (ctf, rings)
}

/// ``traceViewRecord(_:)`` on the calling thread.
package func traceViewRecordBlocking(_ arguments: [String]) throws -> (status: Int32, output: String) {
    expectOffThePool("trace-view record")
    let tool = try #require(builtProduct("trace-view"))
    let result = try Subprocess.run(tool, ["record"] + arguments, output: .capture, timeout: 600 * Patience.factor)
    return (result.status, result.output)
}

/// Whether this test process (and so the children built with it) runs under ThreadSanitizer.
package let underThreadSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
