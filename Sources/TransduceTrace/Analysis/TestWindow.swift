/// A window of one runtime's cycles as a test needs it: the state to start from, each step's
/// event as recorded, whether the test sends it or receives it, and each cycle's committed state.
///
/// Built in one pass by ``TestWindowBuilder`` (memory follows the window, not the trace) for
/// `trace-view test-from`, which writes it as a Swift Testing source (``TestWindowSource``).
package struct TestWindow: Sendable {
    /// Where a step's event came from, which decides how a test meets it.
    package enum Origin: Sendable, Hashable {
        /// From outside the runtime: the test sends it.
        case outside
        /// Fed back by a task the window started (`name`, "" when anonymous): the test's runtime
        /// starts the same task, and the test receives what it feeds back.
        case task(id: UInt64, name: String)
        /// Fed back by a task started before the window, which the test's runtime never
        /// started: the test sends it.
        case taskBeforeWindow(id: UInt64)
        /// Chained by `.event` in its cycle (steps after the first): received.
        case chain
    }

    /// One `transduce` call.
    package struct Step: Sendable {
        /// Its event's label, for the comment beside it.
        package var label: String
        /// Its event's JSON encoding, as the recorder's codable capture wrote it.
        package var json: String
        /// Where it came from.
        package var origin: Origin
        /// Whether the test sends it (the others it receives).
        package var isSent: Bool {
            switch origin {
            case .outside, .taskBeforeWindow: true
            case .task, .chain: false
            }
        }
    }

    /// One cycle of the window.
    package struct Cycle: Sendable {
        /// Its number in its runtime.
        package var cycle: UInt64
        /// Its steps in order.
        package var steps: [Step]
        /// The JSON encoding of the state it committed.
        package var state: String
    }

    /// The runtime.
    package var runtime: RuntimeKey
    /// Its transducer's name (its `runtimeStart`'s label), "" when the trace lost its start.
    package var transducer: String
    /// The state the window starts from: the snapshot of the cycle before it, or `nil` for a
    /// window that starts at the runtime's start (the test starts from `initialState`).
    package var startState: String?
    /// The cycles, in order.
    package var cycles: [Cycle]
    /// Tasks the window started that ended after it (by their names, "" anonymous): what they feed
    /// back the test passes over.
    package var outliving: [String]
    /// Tasks the window started that the trace never saw end: the test does not wait for them.
    package var unended: [String]
    /// Events the test receives that, in the recorded run, came after a later event the test
    /// sends (`cycle` of the received one): such a test holds only when the task is slower than
    /// that send, as it was in the recorded run.
    package var racing: [UInt64]

    /// The number of steps.
    package var stepCount: Int { cycles.reduce(0) { $0 + $1.steps.count } }
}

