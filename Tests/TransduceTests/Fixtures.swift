import Synchronization

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

/// A general probe whose effects are driven by its Env: gates, counters and a log.
nonisolated enum Probe: Transducer {
    struct State: Sendable, Equatable {
        var events: [String] = []
        var value = ""
    }
    enum Event: Sendable, Equatable {
        case first, firstFinished, second
        case start, started, noop
        case begin, step, done
        case fetchShared, fetchSwitch, fetchAnon, fetchUnique
        case result(String)
        case stop, ping
        case load, loaded(String)
        case chainA, chainB, chainDone
        case respondA, respondStep, respondDone
        case restart
        case seqDrop, a, b, c
        case reenter, reenterPost, x
        case loop(Int)
        case failingAction, cancellingAction
        case bootstrap, didInit, fetch
        case bootstrapTask
    }
    struct Env: Sendable {
        var gate = AsyncGate()
        var gate2 = AsyncGate()
        var counter = Counter()
        var log = TraceLog()
        var box = InputBox<Event, String>()
        var cancelInside: (@Sendable () -> Void)? = nil
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
        case .start:
            return .action(nonsendingOperation: { env in
                await env.gate.wait()
                env.cancelInside?()
                env.log.append("start-returned")
                return .started
            })
        case .begin: return .action { _ in .step }
        case .step: return .action { _ in .done }
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
        default:
            return .none
        }
    }

    static func response(state: State, event: Event) -> String {
        switch event {
        case .done: "response-to-done"
        default: state.value.isEmpty ? label(event) : state.value
        }
    }

    static func label(_ event: Event) -> String {
        switch event {
        case .result(let v): "result(\(v))"
        case .loaded(let v): "loaded(\(v))"
        case .loop: "loop"
        default: "\(event)"
        }
    }
}
