import Synchronization
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

nonisolated enum Shop: Transducer {
    struct State: Sendable { var value = "" }
    enum Event: Sendable {
        case load, loaded(String), ping, fetch, hold, held, boom, noop
    }
    struct Env: Sendable {
        var gate = Latch("gate")
        var runs = Counter()
    }
    typealias Response = String
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .load:
            return .task(id: "load") { _, env -> TaskReturn in
                let n = env.runs.increment()
                if n == 1 { await env.gate.wait() }
                return .request(.loaded("v\(n)"))
            }
        case .loaded(let v):
            state.value = v
            return .none
        case .fetch:
            return .task(id: "fetch", option: .shareable) { _, env -> TaskReturn in
                await env.gate.wait()
                return .request(.loaded("shared"))
            }
        case .hold:
            return .action(nonsendingOperation: { env in
                await env.gate.wait()
                return .held
            })
        case .boom:
            return .task { _, _ in throw Boom() }
        case .ping, .held, .noop:
            return .none
        }
    }
    static func response(state: State, event: Event) -> String { state.value }
    static func traceLabel(of event: Event) -> EventLabel {
        switch event {
        case .load: "load"
        case .loaded: "loaded"
        case .ping: "ping"
        case .fetch: "fetch"
        case .hold: "hold"
        case .held: "held"
        case .boom: "boom"
        case .noop: "noop"
        }
    }
}
