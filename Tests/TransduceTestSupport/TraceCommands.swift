import Foundation
import Testing
import TraceTooling
import Transduce

@testable import TransduceTrace

/// A temporary directory removed when the test ends.
package final class TemporaryDirectory {
    package let path: String
    package init() {
        path = NSTemporaryDirectory() + "transduce-test-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    package func file(_ name: String) -> String { path + "/" + name }
}

/// Runs a command (at most two minutes), returning its exit status and combined output; waited
/// for off the concurrency pool (``offThePool(_:)``).
@discardableResult
package func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String)
{
    try await offThePool { try runBlocking(executable, arguments, environment: environment) }
}

/// ``run(_:_:environment:)`` on the calling thread: only for code already off the pool.
@discardableResult
package func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (
    Int32, String
) {
    expectOffThePool("running \(executable)")
    let result = try Subprocess.run(
        executable, arguments, environment: environment, output: .capture, timeout: 120 * Patience.factor)
    return (result.status, result.output)
}

/// A product built next to the test bundle (`.build/debug/NAME`).
package func builtProduct(_ name: String) -> String? {
    var url = Bundle.main.bundleURL
    for _ in 0..<3 {
        let candidate = url.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        url.deleteLastPathComponent()
    }
    let fallback = FileManager.default.currentDirectoryPath + "/.build/debug/" + name
    return FileManager.default.isExecutableFile(atPath: fallback) ? fallback : nil
}

/// Events of every kind with every field set, for round trips.
package func sampleEvents() -> [TraceEvent] {
    var events: [TraceEvent] = []
    for (i, kind) in TraceEvent.Kind.allCases.enumerated() {
        for variant in 0..<3 {
            var e = TraceEvent(kind: kind, time: 1_000_000 + UInt64(i * 10 + variant), thread: UInt32(100 + variant), runtime: 7)
            for field in TraceSchema.fields(of: kind) {
                switch field.slot {
                case .label: e.label = variant == 2 ? "" : "label-\(kind)-\(variant) \"quoted\" \\ ü\n"
                case .label2: e.label2 = "host-\(variant)"
                case .code:
                    let codes = TraceNames.codes(of: kind)
                    e.code = UInt8(variant % codes.count)
                case .code2: e.code2 = UInt8(variant % TraceNames.rejections.count)
                case .step: e.step = UInt32(variant + 1)
                case .count: e.count = UInt32.max - UInt32(variant)
                default: e.set(field.slot, integer: UInt64.max - UInt64(variant * 1000 + i))
                }
            }
            if kind == .dispatch && variant == 1 { e.payload = "refresh(page: 2)" }
            events.append(e)
        }
    }
    return events
}

package extension Trace {
    func binaryBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        TraceFileWriter.encodeBinary(self) { bytes += $0 }
        return bytes
    }

    func jsonLinesBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        JSONLines.encode(self) { bytes += $0 }
        return bytes
    }
}

/// The first line a child writes to `descriptor` (its standard output), waiting at most
/// `seconds` (poll, no busy wait); throws ``TimeoutError`` when none comes in time.
package func firstLine(of descriptor: Int32, within seconds: Double = 60) throws -> String {
    var bytes: [UInt8] = []
    let deadline = Date().addingTimeInterval(seconds)
    while !bytes.contains(0x0A) {
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else { throw TimeoutError(what: "a line from the child") }
        var descriptorPoll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptorPoll, 1, Int32(left * 1000)) > 0 else { continue }
        var chunk = [UInt8](repeating: 0, count: 256)
        let n = read(descriptor, &chunk, chunk.count)
        guard n > 0 else { break }
        bytes += chunk[0..<n]
    }
    return String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
}

/// Waits (at most 10 s) until `path` exists: a dump is renamed into place only when complete.
package func waitForFile(_ path: String) async throws {
    try await withTimeout {
        while !FileManager.default.fileExists(atPath: path) { try await Task.sleep(for: .milliseconds(5)) }
    }
}

/// `TracedExample --serve PATH`, started with its input and output pipes close-on-exec here (see
/// `Subprocess.start`): returns once it has said it is ready.
package func startServingExample(_ path: String, in directory: TemporaryDirectory) throws -> Subprocess.Child {
    let example = try #require(builtProduct("TracedExample"))
    let child = try Subprocess.start(example, ["--serve", path], errors: directory.file("serve.err"), input: true)
    let ready = try firstLine(of: child.output)
    #expect(ready.hasPrefix("ready"), "\(ready)")
    return child
}

/// Where complete slices (start, end in µs) of a Chrome export partly overlap on a track, which
/// Perfetto (sorting by time) cannot nest: the first place on each track.
package func overlappingSlices(_ slices: [String: [(Double, Double)]]) -> [String] {
    var problems: [String] = []
    for (track, list) in slices {
        let sorted = list.sorted { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 > $1.1) }
        var stack: [Double] = []
        for (start, end) in sorted {
            while let top = stack.last, top <= start { stack.removeLast() }
            if let top = stack.last, end > top + 0.0005 {
                problems.append("chrome: slices overlap on track \(track) at \(start) µs")
                break
            }
            stack.append(end)
        }
    }
    return problems
}

