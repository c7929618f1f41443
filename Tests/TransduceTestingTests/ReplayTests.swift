import Foundation
import Testing
import Transduce
import TransduceTestSupport
import TransduceTesting
import TransduceTrace

/// A ledger: deposits (every seventh amount chains a fee), withdrawals that never overdraw, and
/// an audit task whose result re-enters. Its events and state are `Codable`, for replay.
nonisolated enum Ledger: Transducer {
    struct State: Sendable, Equatable, Codable {
        var balance = 0
        var entries = 0
        var recent: [Int] = []
        var audits = 0
    }
    enum Event: Sendable, Equatable, Codable { case deposit(Int), withdraw(Int), fee, audit, audited(Int) }
    typealias Response = Int
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .deposit(let amount):
            state.balance += amount
            note(amount, in: &state)
            return amount % 7 == 0 ? .event(.fee) : .none
        case .withdraw(let amount):
            guard state.balance >= amount else { return .none }
            state.balance -= amount
            note(-amount, in: &state)
            return .none
        case .fee:
            state.balance -= 1
            return .none
        case .audit:
            let balance = state.balance
            return .task(id: "audit") { _, _ in .audited(balance) }
        case .audited:
            state.audits += 1
            return .none
        }
    }
    static func note(_ amount: Int, in state: inout State) {
        state.entries += 1
        state.recent = Array((state.recent + [amount]).suffix(4))
    }
    static func response(state: State, event: Event) -> Int { state.balance }
}

/// The ledger with one branch changed: the fee is 2.
nonisolated enum ChangedLedger: Transducer {
    typealias State = Ledger.State
    typealias Event = Ledger.Event
    typealias Response = Int
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        if case .fee = event {
            state.balance -= 2
            return .none
        }
        return Ledger.transduce(&state, event: event)
    }
    static func response(state: State, event: Event) -> Int { state.balance }
}

/// Drives `runtime` through `cycles` cycles or a few more (a deposit of a multiple of 7 chains
/// a fee in its cycle; an audit takes two: its own and its task's result), from `random`.
func runLedger(_ runtime: BaseRuntime<Ledger>, cycles: Int, random: inout SeededRandom) async throws {
    var done = 0
    while done < cycles {
        switch random.next(below: 10) {
        case 0..<6:
            try await runtime.input.send(.deposit(Int(random.next(below: 50)) + 1))
            done += 1
        case 6..<9:
            try await runtime.input.send(.withdraw(Int(random.next(below: 60)) + 1))
            done += 1
        default:
            try await runtime.input.request(.audit)
            done += 2
        }
    }
}

/// A directory of its own under the temporary directory, removed with its files on deinit.
final class ScratchDirectory {
    let path = NSTemporaryDirectory() + "/replay-" + UUID().uuidString
    init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
}

/// A recorder for replay: one lane (one runtime keeps the whole ring), no LTTng.
func replayRecorder(capacity: Int, states: PayloadCapture.States) -> TraceRecorder {
    TraceRecorder(
        capacity: capacity, mode: .overwriteOldest, lttng: false,
        payloads: .codable(capacity: capacity * 2, states: states), ringEnabled: true, slowRequests: nil, lanes: 1,
        dumpWriter: { try TraceFileWriter.write($0, to: $1) })
}

@Suite struct ReplayTests {
    /// 10,000 cycles of a ledger, written to a ring dump and to JSON Lines and read back, replay
    /// to the recorded fingerprint of every cycle and to the runtime's own final state.
    @Test(arguments: [TraceFileWriter.Format.binary, .jsonLines])
    func tenThousandCyclesReplayToTheirFingerprints(format: TraceFileWriter.Format) async throws {
        let recorder = replayRecorder(capacity: 1 << 18, states: .fingerprints)
        let runtime = BaseRuntime(of: Ledger.self, instrument: recorder)
        var random = SeededRandom(seed: 27)
        try await runLedger(runtime, cycles: 10_000, random: &random)
        let final = await runtime.state

        let dir = ScratchDirectory()
        let path = dir.file("ledger." + (format == .binary ? "tdtrace" : "jsonl"))
        try recorder.write(to: path, format: format)
        let trace = try format == .binary ? TraceFileReader(path: path).readAll() : JSONLinesReader(path: path).readAll()
        #expect(trace.counts.overwritten == 0)

        var fees = 0
        var audits = 0
        let summary = try Replay(of: Ledger.self, trace: trace).run { cycle in
            #expect(cycle.checked == .fingerprint)
            fees += cycle.events.filter { $0 == .fee }.count
            audits += cycle.events.filter { if case .audited = $0 { true } else { false } }.count
        }
        #expect(summary.cycles.count >= 10_000)
        #expect(summary.checked == summary.cycles.count)
        #expect(!summary.startedFromSnapshot)
        #expect(summary.finalState == final)
        #expect(fees > 0 && audits == final.audits && audits > 0)
    }

