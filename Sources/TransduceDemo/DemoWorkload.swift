// The built-in instrumented workload of `trace-view demo` and `TracedExample`: every kind of
// runtime event, on one `BaseRuntime`, in a few tens of milliseconds. Written against the
// runtime's public API only, as an app would be.
import Foundation
import Transduce

/// A gate the workload opens itself, so each scene unfolds in a fixed order without sleeps.
///
/// Guarded by an `NSLock` (pthread-based) rather than `Synchronization.Mutex`, whose futex
/// ThreadSanitizer does not see as synchronization.
final class Signal: @unchecked Sendable {  // `open` and `waiters` are only touched under `lock`
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if isOpen {
                lock.unlock()
                continuation.resume()
                return
            }
            waiters.append(continuation)
            lock.unlock()
        }
    }

    func open() {
        lock.lock()
        isOpen = true
        let waiting = waiters
        waiters = []
        lock.unlock()
        waiting.forEach { $0.resume() }
    }
}

/// A backend whose calls block on signals the workload controls.
public final class DemoBackend: Sendable {
    let loadRelease = Signal()
    let loadStarted = Signal()
    let priceRelease = Signal()
    let priceStarted = Signal()
    let fetchRelease = Signal()
    let earlyRefreshRelease = Signal()
    let lateRefreshRelease = Signal()

    public init() {}
}

public nonisolated enum Storefront: Transducer {
    public struct State: Sendable {
        public var items: [String] = []
        public var prices = 0
        public var pings = 0
        public var page = 0
        public var refreshes = 0
        public var fetches = 0
    }

    public enum Event: Sendable {
        case load, loaded([String])
        case ping
        case refresh(page: Int)
        case fetchShared
        case syncPrices, pricesSynced
        case reset, resetDone
    }

    public typealias Env = DemoBackend
    public typealias Response = Int

    public static var initialState: State { State() }

    public static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .load:
            // The chart: the request's waiter moves into this task; the gate is released.
            return .task(id: "load") { _, backend -> TaskReturn in
                backend.loadStarted.open()
                await backend.loadRelease.wait()
                return .request(.loaded(["apples", "pears"]))
            }
        case .loaded(let items):
            state.items = items
            return .none
        case .ping:
            state.pings += 1
            return .none
        case .refresh(let page):
            state.page = page
            state.refreshes += 1
            return .task(id: "refresh") { _, backend -> TaskReturn in
                // Released by the workload once the scene's dispatches were all transduced, so the
                // replacement and the cancellation happen whatever the machine's load.
                await (page < 3 ? backend.earlyRefreshRelease : backend.lateRefreshRelease).wait()
                try Task.checkCancellation()
                return .response(.loaded(["page \(page)"]))
            }
        case .fetchShared:
            state.fetches += 1
            return .task(id: "catalogue", option: .shareable) { _, backend -> TaskReturn in
                await backend.fetchRelease.wait()
                return .request(.loaded(["shared"]))
            }
        case .syncPrices:
            // An async action: the gate stays held while it is suspended.
            return .action(nonsendingOperation: { backend in
                backend.priceStarted.open()
                await backend.priceRelease.wait()
                return .pricesSynced
            })
        case .pricesSynced:
            state.prices += 1
            return .none
        case .reset:
            return .sequence([.event(.ping), .cancel("refresh"), .event(.resetDone)])
        case .resetDone:
            state.items = []
            return .none
        }
    }

    public static func response(state: State, event: Event) -> Int { state.items.count + state.pings }

    public static func traceLabel(of event: Event) -> EventLabel {
        switch event {
        case .load: "load"
        case .loaded: "loaded"
        case .ping: "ping"
        case .refresh: "refresh"
        case .fetchShared: "fetchShared"
        case .syncPrices: "syncPrices"
        case .pricesSynced: "pricesSynced"
        case .reset: "reset"
        case .resetDone: "resetDone"
        }
    }
}

/// Runs the demo scenes on a fresh `BaseRuntime` that reports to `instrument`.
///
/// Scenes, in order: the request-lifecycle chart (a request suspended on its task while a `send`
/// gets through the gate), a `switchToLatest` replacement, a `shareable` join, a `uniqueRequest`,
/// four callers contending with an async action that holds the gate, a sequence that drops an
/// intermediate event, and a `post` after `cancel()`.
public enum DemoWorkload {
    struct StalledError: Error, CustomStringConvertible {
        var description: String { "demo workload: a scene did not reach its state within 10 s" }
    }

    /// Waits until `condition` holds (a state read is an actor hop, so it sees whole cycles).
    /// Sleeps between checks rather than yielding: a yield loop keeps a cooperative thread busy
    /// and, with several workloads at once on two cores, can starve the runtimes it waits for.
    static func until(_ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw StalledError() }
            try await Task.sleep(for: .microseconds(200))
        }
    }

    public static func run(instrument: (any RuntimeInstrument)?) async throws -> RuntimeID {
        let backend = DemoBackend()
        let runtime = BaseRuntime(of: Storefront.self, env: backend, instrument: instrument)
        let input = runtime.input

        // 1. The chart.
        async let loaded = input.request(.load)
        await backend.loadStarted.wait()
        try await input.send(.ping)
        backend.loadRelease.open()
        _ = try await loaded

        // 2. switchToLatest: the second refresh replaces the first; both callers get its result.
        async let first = input.request(.refresh(page: 1))
        async let second = input.request(.refresh(page: 2))
        try await until { await runtime.state.refreshes == 2 }
        backend.earlyRefreshRelease.open()
        _ = try await (first, second)

        // 3. shareable: the second caller joins the running fetch.
        async let a = input.request(.fetchShared)
        async let b = input.request(.fetchShared)
        try await until { await runtime.state.fetches == 2 }
        backend.fetchRelease.open()
        _ = try await (a, b)

        // 4. uniqueRequest: cancels the live refresh first.
        try input.post(.refresh(page: 3))
        async let unique = input.uniqueRequest(.refresh(page: 4))
        try await until { await runtime.state.refreshes == 4 }
        backend.lateRefreshRelease.open()
        _ = try await unique

        // 5. Contention: four callers wait while an async action holds the gate.
        try input.post(.syncPrices)
        await backend.priceStarted.wait()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { try await input.send(.ping) } }
            try await Task.sleep(for: .milliseconds(2))
            backend.priceRelease.open()
            try await group.waitForAll()
        }

        // 6. A sequence drops its intermediate event.
        try await input.send(.reset)

        // 7. Stop, then a rejected dispatch.
        runtime.cancel()
        _ = try? input.post(.ping)
        return runtime.runtimeID
    }
}
