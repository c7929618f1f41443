// Runs an oracle script on a real runtime, one step at a time: each step waits (on the trace,
// with a deadline) until what it started is done, so the model's order is the runtime's.
import Foundation
import Transduce

@testable import TransduceTrace

/// The facts of a trace the driver waits on and the checks map ids with, read from the events'
/// own id fields (never from the analyses under test). Ops are named by their labels (`op7`).
package struct OracleTraceFacts {
    package var dispatchOfOp: [Int: UInt64] = [:]
    package var opOfDispatch: [UInt64: Int] = [:]
    package var opOfCycle: [UInt64: Int] = [:]
    package var cycleOfOp: [Int: UInt64] = [:]
    package var left: Set<UInt64> = []
    package var taskOfOp: [Int: UInt64] = [:]
    package var opOfTask: [UInt64: Int] = [:]
    package var settled: Set<UInt64> = []

    package static func op(_ label: String) -> Int? { label.hasPrefix("op") ? Int(label.dropFirst(2)) : nil }

    package init(_ events: [TraceEvent]) {
        for e in events {
            switch e.kind {
            case .dispatch:
                if let op = Self.op(e.label) {
                    dispatchOfOp[op] = e.dispatch
                    opOfDispatch[e.dispatch] = op
                }
            case .cycleEnter:
                if let op = opOfDispatch[e.dispatch] {
                    opOfCycle[e.cycle] = op
                    cycleOfOp[op] = e.cycle
                }
            case .cycleLeave: left.insert(e.cycle)
            case .taskSpawn:
                if let op = opOfCycle[e.cycle] {
                    taskOfOp[op] = e.task
                    opOfTask[e.task] = op
                }
            case .taskSettle: settled.insert(e.task)
            default: break
            }
        }
    }

    package func cycleLeft(_ op: Int) -> Bool { cycleOfOp[op].map(left.contains) ?? false }
    package func taskSettled(_ op: Int) -> Bool { taskOfOp[op].map(settled.contains) ?? false }
}

