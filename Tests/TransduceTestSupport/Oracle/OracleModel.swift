// The reference model of the oracle: what each script step must do, by the rules of
// TheRuntimeGuarantees (Transduce's documentation), as plain bookkeeping over op ids. It generates the script too, so a release only ever names a
// task that the rules say is live.

/// How an awaited caller must be resumed.
package enum OracleResume: Hashable, Sendable, CustomStringConvertible {
    case response(Int)
    case `nil`
    case error

    package var description: String {
        switch self {
        case .response(let op): "response(op\(op))"
        case .nil: "nil"
        case .error: "error"
        }
    }
}

package struct OracleModel {
    package struct ModelTask {
        var op: Int
        package var name: String?
        package var waiters: [Int]
        /// The callers whose waiters it ever carried (at spawn, by replacement or by a join).
        package var carried: [Int]
        package var fate: String?
        package var replacedBy: Int?
        package var joinedBy: [Int] = []
        /// Ops it dispatched: its re-entry, and what it dispatched from inside.
        package var dispatched: [Int] = []
    }

    package private(set) var tasks: [Int: ModelTask] = [:]
    /// Live task instances by registry key (a name, or `#op` for an anonymous task).
    package private(set) var live: [String: Int] = [:]
    /// The task each op's cycle spawned.
    package private(set) var spawned: [Int: Int] = [:]
    /// The tasks each caller op's waiter joined.
    package private(set) var joined: [Int: [Int]] = [:]
    /// The op whose cycle cancelled each task (none for a cancel at runtime stop).
    package private(set) var cancelledBy: [Int: Int] = [:]
    package private(set) var resumes: [Int: OracleResume] = [:]
    /// Ops dispatched by the driver or by tasks, and whether they were awaited.
    package private(set) var awaited: Set<Int> = []
    package private(set) var styles: [Int: OracleStyle] = [:]
    package private(set) var dispatched: [Int] = []
    /// Ops a task dispatched from inside it (not re-entries), by the task's op.
    package private(set) var madeByTask: [Int: Int] = [:]
    /// Problems of the model itself (a waiter resolved twice): a bug in the oracle.
    package private(set) var inconsistencies: [String] = []
    private var nextOp = 1

    package var liveTasks: [Int] { live.values.sorted() }

    package mutating func newOp() -> Int {
        defer { nextOp += 1 }
        return nextOp
    }

    private mutating func resolve(_ waiters: [Int], _ outcome: OracleResume) {
        for op in waiters {
            if resumes[op] != nil { inconsistencies.append("op\(op) resolved twice") }
            resumes[op] = outcome
        }
    }

    private mutating func cancel(_ task: Int, _ reason: String, by op: Int?) {
        tasks[task]!.fate = "cancelled (\(reason))"
        resolve(tasks[task]!.waiters, .error)
        tasks[task]!.waiters = []
        if let op { cancelledBy[task] = op }
    }

    /// One admission's cycle: `waiters` are the callers it carries.
    private mutating func cycle(_ op: Int, style: String, plan: OraclePlan, waiters: [Int]) {
        if style == "uniqueRequest" {
            for task in live.values.sorted() { cancel(task, "uniqueRequest", by: op) }
            live = [:]
        }
        let follows = ["request", "uniqueRequest", "taskRequest"].contains(style)
        switch plan {
        case .none, .sync, .async: resolve(waiters, .response(op))
        case .chain(let next): resolve(waiters, .response(next))
        case .cancel(let name):
            if let task = live.removeValue(forKey: name) { cancel(task, "cancelEffect", by: op) }
            resolve(waiters, .response(op))
        case .spawn(let name, let shareable):
            let carry = follows ? waiters : []
            // A send (or a task's response) is resolved when its cycle hands off.
            if !follows { resolve(waiters, .response(op)) }
            var moved: [Int] = []
            if let name, let existing = live[name] {
                if shareable && style != "uniqueRequest" {
                    if !carry.isEmpty {
                        tasks[existing]!.waiters += carry
                        tasks[existing]!.carried += carry
                        tasks[existing]!.joinedBy += carry
                        for caller in carry { joined[caller, default: []].append(existing) }
                    }
                    return
                }
                moved = tasks[existing]!.waiters
                tasks[existing]!.waiters = []
                tasks[existing]!.fate = "cancelled (replaced)"
                tasks[existing]!.replacedBy = op
                cancelledBy[existing] = op
            }
            let all = moved + carry
            tasks[op] = ModelTask(op: op, name: name, waiters: all, carried: all)
            live[name ?? "#\(op)"] = op
            spawned[op] = op
        }
    }

    private mutating func end(_ task: Int) {
        live = live.filter { $0.value != task }
    }

    // MARK: steps

    package mutating func call(_ op: Int, _ style: OracleStyle, _ plan: OraclePlan) {
        dispatched.append(op)
        styles[op] = style
        let isAwaited = style != .post
        if isAwaited { awaited.insert(op) }
        cycle(op, style: style.rawValue, plan: plan, waiters: isAwaited ? [op] : [])
    }

    package mutating func release(_ task: Int, _ outcome: OracleOutcome) {
        let waiters = tasks[task]!.waiters
        tasks[task]!.waiters = []
        end(task)
        switch outcome {
        case .settle:
            tasks[task]!.fate = "settle"
            resolve(waiters, .nil)
        case .response(let j):
            tasks[task]!.fate = "response(op\(j))"
            tasks[task]!.dispatched.append(j)
            dispatched.append(j)
            cycle(j, style: "taskResponse", plan: .none, waiters: waiters)
        case .request(let j, let plan):
            tasks[task]!.fate = "request(op\(j))"
            tasks[task]!.dispatched.append(j)
            dispatched.append(j)
            cycle(j, style: "taskRequest", plan: plan, waiters: waiters)
        case .dispatch(let style, let j):
            tasks[task]!.dispatched.append(j)
            madeByTask[j] = task
            call(j, style, .none)
            tasks[task]!.fate = "settle"
            resolve(waiters, .nil)
        case .fail:
            tasks[task]!.fate = "failed(OracleFailure)"
            resolve(waiters, .error)
            stop()
        }
    }

    package mutating func contend(holder: Int, waiters: [Int]) {
        call(holder, .post, .async)
        for op in waiters { call(op, .send, .none) }
    }

    package mutating func releaseAll() {
        for task in liveTasks { release(task, .settle) }
    }

    /// The runtime stops: live tasks are cancelled, their waiters fail.
    package mutating func stop() {
        for task in liveTasks { cancel(task, "runtimeStop", by: nil) }
        live = [:]
    }

    // MARK: lifecycles

    /// The ops and tasks of op `op`'s request lifecycle: what it caused, by the rules. A task
    /// that replaced one of them belongs to it when the replaced one carried the waiter of one of
    /// its ops (which moved to the replacement).
    package func lifecycle(of op: Int) -> (ops: Set<Int>, tasks: Set<Int>) {
        var ops: Set<Int> = []
        var inTasks: Set<Int> = []
        var pending = [op]
        var pendingTasks: [Int] = []
        while true {
            while !pending.isEmpty || !pendingTasks.isEmpty {
                if let task = pendingTasks.popLast() {
                    guard inTasks.insert(task).inserted, let record = tasks[task] else { continue }
                    pending += record.dispatched
                } else if let d = pending.popLast() {
                    guard ops.insert(d).inserted else { continue }
                    if let task = spawned[d] { pendingTasks.append(task) }
                    pendingTasks += joined[d, default: []]
                }
            }
            pendingTasks = inTasks.compactMap { task in
                guard let record = tasks[task], let next = record.replacedBy, !inTasks.contains(next),
                    record.carried.contains(where: ops.contains)
                else { return nil }
                return next
            }
            if pendingTasks.isEmpty { break }
        }
        return (ops, inTasks)
    }

    // MARK: the script

    /// A random script of `steps` steps (then an ending), simulated on the model as it is made.
    package static func generate(seed: UInt64, steps: Int = 18) -> ([OracleStep], OracleModel) {
        var random = SeededRandom(seed: seed)
        var model = OracleModel()
        var script: [OracleStep] = []
        let names = ["a", "b", "c"]
        func plan() -> OraclePlan {
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<15: return .none
            case 15..<25: return .sync
            case 25..<30: return .chain(model.newOp())
            case 30..<85:
                let name = random.chance(25) ? nil : names.randomElement(using: &random)!
                return .spawn(name: name, shareable: name != nil && random.chance(40))
            default: return .cancel(names.randomElement(using: &random)!)
            }
        }
        for _ in 0..<steps {
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 30, let task = model.liveTasks.randomElement(using: &random) {
                let outcome: OracleOutcome
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<30: outcome = .settle
                case 30..<55: outcome = .response(model.newOp())
                case 55..<80: outcome = .request(model.newOp(), random.chance(40) ? .spawn(name: nil, shareable: false) : .none)
                default:
                    outcome = .dispatch([.post, .send, .request].randomElement(using: &random)!, model.newOp())
                }
                script.append(.release(task: task, outcome))
                model.release(task, outcome)
            } else if roll >= 30 && roll < 40 {
                let holder = model.newOp()
                let waiters = (0..<Int.random(in: 1...4, using: &random)).map { _ in model.newOp() }
                script.append(.contend(holder: holder, waiters: waiters))
                model.contend(holder: holder, waiters: waiters)
            } else {
                let style: OracleStyle =
                    random.chance(10) ? .uniqueRequest : [.post, .send, .request].randomElement(using: &random)!
                let op = model.newOp()
                let p = plan()
                script.append(.call(op: op, style: style, plan: p))
                model.call(op, style, p)
            }
        }
        let ending = Int.random(in: 0..<100, using: &random)
        if ending < 15, let task = model.liveTasks.randomElement(using: &random) {
            script.append(.fail(task: task))
            model.release(task, .fail)
        } else if ending < 40 {
            script.append(.stop)
            model.stop()
        } else {
            script.append(.releaseAll)
            model.releaseAll()
        }
        return (script, model)
    }
}
