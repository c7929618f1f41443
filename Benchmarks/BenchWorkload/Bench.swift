// The workload both benchmark programs measure (transduce-bench in time, transduce-callgrind in
// instructions), so that their figures are of one transducer. Inlinable, as an app's own
// transducer is to its own code: the runtime is specialized for it in the program that runs it.
import Transduce

/// The smallest transducer: `tick` has effect `.none`; `work` a task whose result re-enters.
public nonisolated enum Bench: Transducer {
    /// A counter.
    public struct State: Sendable {
        public var count = 0
        @inlinable public init() {}
    }
    /// `tick` counts; `work` starts a task that answers with `tick`.
    public enum Event: Sendable { case tick, work }
    public typealias Response = Int
    @inlinable public static var initialState: State { State() }
    @inlinable
    public static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .tick:
            state.count += 1
            return .none
        case .work:
            return .task { _, _ -> TaskReturn in .response(.tick) }
        }
    }
    @inlinable public static func response(state: State, event: Event) -> Int { state.count }
    @inlinable
    public static func traceLabel(of event: Event) -> EventLabel {
        switch event {
        case .tick: "tick"
        case .work: "work"
        }
    }
}