/// One run of a seed: the runtime, its recorder and what the callers got.
package final class OracleRun: Sendable {
    package let seed: UInt64
    package let script: [OracleStep]
    package let model: OracleModel
    /// Its ring (discard-newest, so nothing a check needs is overwritten), and LTTng-UST too when
    /// asked (the oracle across real processes).
    package let recorder: TraceRecorder
    package let env = OracleEnv()
    /// What each awaited op's caller got: a response (which op's event), nil, or an error.
    package let results = Lock<[Int: OracleResume]>([:])

    package let queueCapacity: Int

    package init(seed: UInt64, lttng: Bool = false) {
        self.seed = seed
        recorder = TraceRecorder(capacity: 1 << 16, mode: .discardNewest, lttng: lttng)
        queueCapacity = seed % 4 == 3 ? 2 : 1024
        (script, model) = OracleModel.generate(seed: seed)
    }

    /// How long a step may take before the run counts as stalled: a hang guard, not a timing.
    /// 10 s was once not enough for a task to settle beside the busy suite's 1M-event page in
    /// Chromium, a CPU hog on each core and the rest of the suite.
    package static let patience: Duration = .seconds(Patience.guarding(30))

    private func facts() -> OracleTraceFacts { OracleTraceFacts(recorder.snapshot().events) }

    /// Waits until `condition` holds on the trace so far (``patience`` at most).
    private func until(_ what: @autoclosure () -> String, _ condition: (OracleTraceFacts) -> Bool) async throws {
        let deadline = ContinuousClock.now + Self.patience
        while !condition(facts()) {
            guard ContinuousClock.now < deadline else {
                throw OracleFailureReport(seed: seed, script: script, problems: ["stalled waiting for \(what())"])
            }
            try await Task.sleep(for: .microseconds(100))
        }
    }

    private func untilStarted(_ op: Int) async throws {
        let deadline = ContinuousClock.now + Self.patience
        while !env.hasStarted(op) {
            guard ContinuousClock.now < deadline else {
                throw OracleFailureReport(seed: seed, script: script, problems: ["op\(op)'s operation never started"])
            }
            try await Task.sleep(for: .microseconds(100))
        }
    }

    /// Dispatches `op` from outside; an awaited style runs in its own task, whose result is kept.
    private func dispatch(
        _ op: Int, _ style: OracleStyle, _ plan: OraclePlan, input: OracleMachine.Input, callers: inout [Task<Void, Never>]
    ) {
        let event = OracleEvent(id: op, plan: plan)
        if style == .post {
            try? input.post(event)
            return
        }
        callers.append(
            Task { [self] in
                let outcome: OracleResume
                do {
                    let response: Int?
                    switch style {
                    case .send:
                        try await input.send(event)
                        response = op  // a send's caller gets no value; the model's is its own op
                    case .request: response = try await input.request(event)
                    case .uniqueRequest: response = try await input.uniqueRequest(event)
                    case .post: response = nil
                    }
                    outcome = response.map(OracleResume.response) ?? .nil
                } catch {
                    outcome = .error
                }
                results.withLock { $0[op] = outcome }
            })
    }

    /// Runs the script; returns the trace.
    package func run() async throws -> Trace {
        // One seed in four runs with room for two admissions, so contending sends wait in the
        // overflow (accepted, stamped, and admitted in order when room frees up).
        let host = BaseRuntime(
            of: OracleMachine.self, env: env, instrument: recorder, queueCapacity: queueCapacity)
        let input = host.input
        var callers: [Task<Void, Never>] = []
        for step in script {
            switch step {
            case .call(let op, let style, let plan):
                dispatch(op, style, plan, input: input, callers: &callers)
                try await until("op\(op)'s cycle to leave") { $0.cycleLeft(op) }
            case .release(let task, let outcome):
                env.release(task, outcome)
                try await until("op\(task)'s task to settle") { $0.taskSettled(task) }
                switch outcome {
                case .response(let j), .request(let j, _), .dispatch(_, let j):
                    try await until("op\(j)'s cycle to leave") { $0.cycleLeft(j) }
                case .settle, .fail: break
                }
            case .contend(let holder, let waiters):
                dispatch(holder, .post, .async, input: input, callers: &callers)
                try await untilStarted(holder)
                for op in waiters { dispatch(op, .send, .none, input: input, callers: &callers) }
                try await until("the contending sends to be dispatched") { f in waiters.allSatisfy { f.dispatchOfOp[$0] != nil } }
                env.release(holder, .settle)
                try await until("the contending sends' cycles to leave") { f in waiters.allSatisfy(f.cycleLeft) }
            case .releaseAll:
                for task in liveAtEnd() {
                    env.release(task, .settle)
                    try await until("op\(task)'s task to settle") { $0.taskSettled(task) }
                }
            case .stop:
                host.cancel()
            case .fail(let task):
                env.release(task, .fail)
                try await until("op\(task)'s task to settle") { $0.taskSettled(task) }
            }
        }
        // Every caller returns and every task instance ends (cancelled ones observe it).
        for caller in callers { await caller.value }
        let spawnedTasks = Set(model.tasks.keys)
        try await until("every task to end") { f in spawnedTasks.allSatisfy(f.taskSettled) }
        withExtendedLifetime(host) {}
        return recorder.snapshot()
    }

    /// The tasks live before the script's ending, in the order the model released them.
    private func liveAtEnd() -> [Int] {
        var model = OracleModel()
        for step in script {
            switch step {
            case .call(let op, let style, let plan): model.call(op, style, plan)
            case .release(let task, let outcome): model.release(task, outcome)
            case .contend(let holder, let waiters): model.contend(holder: holder, waiters: waiters)
            case .releaseAll, .stop, .fail: return model.liveTasks
            }
        }
        return model.liveTasks
    }
}
