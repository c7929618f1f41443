// The README's Loader ("The runtime") and its complete test ("Asserting trace shapes"), word for
// word: ReadmeTests checks that both blocks stand here unchanged and that every Swift block of the
// README compiles together.
import Testing
import Transduce
import TransduceTestSupport
import TransduceTrace

protocol API: Sendable { func fetch() async throws -> [String] }
struct StubAPI: API { func fetch() async throws -> [String] { ["a", "b"] } }  // yours calls a server

nonisolated enum Loader: Transducer {
    struct State: Sendable { var items: [String] = [] }
    enum Event: Sendable { case load, loaded([String]) }
    typealias Env = any API  // captured once by the host
    typealias Response = [String]  // what `request` callers get

    static var initialState: State { State() }

    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .load:
            return .task(id: "load") { _, api in .loaded(try await api.fetch()) }
        case .loaded(let items):
            state.items = items
            return .none
        }
    }

    static func response(state: State, event: Event) -> [String] { state.items }
}

@Test func loadFollowsItsTaskBackThroughTheGate() async throws {
    let recording = TraceRecording()
    let runtime = BaseRuntime(of: Loader.self, env: StubAPI(), instrument: recording.instrument)

    #expect(try await runtime.input.request(.load) == ["a", "b"])

    let trace = recording.trace()
    try trace.expectShape(
        [
            .dispatch(.request, "load"), .enter, .transduce("load"),
            .spawn("load", policy: .switchToLatest), .effect(.task, task: "load"), .leave(.handedOff),
            .settle("load", outcome: .request, event: "loaded"),
            .dispatch(.taskRequest, "loaded"), .enter, .transduce("loaded"), .effect(.none), .leave(.settled),
            .resume(.response),
        ],
        in: .request("load"))
    try trace.checkInvariants()
}
