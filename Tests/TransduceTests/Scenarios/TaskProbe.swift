import Transduce
import TransduceTestSupport

/// The managed-task scenarios (TaskTests, LifecycleTests, InstrumentTests): shareable,
/// switchToLatest, anonymous and unique fetches whose first instance waits on a latch, chains of
/// tasks, responses, restarts, and an async action to queue behind.
nonisolated enum TaskProbe: Transducer {
    struct State: Sendable, Equatable {
        var events: [String] = []
        var value = ""
    }
    enum Event: Sendable, Equatable {
        case first, firstFinished, noop, ping
        case fetchShared, fetchSwitch, fetchAnon, fetchUnique
        case result(String)
        case stop
        case load, loaded(String)
        case chainA, chainB, chainDone
        case respondA, respondStep, respondDone
        case restart
    }
    struct Env: Sendable {
        var gate = Latch("gate")
        var counter = Counter()
        var log = TraceLog()
        var taskResult: @Sendable (Int) async throws -> String = { n in "result-\(n)" }
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
        case .fetchShared, .fetchSwitch, .fetchAnon, .fetchUnique:
            let option: TaskAdditionPolicy = event == .fetchShared ? .shareable : .switchToLatest
            let id: TaskIdentifier? = event == .fetchAnon ? nil : "shared"
            return .task(id: id, option: option) { _, env -> TaskReturn in
                let n = env.counter.increment()
                env.log.append("run-\(n)")
                if n == 1 {
                    do { try await env.gate.waitCooperatively() } catch {
                        env.log.append("cancelled-\(n)")
                        throw error
                    }
                }
                return .request(.result(try await env.taskResult(n)))
            }
        case .result(let value):
            state.value = value
            return .none
        case .stop: return .cancel("shared")
        case .load:
            return .task(id: "load") { _, env -> TaskReturn in
                env.log.append("task-start")
                await env.gate.wait()
                env.log.append("task-end")
                return .request(.loaded("x"))
            }
        case .loaded(let value):
            state.value = value
            return .none
        case .chainA:
            return .task(id: "A") { _, _ in .request(.chainB) }
        case .chainB:
            return .task(id: "B") { _, env in
                await env.gate.wait()
                return .request(.chainDone)
            }
        case .chainDone:
            state.value = "done"
            return .none
        case .respondA:
            return .task(id: "A") { _, _ in .response(.respondStep) }
        case .respondStep:
            state.value = "step"
            return .task(id: "B") { _, env in
                await env.gate.wait()
                return .request(.respondDone)
            }
        case .respondDone:
            state.value = "done"
            return .none
        case .restart:
            return .task(id: "x") { _, env -> TaskReturn in
                let n = env.counter.increment()
                if n == 1 { try await env.gate.waitCooperatively() }
                return .request(.result("instance-\(n)"))
            }
        case .firstFinished, .noop, .ping:
            return .none
        }
    }

    static func response(state: State, event: Event) -> String { state.value.isEmpty ? label(event) : state.value }

    static func label(_ event: Event) -> String {
        switch event {
        case .result(let v): "result(\(v))"
        case .loaded(let v): "loaded(\(v))"
        default: "\(event)"
        }
    }
}