    /// The ledger with its fee changed is caught at the first cycle that charges one, with the
    /// diff of the recorded state and the replayed one.
    @Test func aChangedBranchIsCaughtAtTheFirstCycleItAffects() async throws {
        let recorder = replayRecorder(capacity: 1 << 16, states: .snapshots)
        let runtime = BaseRuntime(of: Ledger.self, instrument: recorder)
        var random = SeededRandom(seed: 4)
        try await runLedger(runtime, cycles: 500, random: &random)
        let trace = recorder.snapshot()

        // The oracle: the recorded run, replayed unchanged, says where the first fee is.
        var firstFee: Replay<Ledger>.Cycle?
        try Replay(of: Ledger.self, trace: trace).run { cycle in
            #expect(cycle.checked == .snapshot)
            if firstFee == nil, cycle.events.contains(.fee) { firstFee = cycle }
        }
        let fee = try #require(firstFee)

        let error = try #require(throws: ReplayError.self) { try Replay(of: ChangedLedger.self, trace: trace).run() }
        #expect(error.kind == .diverged)
        #expect(error.cycle == fee.cycle)
        #expect(error.events == fee.events.map { "." + String(describing: $0) }.joined(separator: ", "))
        let balance = fee.state.balance
        #expect(error.diff?.contains("−   balance: \(balance),") == true, "\(error)")
        #expect(error.diff?.contains("+   balance: \(balance - 1),") == true, "\(error)")
        #expect(error.description.hasPrefix("replay diverged at cycle \(fee.cycle) (.deposit("), "\(error)")
    }

