// The README's Search and its tests ("Testing a feature"), word for word: ReadmeTests checks that
// both blocks stand here unchanged and that every Swift block of the README compiles together.
import Foundation
import Testing
import Transduce
import TransduceTesting
import TransduceTrace

nonisolated enum Search: Transducer {
    struct State: Sendable, Equatable, Codable {
        var query = ""
        var results: [String] = []
    }
    enum Event: Sendable, Equatable, Codable { case typed(String), found([String]) }
    struct Env: Sendable {
        var clock: any Clock<Duration>
        var find: @Sendable (String) async throws -> [String]
    }

    static var initialState: State { State() }

    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .typed(let query):
            state.query = query
            // A newer query replaces this task (`switchToLatest`): only the last one searches.
            return .task(id: "search") { _, env in
                try await env.clock.sleep(for: .milliseconds(300))
                return .found(try await env.find(query))
            }
        case .found(let results):
            state.results = results
            return .none
        }
    }
}

@Test func typingChangesTheQueryAndStartsTheSearch() {
    var state = Search.State()
    let effect = Search.transduce(&state, event: .typed("sw"))
    #expect(state.query == "sw")
    #expect(effect.summary == .task(id: "search", option: .switchToLatest))
}

@Test func onlyTheLastQuerySearchesOnceTheTypingStops() async throws {
    let clock = TestClock()
    let store = TestStore(
        of: Search.self, initialState: .init(), env: .init(clock: clock, find: { ["\($0)ift"] }))
    await store.send(.typed("s")) { $0.query = "s" }
    await store.send(.typed("sw")) { $0.query = "sw" }
    try await clock.sleepers(atLeast: 1)  // the last task sleeps; the first was replaced
    clock.advance(by: .milliseconds(300))
    await store.receive(.found(["swift"])) { $0.results = ["swift"] }
    await store.finish()

    try store.trace.expectShape(
        [
            .spawn("search"), .cancel("search", reason: .replaced), .spawn("search"),
            .settle("search", outcome: .request, event: "found"), .transduce("found"),
        ],
        exhaustive: false)
    try store.trace.checkInvariants()
}

@Test func aRecordedRunReplaysThroughTheTransducer() async throws {
    // Recorded as in production, with each event's encoding and each cycle's state.
    let recorder = TraceRecorder(lttng: false, payloads: .codable(states: .snapshots))
    let env = Search.Env(clock: ImmediateClock(), find: { [$0 + "!"] })
    let runtime = BaseRuntime(of: Search.self, env: env, instrument: recorder)
    for query in ["s", "sw", "swift"] { try await runtime.input.request(.typed(query)) }
    let dump = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID()).tdtrace").path
    try recorder.write(to: dump)
    defer { try? FileManager.default.removeItem(atPath: dump) }

    let trace = try TraceFileReader(path: dump).readAll()
    let replayed = try Replay(of: Search.self, trace: trace).run()  // throws where a state differs
    let state = await runtime.state
    #expect(replayed.checked == 6 && replayed.finalState == state)
}
