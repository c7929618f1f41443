import Transduce
import TransduceTrace

/// A recorded run fed back through `transduce`, cycle by cycle: a production dump as a test.
///
/// A feature's state changes only in its pure, serialized `transduce`, so the events a trace
/// carries are enough to rebuild every state the app went through. Record with
/// `PayloadCapture.codable` (the events' encodings, and with `states:` each cycle's committed
/// state as a fingerprint or a snapshot); then, in a test:
///
/// ```swift
/// let trace = try TraceFileReader(path: "crash.tdtrace").readAll()
/// try Replay(of: Checkout.self, trace: trace).run()
/// ```
///
/// The replay takes the runtime of `T` in the trace (by its transducer's name; say which with
/// `runtime:` when there are several), starts from `initialState` when the trace holds the
/// runtime's start, or else from the first state snapshot it holds (a window that begins
/// mid-run), and transduces every recorded step in order: the admitted event of each cycle and
/// each chained one. Effects are not run: what tasks did is in the trace already, as the events
/// they fed back. After each cycle it checks the state against the recorded fingerprint or
/// snapshot, and stops at the first that differs with a ``ReplayError`` naming the cycle, its
/// events and (with snapshots) the diff of the two states.
public struct Replay<T: Transducer> where T.Event: Decodable, T.State: Codable & Equatable {
    /// One replayed cycle.
    public struct Cycle {
        /// The cycle's number in its runtime.
        public var cycle: UInt64
        /// The events transduced in it, in order.
        public var events: [T.Event]
        /// The state it committed, as replayed.
        public var state: T.State
        /// What the replayed state was checked against.
        public var checked: Check
    }

    /// What a replayed cycle's state was checked against.
    public enum Check: Sendable, Hashable {
        /// Nothing was recorded for it.
        case nothing
        /// The recorded fingerprint, which matched.
        case fingerprint
        /// The recorded snapshot, which matched.
        case snapshot
    }

    /// What a replay did.
    public struct Summary {
        /// The runtime replayed.
        public var runtime: RuntimeKey
        /// The first cycle replayed, and the last.
        public var cycles: ClosedRange<UInt64>
        /// Whether it started from the given initial state (the trace holds the runtime's start)
        /// or from the snapshot recorded at the end of `cycles.lowerBound - 1`.
        public var startedFromSnapshot: Bool
        /// Cycles whose state was checked against a fingerprint or a snapshot.
        public var checked: Int
        /// The state after the last cycle.
        public var finalState: T.State
        /// The cycle the trace ends inside (its leave is not in the trace: a dump taken, or a
        /// process ended, mid-cycle), with the steps of it the trace holds. Not replayed: its
        /// state was never committed, so there is nothing to check it against. Nil when the
        /// trace's last cycle of the runtime is whole.
        public var cutCycle: (cycle: UInt64, steps: Int)?
    }

    private let trace: Trace
    private let initialState: T.State
    private let runtime: RuntimeKey?

    /// - Parameters:
    ///   - of: the feature (inferred when the context says).
    ///   - trace: the recorded run (a ring dump, JSON Lines, or a recorder's snapshot).
    ///   - initialState: the state the runtime was created with, used when the trace holds the
    ///     runtime's start (default: the transducer's `initialState`).
    ///   - runtime: which runtime of the trace to replay, when several ran `T`.
    public init(of: T.Type = T.self, trace: Trace, initialState: T.State = T.initialState, runtime: RuntimeKey? = nil) {
        self.trace = trace
        self.initialState = initialState
        self.runtime = runtime
    }