/// Why a window cannot become a test, in words that say what to record or ask instead.
package struct TestWindowError: Error, Sendable, CustomStringConvertible {
    /// What stops it.
    package enum Kind: Sendable {
        /// The window names cycles or a runtime the trace does not hold.
        case notInTrace
        /// The trace holds the window but not what a test needs of it (values, states, steps).
        case notRecorded
        /// The window asked for is malformed or too large.
        case usage
    }
    /// Which.
    package var kind: Kind
    /// The explanation.
    package var description: String
    package init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// Folds a trace's events into the ``TestWindow`` of cycles `from...to` of one runtime.
package struct TestWindowBuilder {
    /// The most cycles one test holds: beyond, a test is a replay (`Replay` in
    /// TransduceTesting checks any number of cycles without a line of source each).
    package static let maxCycles: UInt64 = 5_000
    /// The most bytes of values and states a window keeps, and the most tasks it follows: a
    /// damaged or hostile trace may put any number of steps in a cycle.
    package static let maxBytes = 64 << 20
    package static let maxTasks = 100_000

    private let window: ClosedRange<UInt64>
    private var key: RuntimeKey?
    private var otherRuntimes: [RuntimeKey] = []
    private var transducer = ""
    private var sawStart = false
    /// Each window cycle's admitted dispatch origin: the dispatch's origin task (0 from outside).
    private var origins: [UInt64: UInt64] = [:]
    /// Dispatches made by tasks and not yet admitted: their origin task.
    private var taskDispatches: [UInt64: UInt64] = [:]
    private var steps: [UInt64: [(step: UInt32, label: String, json: String)]] = [:]
    private var leaves: [UInt64: (steps: UInt32, state: String)] = [:]
    private var before: String?
    private var sawBefore = false
    /// Tasks the window spawned: name, spawning cycle, whether they ended, and whether all they
    /// did (their end, their results' admissions) came before the window's end.
    private var spawned: [UInt64: (name: String, cycle: UInt64, ended: Bool, inWindow: Bool)] = [:]
    private var spawnOrder: [UInt64] = []
    private var windowEnded = false
    private var cyclesSeen: (first: UInt64, last: UInt64)?
    private var bytes = 0

    /// - Parameter cycles: the window, inclusive; at most ``maxCycles`` long.
    package init(cycles: ClosedRange<UInt64>) throws {
        guard cycles.lowerBound >= 1 else { throw TestWindowError(.usage, "cycles are numbered from 1") }
        guard cycles.upperBound - cycles.lowerBound < Self.maxCycles else {
            throw TestWindowError(
                .usage,
                "a test of \(cycles.upperBound - cycles.lowerBound + 1) cycles is too long to read (at most \(Self.maxCycles)): "
                    + "replay it with Replay in TransduceTesting, or pick a shorter window")
        }
        window = cycles
    }

    /// Takes the next event of the trace (of the runtime asked for, or of any when the trace
    /// holds one runtime).
    package mutating func consume(_ e: TraceEvent) {
        if key == nil, e.kind == .transduce || e.kind == .runtimeStart { key = e.runtimeKey }
        guard e.runtimeKey == key else {
            if e.kind == .transduce, otherRuntimes.count < 10, !otherRuntimes.contains(e.runtimeKey) {
                otherRuntimes.append(e.runtimeKey)
            }
            return
        }
        switch e.kind {
        case .runtimeStart:
            sawStart = true
            transducer = e.label
        case .dispatch:
            // Only tasks' dispatches are remembered (those from outside are the default), and
            // not without bound: a damaged trace may never admit them.
            if e.otherTask != 0, taskDispatches.count < 1 << 16 { taskDispatches[e.dispatch] = e.otherTask }
        case .cycleEnter:
            let origin = taskDispatches.removeValue(forKey: e.dispatch) ?? 0
            if window.contains(e.cycle) { origins[e.cycle] = origin }
            // A window task's result admitted after the window: the test's store receives it
            // after its last assertion.
            if e.cycle > window.upperBound, origin != 0, spawned[origin] != nil { spawned[origin]!.inWindow = false }
        case .transduce:
            cyclesSeen = (min(cyclesSeen?.first ?? e.cycle, e.cycle), max(cyclesSeen?.last ?? e.cycle, e.cycle))
            if window.contains(e.cycle) {
                bytes += e.payload.utf8.count + e.label.utf8.count
                if bytes <= Self.maxBytes { steps[e.cycle, default: []].append((e.step, e.label, e.payload)) }
            }
        case .cycleLeave:
            if e.cycle == window.lowerBound - 1 {
                sawBefore = true
                before = e.payload
            }
            if window.contains(e.cycle) {
                bytes += e.payload.utf8.count
                if bytes <= Self.maxBytes { leaves[e.cycle] = (e.step, e.payload) }
            }
            if e.cycle == window.upperBound { windowEnded = true }
        case .taskSpawn:
            if window.contains(e.cycle), spawned.count < Self.maxTasks {
                spawned[e.task] = (e.label, e.cycle, false, true)
                spawnOrder.append(e.task)
            }
        case .taskSettle:
            if spawned[e.task] != nil {
                spawned[e.task]!.ended = true
                if windowEnded { spawned[e.task]!.inWindow = false }
            }
        default: break
        }
    }

    /// The window, or why it cannot become a test.
    package func finish() throws -> TestWindow {
        guard let key else { throw TestWindowError(.notInTrace, "the trace holds no transduce steps") }
        if !otherRuntimes.isEmpty {
            let names = ([key] + otherRuntimes).map(\.name).joined(separator: ", ")
            throw TestWindowError(
                .usage,
                "the trace holds several runtimes (\(names)\(otherRuntimes.count == 10 ? ", …" : "")): pick one with --runtime and --pid"
            )
        }
        guard bytes <= Self.maxBytes else {
            throw TestWindowError(
                .usage, "the window's values and states take more than \(Self.maxBytes >> 20) MiB: pick a shorter window")
        }
        let name = transducer.isEmpty ? "its runtime" : transducer
        let held = cyclesSeen.map { "; the trace holds cycles \($0.first)–\($0.last) of runtime \(key.name)" } ?? ""
        var cycles: [TestWindow.Cycle] = []
        for number in window {
            guard let leave = leaves[number], var recorded = steps[number] else {
                throw TestWindowError(.notInTrace, "cycle \(number) of runtime \(key.name) is not whole in the trace\(held)")
            }
            recorded.sort { $0.step < $1.step }
            guard recorded.count == Int(leave.steps), recorded.enumerated().allSatisfy({ $0.offset == Int($0.element.step) })
            else {
                throw TestWindowError(
                    .notInTrace,
                    "the trace lost steps of cycle \(number) (it holds \(recorded.count) of \(leave.steps))")
            }
            try Self.requireSnapshot(leave.state, of: "cycle \(number)'s committed state")
            var built: [TestWindow.Step] = []
            for (offset, step) in recorded.enumerated() {
                guard !step.json.isEmpty, step.json != "(payload overwritten)" else {
                    throw TestWindowError(
                        .notRecorded,
                        step.json.isEmpty
                            ? "the event \(step.label) of cycle \(number) was recorded without its value: record "
                                + "with PayloadCapture.codable(states: .snapshots) and Codable events"
                            : "the value of \(step.label) in cycle \(number) was overwritten in the recorder's "
                                + "payload store: give PayloadCapture.codable a larger capacity")
                }
                let origin: TestWindow.Origin
                if offset > 0 {
                    origin = .chain
                } else if let task = origins[number], task != 0 {
                    origin = spawned[task].map { .task(id: task, name: $0.name) } ?? .taskBeforeWindow(id: task)
                } else {
                    origin = .outside
                }
                built.append(TestWindow.Step(label: step.label, json: step.json, origin: origin))
            }
            cycles.append(TestWindow.Cycle(cycle: number, steps: built, state: leave.state))
        }
        var start: String?
        if window.lowerBound == 1 && sawStart {
            start = nil
        } else if sawBefore, let before {
            try Self.requireSnapshot(before, of: "the state cycle \(window.lowerBound - 1) committed (the window's start)")
            start = before
        } else {
            throw TestWindowError(
                .notInTrace,
                window.lowerBound == 1
                    ? "the trace lost the start of \(name), so the state cycle 1 started from is unknown"
                    : "the trace lost cycle \(window.lowerBound - 1) of \(key.name), whose committed state the window starts from\(held)"
            )
        }
        // A task's result that the recorded run admitted after a sent event which came after the
        // task's start: the test sends that event as soon as the one before it committed, so the
        // task must still be running then, as it was in the recorded run.
        let sent = cycles.filter { $0.steps[0].isSent }.map(\.cycle)
        let racing = cycles.compactMap { cycle -> UInt64? in
            guard case .task(let id, _) = cycle.steps[0].origin, let start = spawned[id]?.cycle else { return nil }
            return sent.contains { $0 > start && $0 < cycle.cycle } ? cycle.cycle : nil
        }
        let tasks = spawnOrder.compactMap { spawned[$0] }
        return TestWindow(
            runtime: key, transducer: transducer, startState: start, cycles: cycles,
            outliving: tasks.filter { $0.ended && !$0.inWindow }.map(\.name),
            unended: tasks.filter { !$0.ended }.map(\.name), racing: racing)
    }

    /// Throws unless `text` is a state snapshot (not a fingerprint, not cut).
    private static func requireSnapshot(_ text: String, of what: String) throws {
        guard !text.isEmpty else {
            throw TestWindowError(
                .notRecorded,
                "the trace does not hold \(what): record with PayloadCapture.codable(states: .snapshots) and a Codable state")
        }
        guard !text.hasPrefix(CodableText.fingerprintPrefix) else {
            throw TestWindowError(
                .notRecorded,
                "the trace holds only a fingerprint of \(what), which a test cannot assert: record with "
                    + "PayloadCapture.codable(states: .snapshots)")
        }
    }
}
