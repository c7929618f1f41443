// The complete test shown in README.md ("Asserting trace shapes"); keep the two in step.
import Testing
import Transduce
import TransduceTrace

nonisolated enum Loader: Transducer {
    struct State: Sendable { var items: [String] = [] }
    enum Event: Sendable { case load, loaded([String]) }
    typealias Response = [String]
    static var initialState: State { State() }
    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .load:
            return .task(id: "load") { _, _ in .loaded(["a", "b"]) }
        case .loaded(let items):
            state.items = items
            return .none
        }
    }
    static func response(state: State, event: Event) -> [String] { state.items }
}

@Test func loadFollowsItsTaskBackThroughTheGate() async throws {
    let recording = TraceRecording()
    let runtime = BaseRuntime(of: Loader.self, instrument: recording.instrument)

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