    /// A dump taken on SIGUSR2 while the ledger runs holds a window that begins mid-run: with
    /// state snapshots it replays from the first one to the runtime's state; with fingerprints
    /// only, the replay says exactly why it cannot.
    @Test func aSignalDumpOfAWindowReplaysFromASnapshot() async throws {
        let recorder = replayRecorder(capacity: 4_096, states: .snapshots)
        let runtime = BaseRuntime(of: Ledger.self, instrument: recorder)
        var random = SeededRandom(seed: 9)
        try await runLedger(runtime, cycles: 3_000, random: &random)
        let dir = ScratchDirectory()
        let path = dir.file("window.tdtrace")
        recorder.dumpOnSignal(to: path)
        kill(getpid(), TraceRecorder.dumpSignal)
        // The dump is renamed into place when complete.
        try await withTimeout {
            while !FileManager.default.fileExists(atPath: path) { try await Task.sleep(for: .milliseconds(5)) }
        }
        let trace = try TraceFileReader(path: path).readAll()
        #expect(trace.counts.overwritten > 0)
        #expect(!trace.events.contains { $0.kind == .runtimeStart })
        let summary = try Replay(of: Ledger.self, trace: trace).run()
        #expect(summary.startedFromSnapshot)
        #expect(summary.cycles.lowerBound > 1)
        #expect(summary.checked == summary.cycles.count)
        #expect(summary.finalState == (await runtime.state))

        let fingerprinted = replayRecorder(capacity: 4_096, states: .fingerprints)
        let other = BaseRuntime(of: Ledger.self, instrument: fingerprinted)
        try await runLedger(other, cycles: 3_000, random: &random)
        let error = try #require(throws: ReplayError.self) {
            try Replay(of: Ledger.self, trace: fingerprinted.snapshot()).run()
        }
        #expect(error.kind == .cannotReplay)
        #expect(
            error.description.wholeMatch(
                of:
                    #/the trace begins mid-run \(its first cycle of runtime \d+ \(pid \d+\) is \d+, \d+ events were overwritten\) and holds no state snapshot to start from: record with PayloadCapture\.codable\(states: \.snapshots\)/#
            ) != nil, "\(error)")
    }

    /// On the main actor's host too, each cycle's leave carries the state it committed: the
    /// replay checks every one against its snapshot.
    @MainActor @Test func anObservableHostsCyclesCarryTheirStates() async throws {
        let recorder = replayRecorder(capacity: 1 << 14, states: .snapshots)
        let host = EffectObservable(of: Ledger.self, env: (), instrument: recorder)
        var random = SeededRandom(seed: 11)
        for _ in 0..<200 { try await host.input.send(.deposit(Int(random.next(below: 30)) + 1)) }
        try await host.input.request(.audit)
        let summary = try Replay(of: Ledger.self, trace: recorder.snapshot()).run()
        #expect(summary.checked == summary.cycles.count && summary.cycles.count == 202)
        #expect(summary.finalState == host.state)
    }

    /// Without captured values, or with a value store too small for the window, the replay says
    /// what to record differently.
    @Test func aTraceWithoutValuesSaysWhatToRecord() async throws {
        let plain = TraceRecorder(capacity: 1 << 12, lttng: false)
        let runtime = BaseRuntime(of: Ledger.self, instrument: plain)
        try await runtime.input.send(.deposit(5))
        let error = try #require(throws: ReplayError.self) { try Replay(of: Ledger.self, trace: plain.snapshot()).run() }
        #expect(error.kind == .cannotReplay && error.cycle == 1)
        #expect(
            error.description
                == "the event deposit of cycle 1 step 0 was recorded without its value: record with PayloadCapture.codable (and an Encodable event)"
        )

        // A termination dump (written by the signal handler) carries no values, however recorded.
        var ended = plain.snapshot()
        ended.counts.occasion = .termination
        let handler = try #require(throws: ReplayError.self) { try Replay(of: Ledger.self, trace: ended).run() }
        #expect(handler.description.contains("this dump was written by a signal handler"), "\(handler)")

        let small = TraceRecorder(capacity: 1 << 12, lttng: false, payloads: .codable(capacity: 4))
        let busy = BaseRuntime(of: Ledger.self, instrument: small)
        for amount in 1...10 { try await busy.input.send(.deposit(amount)) }
        let overwritten = try #require(throws: ReplayError.self) {
            try Replay(of: Ledger.self, trace: small.snapshot()).run()
        }
        #expect(overwritten.description.hasSuffix("give PayloadCapture.codable a larger capacity"), "\(overwritten)")
    }

    /// A trace that lost a step (a record the reader skipped: over 1 MiB, or damaged) is refused
    /// as the trace's loss, naming the cycle and the reader's note, never blamed on the code as a
    /// divergence; a trace that ends inside a cycle replays the whole ones and names the cut one.
    @Test func damageIsToldFromDivergence() async throws {
        let recorder = replayRecorder(capacity: 1 << 14, states: .fingerprints)
        let runtime = BaseRuntime(of: Ledger.self, instrument: recorder)
        var random = SeededRandom(seed: 5)
        try await runLedger(runtime, cycles: 200, random: &random)
        let whole = recorder.snapshot()
        let summary = try Replay(of: Ledger.self, trace: whole).run()
        #expect(summary.cutCycle == nil && summary.cycles.upperBound >= 200)

        // Cycle 100's first step skipped by the reader, which said so.
        var damaged = whole
        let skipped = try #require(damaged.events.firstIndex { $0.kind == .transduce && $0.cycle == 100 })
        damaged.events.remove(at: skipped)
        damaged.notes = ["ledger.jsonl: line 812: a line longer than 1 MiB, skipped"]
        let error = try #require(throws: ReplayError.self) { try Replay(of: Ledger.self, trace: damaged).run() }
        #expect(error.kind == .cannotReplay && error.cycle == 100, "\(error)")
        #expect(error.description.contains("the trace lost"), "\(error)")
        #expect(error.description.contains("line 812: a line longer than 1 MiB, skipped"), "\(error)")

        // A cycle's leave lost mid-trace: its steps cannot be known whole.
        var noLeave = whole
        noLeave.events.removeAll { $0.kind == .cycleLeave && $0.cycle == 150 }
        let leave = try #require(throws: ReplayError.self) { try Replay(of: Ledger.self, trace: noLeave).run() }
        #expect(leave.kind == .cannotReplay && leave.cycle == 150, "\(leave)")

        // Cut inside the last cycle: every whole one replays, and the cut one is named.
        var cut = whole
        let last = try #require(cut.events.last { $0.kind == .cycleLeave })
        cut.events.removeAll { $0.kind == .cycleLeave && $0.cycle == last.cycle }
        let cutSummary = try Replay(of: Ledger.self, trace: cut).run()
        #expect(cutSummary.cycles.upperBound == last.cycle - 1)
        #expect(cutSummary.cutCycle?.cycle == last.cycle && cutSummary.cutCycle?.steps == Int(last.step))
        #expect(cutSummary.checked == cutSummary.cycles.count)
    }
}
