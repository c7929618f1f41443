// A counter feature run through a BaseRuntime with a TraceRecorder: `DependentApp FILE [N]` sends
// N increments (default 50), then writes the ring buffer to FILE, so that its events can be
// compared with what LTTng recorded of the same run.
import Transduce
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

nonisolated enum Counter: Transducer {
    struct State: Sendable { var count = 0 }
    enum Event: Sendable { case increment, reset }
    typealias Env = Void
    typealias Response = Int

    static var initialState: State { State() }

    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .increment: state.count += 1
        case .reset: state.count = 0
        }
        return .none
    }

    static func response(state: State, event: Event) -> Int { state.count }
}

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    print("usage: DependentApp FILE [N]")
    exit(64)
}
let sends = arguments.dropFirst().first.flatMap { Int($0) } ?? 50
let recorder = TraceRecorder()
if case .unavailable(let reason) = LTTngProvider.status { print("LTTng unavailable: \(reason)") }
let runtime = BaseRuntime<Counter>(env: (), instrument: recorder)
for _ in 0..<sends { try await runtime.input.send(.increment) }
let count = try await runtime.input.request(.reset)
runtime.cancel()
try recorder.write(to: path)
print("sent \(sends + 1) (last response \(count ?? -1)), \(recorder.snapshot().events.count) events written to \(path)")
