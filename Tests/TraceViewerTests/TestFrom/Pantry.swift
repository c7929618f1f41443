import Transduce

/// The feature `TestFromTests` records and writes tests from. This file is copied, as it is, into
/// the package where the written tests are compiled (beside them, as a user's feature would be),
/// and once with the line marked MUTATION changed: a changed state update, which every test whose
/// window stocks a shelf must catch.
///
/// Stocking a shelf to a multiple of five chains `restocked`; taking more than a shelf holds
/// chains `shortage`; `count` starts a task whose result (the total it captured) re-enters as a
/// request.
nonisolated enum Pantry: Transducer {
    struct State: Sendable, Equatable, Codable {
        var shelves: [String: Int] = [:]
        var restocks = 0
        var shortages: [String] = []
        var counts = 0
        var lastCount = 0
    }

    enum Event: Sendable, Equatable, Codable {
        case stock(String, Int), take(String, Int), restocked(String), shortage(String), count, counted(Int)
    }

    typealias Response = Int

    static var initialState: State { State() }

    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .stock(let item, let amount):
            state.shelves[item, default: 0] += amount  // MUTATION
            return state.shelves[item]! % 5 == 0 ? .event(.restocked(item)) : .none
        case .take(let item, let amount):
            guard let held = state.shelves[item], held >= amount else { return .event(.shortage(item)) }
            state.shelves[item] = held - amount
            return .none
        case .restocked:
            state.restocks += 1
            return .none
        case .shortage(let item):
            state.shortages = Array((state.shortages + [item]).suffix(3))
            return .none
        case .count:
            let total = state.shelves.values.reduce(0, +)
            return .task(id: "count") { _, _ in .counted(total) }
        case .counted(let total):
            state.counts += 1
            state.lastCount = total
            return .none
        }
    }

    static func response(state: State, event: Event) -> Int { state.shelves.values.reduce(0, +) }
}
