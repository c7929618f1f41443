import Synchronization
import TransduceTestSupport

@testable import Transduce

nonisolated enum CounterFeature: Transducer {
    struct State: Sendable, Equatable {
        var count = 0
        var label = "default"
    }
    enum Event: Sendable, Equatable { case increment, decrement, noop }
    typealias Response = Int
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .increment: state.count += 1
        case .decrement: state.count -= 1
        case .noop: break
        }
        return .none
    }
    static func response(state: State, event: Event) -> Int { state.count }
}

/// Records every transduced value; the response is the whole log.
nonisolated enum LogFeature: Transducer {
    struct State: Sendable { var log: [Int] = [] }
    enum Event: Sendable { case record(Int), noop }
    typealias Response = [Int]
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        if case .record(let i) = event { state.log.append(i) }
        return .none
    }
    static func response(state: State, event: Event) -> [Int] { state.log }
}

/// The seed's loader: `.load` starts a task, `.ticker` a periodic one.
nonisolated enum LoaderFeature: Transducer {
    struct State: Sendable, Equatable {
        var items: [String] = []
        var error: String?
        var ticks = 0
    }
    enum Event: Sendable, Equatable {
        case load, loaded([String]), failed(String), startTicker, ticked, stopTicker, refresh, noop
    }
    struct Env: Sendable {
        var fetch: @Sendable () async throws -> [String]
    }
    typealias Response = [String]
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .load:
            return .task(id: "load") { input, env in
                do { try input.post(.loaded(try await env.fetch())) } catch { try input.post(.failed("\(error)")) }
            }
        case .loaded(let items):
            state.items = items
            return .none
        case .failed(let message):
            state.error = message
            return .none
        case .startTicker:
            return .task(id: "ticker") { input, _ in
                while !Task.isCancelled {
                    try await Task.sleep(for: .milliseconds(20))
                    try input.post(.ticked)
                }
            }
        case .ticked:
            state.ticks += 1
            return .none
        case .stopTicker:
            return .cancel("ticker")
        case .refresh:
            return .sequence([.cancel("old"), .task(id: "new") { _, _ in }])
        case .noop:
            return .none
        }
    }
    static func response(state: State, event: Event) -> [String] { state.items }
}

/// A box that lets an Env reach the host's own input (for re-entrancy tests).
final class InputBox<E: Sendable, R: Sendable>: Sendable {
    private let storage = Lock<TransducerInput<E, R>?>(nil)
    var input: TransducerInput<E, R>? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
