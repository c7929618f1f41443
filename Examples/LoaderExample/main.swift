// A catalogue loader on `BaseRuntime`: a `switchToLatest` refresh, a `shareable` fetch, and all
// four dispatch styles. Run it with `swift run LoaderExample`.
import Synchronization
import Transduce

/// A fake backend: each fetch takes a few milliseconds and counts how often it really ran.
final class Backend: Sendable {
    private let calls = Atomic<Int>(0)
    var callCount: Int { calls.load(ordering: .relaxed) }

    func fetchCatalogue(page: Int) async throws -> [String] {
        let n = calls.wrappingAdd(1, ordering: .relaxed).newValue
        try await Task.sleep(for: .milliseconds(20))
        return (1...3).map { "item \(page).\($0) (fetch #\(n))" }
    }
}

nonisolated enum Catalogue: Transducer {
    struct State: Sendable {
        var items: [String] = []
        var page = 0
        var log: [String] = []
    }
    enum Event: Sendable {
        case refresh(page: Int)
        case fetchShared
        case loaded([String])
        case note(String)
    }
    typealias Env = Backend
    typealias Response = [String]

    static var initialState: State { State() }

    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .refresh(let page):
            state.page = page
            // A newer refresh replaces an older one; its waiters move to the new task.
            return .task(id: "refresh", option: .switchToLatest) { _, backend in
                .loaded(try await backend.fetchCatalogue(page: page))
            }
        case .fetchShared:
            // Concurrent callers share one in-flight fetch.
            return .task(id: "shared", option: .shareable) { _, backend in
                .loaded(try await backend.fetchCatalogue(page: 0))
            }
        case .loaded(let items):
            state.items = items
            return .none
        case .note(let text):
            state.log.append(text)
            return .none
        }
    }

    static func response(state: State, event: Event) -> [String] { state.items }

    static func traceLabel(of event: Event) -> EventLabel {
        switch event {
        case .refresh: "refresh"
        case .fetchShared: "fetchShared"
        case .loaded: "loaded"
        case .note: "note"
        }
    }
}

@main
enum LoaderExample {
    static func main() async throws {
        let backend = Backend()
        let runtime = BaseRuntime(of: Catalogue.self, env: backend)
        let input = runtime.input

        // post: fire and forget.
        try input.post(.note("started"))
        // send: resumes once the event's cycle has committed.
        try await input.send(.note("sent"))
        print("log after send:", await runtime.state.log)

        // request + switchToLatest: the second refresh replaces the first; both callers get page 2.
        async let first = input.request(.refresh(page: 1))
        try await Task.sleep(for: .milliseconds(5))
        async let second = input.request(.refresh(page: 2))
        let (a, b) = try await (first, second)
        print("switchToLatest: first caller got", a ?? [], "\n                second caller got", b ?? [])

        // request + shareable: three callers, one backend call.
        let before = backend.callCount
        async let s1 = input.request(.fetchShared)
        async let s2 = input.request(.fetchShared)
        async let s3 = input.request(.fetchShared)
        let shared = try await [s1, s2, s3]
        print(
            "shareable: \(shared.count) callers, \(backend.callCount - before) backend call(s), same result:",
            Set(shared.map { $0 ?? [] }).count == 1)

        // uniqueRequest: cancels every live task first, then runs on its own.
        async let slow = input.request(.refresh(page: 9))
        try await Task.sleep(for: .milliseconds(5))
        let unique = try await input.uniqueRequest(.refresh(page: 3))
        do {
            _ = try await slow
            print("uniqueRequest: the earlier refresh was not cancelled (unexpected)")
        } catch is CancellationError {
            print("uniqueRequest: earlier refresh cancelled; unique result", unique ?? [])
        }

        runtime.cancel()
        do { try input.post(.note("late")) } catch { print("post after cancel:", error) }
    }
}