    /// Replays every recorded cycle, calling `eachCycle` with each; stops at the first whose
    /// state differs from the recorded one.
    ///
    /// - Parameter eachCycle: sees each cycle once it is replayed and checked.
    /// - Throws: ``ReplayError`` when the trace cannot be replayed (saying why) or a cycle's state
    ///   differs; whatever `eachCycle` throws.
    @discardableResult
    public func run(_ eachCycle: (Cycle) throws -> Void = { _ in }) throws -> Summary {
        let key = try chooseRuntime()
        var recorded = try cycles(of: key)
        // A last cycle without its leave: the trace ends inside it.
        var cut: (cycle: UInt64, steps: Int)?
        if let last = recorded.last, !last.left {
            cut = (last.cycle, last.steps.count)
            recorded.removeLast()
        }
        guard let first = recorded.first else {
            throw ReplayError(.cannotReplay, "runtime \(key) has no cycles in the trace")
        }
        var state: T.State
        var start = first.cycle
        let fromSnapshot: Bool
        if trace.events.contains(where: { $0.kind == .runtimeStart && $0.runtimeKey == key }) && first.cycle == 1 {
            state = initialState
            fromSnapshot = false
        } else {
            // A window that begins mid-run: start after the first cycle whose state was recorded whole.
            guard let index = recorded.firstIndex(where: { $0.state.map(Self.isSnapshot) == true }) else {
                throw ReplayError(
                    .cannotReplay,
                    "the trace begins mid-run (its first cycle of runtime \(key) is \(first.cycle)"
                        + (trace.counts.overwritten > 0 ? ", \(trace.counts.overwritten) events were overwritten" : "")
                        + ") and holds no state snapshot to start from: record with "
                        + "PayloadCapture.codable(states: .snapshots)")
            }
            state = try decodeState(recorded[index].state!, cycle: recorded[index].cycle)
            start = recorded[index].cycle + 1
            fromSnapshot = true
        }
        var checked = 0
        var expectedCycle = start
        for cycle in recorded where cycle.cycle >= start {
            guard cycle.cycle == expectedCycle else {
                throw ReplayError(
                    .cannotReplay,
                    "cycles \(expectedCycle)–\(cycle.cycle - 1) of runtime \(key) are missing from the trace"
                        + " (lost, or recorded while the recorder was off)", cycle: expectedCycle)
            }
            expectedCycle += 1
            // Every step the cycle's leave counts must be here: a step the reader skipped (a
            // damaged or over-long record) or the recorder lost would make the replayed state
            // differ, and that is the trace's doing, not the code's.
            guard cycle.left else {
                throw ReplayError(
                    .cannotReplay,
                    "the trace lost cycle \(cycle.cycle)'s leave, so whether it holds all its steps cannot be told"
                        + damage, cycle: cycle.cycle)
            }
            if let declared = cycle.declaredSteps, cycle.steps.count < declared {
                throw ReplayError(
                    .cannotReplay,
                    "the trace lost \(declared - cycle.steps.count) of cycle \(cycle.cycle)'s \(declared) steps" + damage,
                    cycle: cycle.cycle)
            }
            let before = state
            var events: [T.Event] = []
            for (step, event) in cycle.steps.enumerated() {
                guard event.step == step else {
                    throw ReplayError(
                        .cannotReplay, "the trace lost step \(step) of cycle \(cycle.cycle)" + damage, cycle: cycle.cycle)
                }
                let decoded = try decodeEvent(event, cycle: cycle.cycle)
                _ = T.transduce(&state, event: decoded)
                events.append(decoded)
            }
            let check = try self.check(state, before: before, against: cycle, events: events)
            if check != .nothing { checked += 1 }
            try eachCycle(Cycle(cycle: cycle.cycle, events: events, state: state, checked: check))
        }
        return Summary(
            runtime: key, cycles: start...max(start, expectedCycle - 1), startedFromSnapshot: fromSnapshot,
            checked: checked, finalState: state, cutCycle: cut)
    }

    /// What the trace's reader noted (damage, skipped records), for a refusal's message: the
    /// reason a step or a leave is missing.
    private var damage: String {
        guard let first = trace.notes.first else { return "" }
        let more = trace.notes.count > 1 ? " (and \(trace.notes.count - 1) more notes)" : ""
        return "; the trace's reader noted: \(first)\(more)"
    }

    // MARK: Reading the trace

    /// One recorded cycle: its transduce steps in order, and the state text of its leave.
    private struct RecordedCycle {
        var cycle: UInt64
        var steps: [TraceEvent] = []
        var state: String?
        /// Its leave is in the trace, and the steps it counts.
        var left = false
        var declaredSteps: Int?
    }

    private func chooseRuntime() throws -> RuntimeKey {
        if let runtime { return runtime }
        let name = _typeName(T.self, qualified: false)
        let started = Set(
            trace.events.filter { $0.kind == .runtimeStart && $0.label == name }.map(\.runtimeKey))
        let candidates = started.isEmpty ? Set(trace.events.filter { $0.kind == .transduce }.map(\.runtimeKey)) : started
        guard candidates.count == 1, let key = candidates.first else {
            let which = candidates.sorted().map(\.name).joined(separator: ", ")
            throw ReplayError(
                .cannotReplay,
                candidates.isEmpty
                    ? "the trace holds no runtime of \(name)"
                    : "the trace holds several runtimes that may be \(name)'s (\(which)): pass runtime:")
        }
        return key
    }

