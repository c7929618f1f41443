import Synchronization
import Testing

@testable import Transduce

struct TimeoutError: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Runs `operation`, failing with `TimeoutError` after `seconds`. The operation must be
/// cancellable (every runtime dispatch is: cancelling the caller gives up the wait).
func withTimeout<R: Sendable>(
    _ seconds: Double = 5, _ what: String = "operation", _ operation: @escaping @Sendable () async throws -> R
) async throws -> R {
    try await withThrowingTaskGroup(of: R.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TimeoutError(what: what)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// A one-shot signal with a timeout: `fulfill()` from anywhere, `wait()` in the test.
final class Expectation: Sendable {
    private let state = Lock<(fulfilled: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    let name: String
    init(_ name: String = "expectation") { self.name = name }

    func fulfill() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            guard !s.fulfilled else { return [] }
            s.fulfilled = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }

    var isFulfilled: Bool { state.withLock { $0.fulfilled } }

    func wait(timeout: Double = 5) async throws {
        try await withTimeout(timeout, name) { [self] in
            await withCheckedContinuation { c in
                let done = state.withLock { s -> Bool in
                    if s.fulfilled { return true }
                    s.waiters.append(c)
                    return false
                }
                if done { c.resume() }
            }
            try Task.checkCancellation()
        }
    }
}

/// A gate that async work waits on until the test opens it. `wait()` ignores cancellation
/// (non-cooperative work); `waitCooperatively()` throws when the waiting task is cancelled.
final class AsyncGate: Sendable {
    private struct State {
        var open = false
        var next = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }
    private let state = Lock(State())
    let entered = Expectation("gate entered")

    func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for w in waiters { w.resume() }
    }

    var isOpen: Bool { state.withLock { $0.open } }

    func wait() async {
        entered.fulfill()
        await withCheckedContinuation { c in suspend(c) }
    }

    func waitCooperatively() async throws {
        entered.fulfill()
        let key = state.withLock { s -> Int in
            s.next += 1
            return s.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { c in suspend(c, key: key) }
        } onCancel: {
            let c = state.withLock { $0.waiters.removeValue(forKey: key) }
            c?.resume()
        }
        try Task.checkCancellation()
    }

    private func suspend(_ c: CheckedContinuation<Void, Never>, key: Int? = nil) {
        let resumeNow = state.withLock { s -> Bool in
            if s.open { return true }
            if let key {
                if Task.isCancelled { return true }
                s.waiters[key] = c
            } else {
                s.next += 1
                s.waiters[s.next] = c
            }
            return false
        }
        if resumeNow { c.resume() }
    }
}

/// A thread-safe log of strings.
final class TraceLog: Sendable {
    private let items = Lock<[String]>([])
    func append(_ s: String) { items.withLock { $0.append(s) } }
    var all: [String] { items.withLock { $0 } }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    @discardableResult func increment() -> Int { value.wrappingAdd(1, ordering: .relaxed).newValue }
    var count: Int { value.load(ordering: .relaxed) }
}

struct Boom: Error, Equatable {}
struct Later: Error, Equatable {}

/// Polls `condition` every millisecond until it holds; fails after `timeout`. For state that is
/// reached through tasks the test cannot otherwise observe.
func eventually(
    _ what: String, timeout: Double = 5, _ condition: @escaping @Sendable () async -> Bool
) async throws {
    try await withTimeout(timeout, what) {
        while !(await condition()) { try await Task.sleep(for: .milliseconds(1)) }
    }
}

/// Expects `body` to throw an error equal to `expected`.
func expectThrows<E: Error & Equatable>(
    _ expected: E, sourceLocation: SourceLocation = #_sourceLocation, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected \(expected) to be thrown, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as E {
        #expect(error == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
    }
}

func expectCancellation(
    sourceLocation: SourceLocation = #_sourceLocation, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected CancellationError, nothing was thrown", sourceLocation: sourceLocation)
    } catch is CancellationError {
    } catch {
        Issue.record("expected CancellationError, got \(error)", sourceLocation: sourceLocation)
    }
}

/// A recording instrument for tests.
final class TestInstrument: RuntimeInstrument {
    private let events = Lock<[RuntimeEvent]>([])
    var isRecording: Bool { true }
    func record(_ event: RuntimeEvent) { events.withLock { $0.append(event) } }
    var all: [RuntimeEvent] { events.withLock { $0 } }
}
