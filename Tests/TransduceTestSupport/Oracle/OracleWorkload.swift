// The ground-truth workload: a seeded random script of dispatches (every style, from callers and
// from tasks), tasks (named and anonymous, switchToLatest and shareable), joins, cancels,
// uniqueRequests, sync and async actions, re-entries and failures, run step by step on a real
// runtime, with a reference model that says what each step must do (OracleModel.swift).
import Transduce

@testable import TransduceTrace

/// What an op's `transduce` returns.
package enum OraclePlan: Sendable, Hashable {
    case none, sync
    /// An async action that holds the gate until the driver releases it.
    case async
    /// `.event` of op `j` (plan `.none`): a second step in the same cycle.
    case chain(Int)
    case spawn(name: String?, shareable: Bool)
    case cancel(String)
}

/// How the driver ends a task's operation.
package enum OracleOutcome: Sendable, Hashable {
    case settle
    case response(Int)
    /// `.request` of op `j` with `plan` (`.none` or an anonymous spawn).
    case request(Int, OraclePlan)
    /// The task dispatches op `j` (plan `.none`) with `style`, then settles.
    case dispatch(OracleStyle, Int)
    case fail
}

package enum OracleStyle: String, Sendable, Hashable, CaseIterable {
    case post, send, request, uniqueRequest
}

package struct OracleEvent: Sendable {
    package var id: Int
    package var plan: OraclePlan
}

package struct OracleFailure: Error {}

/// The environment: where task operations and async actions wait for the driver.
package final class OracleEnv: Sendable {
    private enum Gate {
        case waiting(CheckedContinuation<OracleOutcome, any Error>)
        case released(OracleOutcome)
        case cancelled
    }
    private let gates = Lock<[Int: Gate]>([:])
    private let started = Lock<Set<Int>>([])

    /// Waits for the driver's outcome for op `op`'s task; throws `CancellationError` when the
    /// task is cancelled first.
    package func outcome(for op: Int) async throws -> OracleOutcome {
        started.withLock { _ = $0.insert(op) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<OracleOutcome, any Error>? = gates.withLock { gates in
                    switch gates[op] {
                    case .released(let outcome): return .success(outcome)
                    case .cancelled: return .failure(CancellationError())
                    case .waiting, nil:
                        gates[op] = .waiting(continuation)
                        return nil
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiting: CheckedContinuation<OracleOutcome, any Error>? = gates.withLock { gates in
                if case .waiting(let c) = gates[op] {
                    gates[op] = .cancelled
                    return c
                }
                if gates[op] == nil { gates[op] = .cancelled }
                return nil
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    package func release(_ op: Int, _ outcome: OracleOutcome) {
        let waiting: CheckedContinuation<OracleOutcome, any Error>? = gates.withLock { gates in
            if case .waiting(let c) = gates[op] {
                gates[op] = .released(outcome)
                return c
            }
            if gates[op] == nil { gates[op] = .released(outcome) }
            return nil
        }
        waiting?.resume(returning: outcome)
    }

    package func hasStarted(_ op: Int) -> Bool { started.withLock { $0.contains(op) } }
}

package enum OracleMachine: Transducer {
    package struct State: Sendable {}
    package typealias Event = OracleEvent
    package typealias Env = OracleEnv
    package typealias Response = Int

    package static var initialState: State { State() }

    package static func transduce(_ state: inout State, event: Event) -> Effect {
        let op = event.id
        switch event.plan {
        case .none: return .none
        case .sync: return .action { (_: OracleEnv) in }
        case .async:
            return .action(nonsendingOperation: { env in
                _ = try await env.outcome(for: op)
                return nil
            })
        case .chain(let next): return .event(OracleEvent(id: next, plan: .none))
        case .cancel(let name): return .cancel(TaskIdentifier(name))
        case .spawn(let name, let shareable):
            return .task(id: name.map { TaskIdentifier($0) }, option: shareable ? .shareable : .switchToLatest) {
                input, env -> TaskReturn<Event> in
                switch try await env.outcome(for: op) {
                case .settle: return .settle
                case .response(let j): return .response(OracleEvent(id: j, plan: .none))
                case .request(let j, let plan): return .request(OracleEvent(id: j, plan: plan))
                case .dispatch(let style, let j):
                    let event = OracleEvent(id: j, plan: .none)
                    switch style {
                    case .post: try input.post(event)
                    case .send: try await input.send(event)
                    case .request: _ = try await input.request(event)
                    case .uniqueRequest: _ = try await input.uniqueRequest(event)
                    }
                    return .settle
                case .fail: throw OracleFailure()
                }
            }
        }
    }

    /// Which op's event ended the chain: the ground truth of who served a caller.
    package static func response(state: State, event: Event) -> Int { event.id }

    package static func traceLabel(of event: Event) -> EventLabel { EventLabel("op\(event.id)") }
}

/// One step of a script.
package enum OracleStep: Sendable, CustomStringConvertible {
    case call(op: Int, style: OracleStyle, plan: OraclePlan)
    case release(task: Int, OracleOutcome)
    /// An async action (op `holder`) holds the gate while `waiters` sends queue up.
    case contend(holder: Int, waiters: [Int])
    case releaseAll
    case stop
    case fail(task: Int)

    package var description: String {
        switch self {
        case .call(let op, let style, let plan): "call op\(op) \(style)(\(plan))"
        case .release(let task, let outcome): "release task of op\(task): \(outcome)"
        case .contend(let holder, let waiters): "contend: op\(holder) holds the gate, sends \(waiters.map { "op\($0)" })"
        case .releaseAll: "release every live task (settle)"
        case .stop: "cancel the runtime"
        case .fail(let task): "task of op\(task) throws"
        }
    }
}

/// What went wrong in a run, with the seed and script to replay it.
package struct OracleFailureReport: Error, CustomStringConvertible {
    package var seed: UInt64
    package var script: [OracleStep]
    package var problems: [String]
    package init(seed: UInt64, script: [OracleStep], problems: [String]) {
        self.seed = seed
        self.script = script
        self.problems = problems
    }
    package var description: String {
        "oracle seed \(seed) (replay: TRANSDUCE_ORACLE_SEED=\(seed) swift test --filter OracleTests):\n"
            + problems.prefix(12).map { "  - " + $0 }.joined(separator: "\n") + "\n  script:\n"
            + script.map { "    " + $0.description }.joined(separator: "\n")
    }
}