    private func cycles(of key: RuntimeKey) throws -> [RecordedCycle] {
        var byCycle: [UInt64: RecordedCycle] = [:]
        for event in trace.events where event.runtimeKey == key {
            switch event.kind {
            case .transduce: byCycle[event.cycle, default: RecordedCycle(cycle: event.cycle)].steps.append(event)
            case .cycleLeave:
                byCycle[event.cycle, default: RecordedCycle(cycle: event.cycle)].left = true
                byCycle[event.cycle]!.declaredSteps = Int(event.step)
                if !event.payload.isEmpty { byCycle[event.cycle]!.state = event.payload }
            default: break
            }
        }
        return byCycle.values.sorted { $0.cycle < $1.cycle }.map { cycle in
            var cycle = cycle
            cycle.steps.sort { $0.step < $1.step }
            return cycle
        }
    }

    private static func isSnapshot(_ text: String) -> Bool { !text.hasPrefix(CodableText.fingerprintPrefix) }

    private func decodeEvent(_ event: TraceEvent, cycle: UInt64) throws -> T.Event {
        guard !event.payload.isEmpty, event.payload != "(payload overwritten)" else {
            // A signal handler's dump (a termination or a crash) cannot write captured values.
            let handlerDump = trace.counts.occasion == .termination
            throw ReplayError(
                .cannotReplay,
                event.payload.isEmpty
                    ? "the event \(event.label) of cycle \(cycle) step \(event.step) was recorded without its value: "
                        + (handlerDump
                            ? "this dump was written by a signal handler, which cannot write captured values "
                                + "(replay an exit, SIGUSR2 or slow-request dump, or one written by code)"
                            : "record with PayloadCapture.codable (and an Encodable event)")
                    : "the value of \(event.label) in cycle \(cycle) step \(event.step) was overwritten in the "
                        + "recorder's payload store: give PayloadCapture.codable a larger capacity", cycle: cycle)
        }
        do {
            return try CodableText.decode(T.Event.self, from: event.payload)
        } catch {
            throw ReplayError(
                .cannotReplay, "the value of \(event.label) in cycle \(cycle) does not decode: \(error)", cycle: cycle)
        }
    }

    private func decodeState(_ text: String, cycle: UInt64) throws -> T.State {
        do {
            return try CodableText.decode(T.State.self, from: text)
        } catch {
            throw ReplayError(
                .cannotReplay,
                "the state snapshot of cycle \(cycle) does not decode (\(text.utf8.count) bytes; trace files cut "
                    + "texts at 64 KiB): \(error)", cycle: cycle)
        }
    }

    /// Checks a replayed cycle's state against what was recorded for it.
    private func check(_ state: T.State, before: T.State, against cycle: RecordedCycle, events: [T.Event]) throws
        -> Check
    {
        guard let recorded = cycle.state else { return .nothing }
        let written = events.map(eventText).joined(separator: ", ")
        if Self.isSnapshot(recorded) {
            let expected = try decodeState(recorded, cycle: cycle.cycle)
            guard expected != state else { return .snapshot }
            let diff = StateDiff.diff(expected, state) ?? "(the states differ, but are written alike)"
            throw ReplayError(
                .diverged,
                "replay diverged at cycle \(cycle.cycle) (\(written)): the state differs from the recorded one "
                    + "(− recorded, + replayed):\n\(diff)", cycle: cycle.cycle, events: written, diff: diff)
        }
        guard let json = CodableText.json(state), CodableText.fingerprint(json) != recorded else { return .fingerprint }
        let change = StateDiff.diff(before, state) ?? "(no change)"
        throw ReplayError(
            .diverged,
            "replay diverged at cycle \(cycle.cycle) (\(written)): the state's fingerprint is not the recorded one "
                + "(only fingerprints were recorded; what the replay made of the cycle, − before, + after):\n\(change)",
            cycle: cycle.cycle, events: written, diff: change)
    }
}

/// Why a ``Replay`` stopped.
public struct ReplayError: Error, CustomStringConvertible, Sendable {
    /// The two ways a replay stops.
    public enum Kind: Sendable, Hashable {
        /// The trace does not hold what the replay needs (the message says what).
        case cannotReplay
        /// A replayed cycle's state differs from the one recorded.
        case diverged
    }

    /// Which of the two.
    public var kind: Kind
    /// The cycle where it stopped, when one is to blame.
    public var cycle: UInt64?
    /// The events of that cycle, as a test writes them (`.add("tea", 3)`), for a divergence.
    public var events: String?
    /// How the states differ, for a divergence.
    public var diff: String?
    /// All of it, in words.
    public var description: String

    init(_ kind: Kind, _ description: String, cycle: UInt64? = nil, events: String? = nil, diff: String? = nil) {
        self.kind = kind
        self.description = description
        self.cycle = cycle
        self.events = events
        self.diff = diff
    }
}
