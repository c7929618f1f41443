import Transduce
import TransduceTestSupport

/// The gate and action scenarios (GateTests, LifecycleTests, DispatchTests): async actions that
/// hold the gate on a latch, chains and sequences, re-entrant dispatches, failing actions.
nonisolated enum GateProbe: Transducer {
    struct State: Sendable, Equatable {
        var events: [String] = []
    }
    enum Event: Sendable, Equatable {
        case first, firstFinished, second
        case start, started, noop, ping
        case begin, step, done
        case seqDrop, a, b, c
        case reenter, x
        case loop(Int)
        case failingAction, cancellingAction
        case bootstrap, didInit, fetch
        case bootstrapTask
    }
    struct Env: Sendable {
        var gate = Latch("gate")
        var log = TraceLog()
        var box = InputBox<Event, String>()
        var cancelInside: (@Sendable () -> Void)? = nil
    }
    typealias Response = String
    static var initialState: State { State() }

    static func transduce(_ state: inout State, event: Event) -> Effect {
        state.events.append(label(event))
        switch event {
        case .first:
            return .action(nonsendingOperation: { env in
                await env.gate.wait()
                return .firstFinished
            })
        case .start:
            return .action(nonsendingOperation: { env in
                await env.gate.wait()
                env.cancelInside?()
                env.log.append("start-returned")
                return .started
            })
        case .begin: return .action { _ in .step }
        case .step: return .action { _ in .done }
        case .seqDrop:
            return .sequence([.event(.a), .action { _ in .b }, .event(.c)])
        case .reenter:
            return .action(nonsendingOperation: { env in
                do {
                    _ = try await env.box.input?.request(.x)
                    env.log.append("no error")
                } catch {
                    env.log.append("\(error)")
                }
                try env.box.input?.post(.x)
                return nil
            })
        case .loop(let n):
            return .event(.loop(n + 1))
        case .failingAction:
            return .action(nonsendingOperation: { _ in throw Boom() })
        case .cancellingAction:
            return .action(nonsendingOperation: { _ in throw CancellationError() })
        case .bootstrap:
            return .action(nonsendingOperation: { env in
                await env.gate.wait()
                return .didInit
            })
        case .bootstrapTask:
            return .task { _, env in
                await env.gate.wait()
                return .didInit
            }
        case .firstFinished, .second, .started, .noop, .ping, .done, .a, .b, .c, .x, .didInit, .fetch:
            return .none
        }
    }

    static func response(state: State, event: Event) -> String {
        event == .done ? "response-to-done" : label(event)
    }

    static func label(_ event: Event) -> String {
        if case .loop = event { return "loop" }
        return "\(event)"
    }
}