/// Records an issue when called from a test's own task, which runs on a thread of the concurrency
/// pool: a wait of seconds for a child process there starves the in-process tests beside it,
/// which is how plain `swift test` failed on a loaded machine. The blocking helpers call it;
/// tests await their async forms (or ``offThePool(_:)``, whose thread has no current test).
package func expectOffThePool(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    if Test.current != nil {
        Issue.record("\(what) blocks a thread of the concurrency pool: await its async form", sourceLocation: sourceLocation)
    }
}

/// Runs `body` on a thread of its own and awaits its result: a test that waits seconds on child
/// processes must not hold one of the concurrency pool's threads meanwhile (two on a two-core
/// machine), or the async tests beside it (the terminal UI's, which poll a screen) starve past
/// their deadlines. `body` records no issues (it runs outside the test's task): it returns what
/// the test then checks.
package func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// ``offThePool(_:)``, with how long `body` took, timed on its own thread: what a test times of a
/// child process, without the wait to resume the test's task on a busy pool (plain `swift test`
/// once counted 63 s of that as trace-view's).
package func timedOffThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> (T, Duration) {
    try await offThePool {
        let started = ContinuousClock.now
        let value = try body()
        return (value, ContinuousClock.now - started)
    }
}

/// Runs the built trace-view (``traceViewBlocking(_:columns:lttng:environment:)``), waited for
/// off the concurrency pool (``offThePool(_:)``).
package func traceView(
    _ arguments: [String], columns: Int? = 100, lttng: Bool = false, environment: [String: String] = [:]
) async throws -> (status: Int32, out: String, err: String) {
    try await offThePool { try traceViewBlocking(arguments, columns: columns, lttng: lttng, environment: environment) }
}

/// Whether headless Chromium and Python (for `scripts/browser-check.py`) are installed.
package let browserAvailable = Subprocess.which("chromium") != nil && Subprocess.which("python3") != nil

/// What headless Chromium saw of a page (`scripts/browser-check.py`): `raw` is its JSON, with
/// the value of the evaluated expression and the screenshot's figures.
package struct BrowserSeen {
    package var raw: [String: Any]
    package var value: Any? { raw["value"] }
    package var screenshot: [String: Any] { raw["screenshot"] as? [String: Any] ?? [:] }
}

/// Opens `path` (at `#fragment`, in a dark scheme when `dark`) in headless Chromium, evaluates
/// `eval` once it has loaded, and expects it loaded with no console error and no network request.
package func browserCheck(
    _ path: String, eval: String, fragment: String? = nil, screenshot: String? = nil, width: Int = 1400,
    height: Int = 1000, dark: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> BrowserSeen {
    let python = try #require(Subprocess.which("python3"))
    let script =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/scripts/browser-check.py"
    var arguments = [script, path, "--eval", eval, "--width", "\(width)", "--height", "\(height)", "--seconds", "120"]
    if let fragment { arguments += ["--fragment", fragment] }
    if let screenshot { arguments += ["--screenshot", screenshot] }
    if dark { arguments.append("--dark") }
    let all = arguments
    let check = try await offThePool { try Subprocess.run(python, all, output: .capture, timeout: 240 * Patience.factor) }
    #expect(check.status == 0, "\(check.output)", sourceLocation: sourceLocation)
    let line = try #require(
        check.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(check.output)", sourceLocation: sourceLocation)
    let seen = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], sourceLocation: sourceLocation)
    #expect(seen["loaded"] as? Bool == true, sourceLocation: sourceLocation)
    #expect((seen["errors"] as? [String])?.isEmpty == true, "\(seen)", sourceLocation: sourceLocation)
    #expect((seen["requests"] as? [String])?.isEmpty == true, "\(seen)", sourceLocation: sourceLocation)
    return BrowserSeen(raw: seen)
}

/// `events` (their processes on `hosts`) written as a trace file in `dir`, and that file
/// exported with `trace-view export --format FORMAT` to `dir`'s `export.NAME`: the trace file's
/// path, the export's, and trace-view's standard error (its status is expected to be 0).
package func exportTrace(
    _ events: [TraceEvent], hosts: [UInt32: String] = [:], format: String, in dir: TemporaryDirectory,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> (input: String, path: String, err: String) {
    var trace = Trace(events: events)
    trace.hosts = hosts
    let input = dir.file("trace.tdtrace")
    try TraceFileWriter.write(trace, to: input)
    let path = dir.file("export." + format)
    let (status, _, err) = try await traceView(["export", "--format", format, "--output", path, input])
    #expect(status == 0, "\(err)", sourceLocation: sourceLocation)
    return (input, path, err)
}
