import Synchronization
import Testing
import TransduceTestSupport

@testable import Transduce

@Suite struct PureTransduceTests {
    @Test func counterTransitionsAreFunctions() {
        var state = CounterFeature.State()
        let effect = CounterFeature.transduce(&state, event: .increment)
        #expect(state.count == 1)
        #expect(effect.summary == .none)
        _ = CounterFeature.transduce(&state, event: .decrement)
        #expect(state.count == 0)
    }

    @Test func effectSummaries() {
        var state = LoaderFeature.State()
        #expect(LoaderFeature.transduce(&state, event: .startTicker).summary == .task(id: "ticker", option: .switchToLatest))
        #expect(LoaderFeature.transduce(&state, event: .stopTicker).summary == .cancel("ticker"))
        #expect(
            LoaderFeature.transduce(&state, event: .refresh).summary
                == .sequence([.cancel("old"), .task(id: "new", option: .switchToLatest)]))
        #expect(TransducerEffect<Int, Void, Void>.sequence([]).summary == .sequence([]))
    }

    @Test func syncActionBodiesCanBeCalledDirectly() {
        var state = GateProbe.State()
        let effect = GateProbe.transduce(&state, event: .begin)
        guard case .action(let body) = effect.kind else {
            Issue.record("expected a sync action, got \(effect.summary)")
            return
        }
        #expect(body(GateProbe.Env()) == .step)
        let terminal = TransducerEffect<Int, Void, Void>.action { (_: Void) -> Void in }
        guard case .action(let t) = terminal.kind else { return }
        #expect(t(()) == nil)
    }

    @Test func taskOperationWithSpyInput() async throws {
        // Scenario 2: drive a task operation through the Input test seam.
        let posted = TraceLog()
        let input = LoaderFeature.Input(
            post: { event in posted.append("\(event)") },
            dispatch: { _, _ in nil })
        func run(_ event: LoaderFeature.Event, env: LoaderFeature.Env) async throws {
            var state = LoaderFeature.State()
            guard case .task(let spec) = LoaderFeature.transduce(&state, event: event).kind else {
                Issue.record("expected a task")
                return
            }
            _ = try await spec.operation(input, env)
        }
        try await run(.load, env: .init(fetch: { ["X", "Y"] }))
        try await run(.load, env: .init(fetch: { throw TimeoutError(what: "fetch") }))
        #expect(posted.all == [#"loaded(["X", "Y"])"#, #"failed("timed out waiting for fetch")"#])
        // The ticker posts `.ticked` until cancelled.
        let ticker = Task { try await run(.startTicker, env: .init(fetch: { [] })) }
        try await eventually("a tick") { posted.all.contains("ticked") }
        ticker.cancel()
        _ = await ticker.result
    }

    @Test func taskIdentifiersCompareByTypeAndValue() {
        #expect(TaskIdentifier("1") != TaskIdentifier(1))
        #expect(TaskIdentifier("a") == "a")
        #expect(TaskIdentifier(TaskIdentifier(3)) == 3)
        let n = 7
        #expect(TaskIdentifier("job-\(n)") == TaskIdentifier("job-7"))
        #expect(Set<TaskIdentifier>(["a", 1, "a"]).count == 2)
        #expect(TaskIdentifier("load").description == "load")
    }

    @Test func labelsNameEnumCasesWithoutPayload() {
        #expect(EventLabel(reflecting: LoaderFeature.Event.loaded(["a"])).description == "loaded")
        #expect(EventLabel(reflecting: LoaderFeature.Event.load).description == "load")
        #expect(EventLabel(reflecting: Boom()).description == "Boom")
        #expect(EventLabel("x") == EventLabel(String("x")))
    }

    @Test func runtimeErrorsDescribeThemselves() {
        #expect(RuntimeError.systemError.description.contains("failed earlier"))
        #expect(RuntimeError.queueFull(capacity: 4).description.contains("internal event buffer full"))
        #expect(RuntimeError.runawayEventChain(event: "loop", limit: 5).description.contains("'loop'"))
    }

    /// A struct over a code: compared with its static members, matched in `catch`, its values
    /// read as properties, its code switched over with a default.
    @Test func runtimeErrorsAreCodesWithValues() {
        let full = RuntimeError.queueFull(capacity: 4)
        #expect(full.code == .queueFull && full.capacity == 4 && full.event == nil && full.limit == nil)
        #expect(full != .queueFull(capacity: 5) && full != .cancelled)
        let runaway = RuntimeError.runawayEventChain(event: "loop", limit: 5)
        #expect(runaway.code == .runawayEventChain && runaway.event == "loop" && runaway.limit == 5)
        #expect(RuntimeError.Code.reentrantDispatch.description == "reentrantDispatch")
        func kind(_ error: any Error) -> String {
            do { throw error } catch RuntimeError.cancelled { return "cancelled" } catch let error as RuntimeError {
                switch error.code {
                case .queueFull: return "full of \(error.capacity ?? 0)"
                default: return "other \(error.code)"
                }
            } catch { return "not a runtime error" }
        }
        #expect(kind(RuntimeError.cancelled) == "cancelled")
        #expect(kind(full) == "full of 4")
        #expect(kind(RuntimeError.deallocated) == "other deallocated")
        #expect(kind(Boom()) == "not a runtime error")
    }
}
