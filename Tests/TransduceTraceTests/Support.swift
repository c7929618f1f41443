import Foundation
import Testing
import TraceTooling
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

/// A temporary directory removed when the test ends.
final class TemporaryDirectory {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "transduce-test-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
}

/// Runs a command (at most two minutes), returning its exit status and combined output.
@discardableResult
func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
    let result = try Subprocess.run(executable, arguments, environment: environment, output: .capture, timeout: 120)
    return (result.status, result.output)
}

/// A product built next to the test bundle (`.build/debug/NAME`).
func builtProduct(_ name: String) -> String? {
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
func sampleEvents() -> [TraceEvent] {
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

extension Trace {
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
func firstLine(of descriptor: Int32, within seconds: Double = 60) throws -> String {
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
func waitForFile(_ path: String) async throws {
    try await withTimeout {
        while !FileManager.default.fileExists(atPath: path) { try await Task.sleep(for: .milliseconds(5)) }
    }
}

/// `TracedExample --serve PATH`, started with its input and output pipes close-on-exec here (see
/// `Subprocess.start`): returns once it has said it is ready.
func startServingExample(_ path: String, in directory: TemporaryDirectory) throws -> Subprocess.Child {
    let example = try #require(builtProduct("TracedExample"))
    let child = try Subprocess.start(example, ["--serve", path], errors: directory.file("serve.err"), input: true)
    let ready = try firstLine(of: child.output)
    #expect(ready.hasPrefix("ready"), "\(ready)")
    return child
}

/// Where complete slices (start, end in µs) of a Chrome export partly overlap on a track, which
/// Perfetto (sorting by time) cannot nest: the first place on each track.
func overlappingSlices(_ slices: [String: [(Double, Double)]]) -> [String] {
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

/// Runs `body` on a thread of its own and awaits its result: a test that waits seconds on child
/// processes must not hold one of the concurrency pool's threads meanwhile (two on a two-core
/// machine), or the async tests beside it (the terminal UI's, which poll a screen) starve past
/// their deadlines. `body` records no issues (it runs outside the test's task): it returns what
/// the test then checks.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// ``traceView(_:columns:lttng:environment:)``, waited for off the concurrency pool
/// (``offThePool(_:)``).
func traceViewAsync(
    _ arguments: [String], columns: Int? = 100, environment: [String: String] = [:]
) async throws -> (status: Int32, out: String, err: String) {
    try await offThePool { try traceView(arguments, columns: columns, environment: environment) }
}
