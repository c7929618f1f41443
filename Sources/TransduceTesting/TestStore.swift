import Transduce
import TransduceTrace

/// An exhaustive test of a feature on the real runtime: each event's state change asserted
/// exactly, each event its tasks and chains feed back received in order, and no task left running.
///
/// ```swift
/// let clock = TestClock()
/// let store = TestStore(of: Search.self, initialState: .init(), env: .init(clock: clock))
/// await store.send(.typed("swift")) { $0.query = "swift" }
/// try await clock.sleepers(atLeast: 1)
/// clock.advance(by: .milliseconds(300))
/// await store.receive(.found(["swift"])) { $0.results = ["swift"] }
/// await store.finish()
/// ```
///
/// The store runs the feature in a `BaseRuntime`, unchanged, and watches it through the runtime's
/// observer hooks: it sees every `transduce` step with the state it committed, and every managed
/// task from its start to its end. A step is either *sent* (``send(_:timeout:fileID:filePath:line:column:_:)``:
/// the test dispatched it) or *received* (a task's result, an event a task dispatched, or an event
/// chained in a cycle) and must then be asserted with ``receive(_:timeout:fileID:filePath:line:column:_:)``,
/// in the order the runtime transduced them. State closures get the state the test last asserted
/// and must turn it into the one the step committed. Failures go to whichever framework runs the
/// test (``reportFailure(_:fileID:filePath:line:column:)``), at the caller's line, with a diff of
/// the two states (``StateDiff``).
///
/// The store records what the runtime did into its own `TraceRecorder` (ring only), so a test
/// can also assert the shape of what happened: `try store.trace.expectShape(...)`,
/// `try store.trace.checkInvariants()`.
///
/// Dispatch only through the store: a `send` is matched with the next step that came from outside
/// the runtime. Call ``finish(timeout:fileID:filePath:line:column:)`` at the end of an
/// exhaustive test: it waits for the tasks and fails for what is left.
public final class TestStore<T: Transducer>: Sendable
where
    T.State: Equatable & Sendable, T.Event: Sendable, T.Env: Sendable, T.Response: Sendable,
    T.Effect == TransducerEffect<T.Event, T.Env, T.Response>
{
    private struct Progress: Sendable {
        var expected: T.State
        /// Steps of the log already asserted or passed over.
        var consumed = 0
        var exhaustivity: Exhaustivity
        var timeout: Duration
        var skipped: [String] = []
    }

    private let runtime: BaseRuntime<T>
    private let log: StoreLog<T.Event, T.State>
    // Transduce's pthread-based lock, not `Mutex`: ThreadSanitizer does not see Mutex's futex
    // on Linux and reported its guarded accesses as races.
    private let progress: Lock<Progress>
    /// The recorder the runtime reports to: what ``trace`` is made of.
    public let recorder: TraceRecorder

    /// Creates a runtime for `T` that starts in `initialState` with `env`, watched by the store.
    ///
    /// - Parameters:
    ///   - of: the feature (inferred when the context says).
    ///   - initialState: the state to start from; also the state the first assertion starts from.
    ///   - env: the dependencies its actions and tasks get (a ``TestClock`` for their time).
    ///   - exhaustivity: how much the store insists on (``Exhaustivity/on`` by default).
    ///   - timeout: how long a `send`, a `receive` or `finish` waits, in real time, before it
    ///     fails; a test that waits on a ``TestClock`` never needs more than the default.
    ///   - recorderCapacity: events the store's trace keeps (the newest).
    public init(
        of: T.Type = T.self, initialState: T.State, env: T.Env, exhaustivity: Exhaustivity = .on,
        timeout: Duration = .seconds(5), recorderCapacity: Int = 1 << 16
    ) {
        let log = StoreLog<T.Event, T.State>()
        let recorder = TraceRecorder(capacity: recorderCapacity, lttng: false)
        let runtime = BaseRuntime<T>(
            initialState: initialState, env: env, initialEvent: nil, instrument: recorder, observer: log,
            queueCapacity: BaseRuntime<T>.defaultQueueCapacity, stepLimit: BaseRuntime<T>.defaultStepLimit)
        self.log = log
        self.recorder = recorder
        self.runtime = runtime
        progress = Lock(Progress(expected: initialState, exhaustivity: exhaustivity, timeout: timeout))
    }

    /// A store for a feature without `Env`; see ``init(of:initialState:env:exhaustivity:timeout:recorderCapacity:)``.
    public convenience init(
        of: T.Type = T.self, initialState: T.State, exhaustivity: Exhaustivity = .on, timeout: Duration = .seconds(5),
        recorderCapacity: Int = 1 << 16
    ) where T.Env == Void {
        self.init(
            of: of, initialState: initialState, env: (), exhaustivity: exhaustivity, timeout: timeout,
            recorderCapacity: recorderCapacity)
    }

    /// The state as the test last asserted it (the state the next assertion starts from).
    public var state: T.State { progress.withLock { $0.expected } }

    /// How much the store insists on; may change mid-test.
    public var exhaustivity: Exhaustivity {
        get { progress.withLock { $0.exhaustivity } }
        set { progress.withLock { $0.exhaustivity = newValue } }
    }

    /// How long a `send`, `receive` or `finish` waits by default.
    public var timeout: Duration {
        get { progress.withLock { $0.timeout } }
        set { progress.withLock { $0.timeout = newValue } }
    }

    /// What a non-exhaustive store passed over, in order: state the test did not assert, events
    /// it did not receive, tasks still running at ``finish(timeout:fileID:filePath:line:column:)``.
    public var skippedAssertions: [String] { progress.withLock { $0.skipped } }

    /// The identity of the store's runtime, as its trace names it.
    public var runtimeID: RuntimeID { runtime.runtimeID }

    /// What the runtime did so far, from the store's recorder: for `expectShape` and
    /// `checkInvariants`.
    public var trace: Trace { recorder.snapshot() }

    // MARK: Sending

    /// Dispatches `event` (style `send`) and asserts the state its `transduce` committed.
    ///
    /// Fails when the dispatch throws or does not end within `timeout`; when, in an exhaustive
    /// store, events from tasks or chains were transduced before it and not received; and when
    /// `assert` applied to ``state`` does not give the committed state (the failure shows the
    /// diff). Without `assert`, the state must not have changed.
    ///
    /// - Parameters:
    ///   - event: the event to dispatch.
    ///   - timeout: how long to wait for its cycle (default: the store's ``timeout``).
    ///   - fileID: where a failure is reported (leave the defaults).
    ///   - filePath: likewise.
    ///   - line: likewise.
    ///   - column: likewise.
    ///   - assert: turns the state the test last asserted into the state expected now.
    public func send(
        _ event: T.Event, timeout: Duration? = nil, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
        line: UInt = #line, column: UInt = #column, _ assert: ((inout T.State) throws -> Void)? = nil
    ) async {
        let place = Place(fileID: fileID, filePath: filePath, line: line, column: column)
        let limit = timeout ?? self.timeout
        let sent = "send(\(Self.describe(event)))"
        let input = runtime.input
        let outcome = await Self.within(limit) { try await input.send(event) }
        switch outcome {
        case .finished: break
        case .failed(let error):
            place.fail("\(sent) failed: \(error)")
            return
        case .timedOut:
            place.fail("\(sent) did not finish within \(limit)\(runningTasksText())")
            return
        }
        // The cycle has committed: its step is in the log, after any received before it.
        let steps = log.contents.withLock { $0.steps }
        let start = progress.withLock { $0.consumed }
        guard let index = steps[start...].firstIndex(where: \.isExternal) else {
            place.fail("\(sent): the runtime transduced no event from outside (was it dispatched elsewhere?)")
            return
        }
        passOver(steps[start..<index], before: sent, place)
        check(steps[index], consuming: index, what: sent, assert, place)
    }

    // MARK: Receiving

    /// Waits for the next event from a task or a chain, asserts that it is `event` and the state
    /// its `transduce` committed.
    ///
    /// Fails when no event comes within `timeout` (naming the tasks still running), when the next
    /// event received is another (in an exhaustive store; a non-exhaustive one passes over others
    /// until this one comes), or when the state differs (with the diff).
    ///
    /// - Parameters:
    ///   - event: the event expected next.
    ///   - timeout: how long to wait for it (default: the store's ``timeout``).
    ///   - fileID: where a failure is reported (leave the defaults).
    ///   - filePath: likewise.
    ///   - line: likewise.
    ///   - column: likewise.
    ///   - assert: turns the state the test last asserted into the state expected now.
    public func receive(
        _ event: T.Event, timeout: Duration? = nil, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
        line: UInt = #line, column: UInt = #column, _ assert: ((inout T.State) throws -> Void)? = nil
    ) async where T.Event: Equatable {
        await receive(
            Self.describe(event), matching: { $0 == event }, timeout: timeout,
            place: Place(fileID: fileID, filePath: filePath, line: line, column: column), assert)
    }

    /// Waits for the next event from a task or a chain, asserts that `matching` accepts it and the
    /// state its `transduce` committed: for events that are not `Equatable`, or to match a case
    /// whatever its payload (`{ if case .found = $0 { true } else { false } }`).
    ///
    /// The failures are ``receive(_:timeout:fileID:filePath:line:column:_:)``'s.
    ///
    /// - Parameters:
    ///   - name: how a failure names the event expected (say, `".found"`).
    ///   - matching: whether an event is the one expected.
    ///   - timeout: how long to wait for it (default: the store's ``timeout``).
    ///   - fileID: where a failure is reported (leave the defaults).
    ///   - filePath: likewise.
    ///   - line: likewise.
    ///   - column: likewise.
    ///   - assert: turns the state the test last asserted into the state expected now.
    public func receive(
        _ name: String, matching: @escaping (T.Event) -> Bool, timeout: Duration? = nil, fileID: StaticString = #fileID,
        filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ assert: ((inout T.State) throws -> Void)? = nil
    ) async {
        await receive(
            name, matching: matching, timeout: timeout,
            place: Place(fileID: fileID, filePath: filePath, line: line, column: column), assert)
    }

    private func receive(
        _ name: String, matching: (T.Event) -> Bool, timeout: Duration?, place: Place,
        _ assert: ((inout T.State) throws -> Void)?
    ) async {
        let limit = timeout ?? self.timeout
        let what = "receive(\(name))"
        let (start, exhaustive) = progress.withLock { ($0.consumed, $0.exhaustivity == .on) }
        var found: Int?
        let arrived = await log.wait(timeout: limit) { contents in
            let received = contents.steps[start...]
            if exhaustive {
                found = received.startIndex < received.endIndex ? received.startIndex : nil
            } else {
                found = received.firstIndex { !$0.isExternal && matching($0.event) }
            }
            return found != nil
        }
        let steps = log.contents.withLock { $0.steps }
        guard arrived, let index = found else {
            let seen = steps[start...].map { Self.describe($0.event) }
            let after = seen.isEmpty ? "nothing was received" : "received only " + seen.joined(separator: ", ")
            place.fail("\(what): no such event within \(limit); \(after)\(runningTasksText())")
            return
        }
        let step = steps[index]
        if step.isExternal || !matching(step.event) {
            let actual = Self.describe(step.event)
            let kind = step.isExternal ? "a dispatch from outside the runtime" : "received"
            place.fail("\(what): the next event \(kind) was \(actual)\(origin(of: step))")
            progress.withLock {
                $0.consumed = index + 1
                $0.expected = step.state
            }
            return
        }
        passOver(steps[start..<index], before: what, place)
        check(step, consuming: index, what: what, assert, place)
    }

    /// Waits until the runtime is quiet (as ``finish(timeout:fileID:filePath:line:column:)``
    /// does, for at most `timeout`), then passes over every event received, unasserted, whatever
    /// the exhaustivity: the state the next assertion starts from is the one they left.
    ///
    /// - Parameter timeout: how long to wait for the runtime to be quiet (default: the store's
    ///   ``timeout``); the events received by then are passed over either way.
    public func skipReceivedEvents(timeout: Duration? = nil) async {
        let runtime = self.runtime
        _ = await log.wait(timeout: timeout ?? self.timeout) { _ in runtime.isQuiet }
        let steps = log.contents.withLock { $0.steps }
        progress.withLock { p in
            guard p.consumed < steps.count else { return }
            p.expected = steps[steps.count - 1].state
            p.consumed = steps.count
        }
    }

    // MARK: Finishing

    /// Waits until the runtime is quiet — every task ended and nothing left to transduce — then
    /// fails (an exhaustive store) for each task still running, naming its instance, id, the
    /// event that started it, how long it has run and where its effect was written, and for each
    /// event received and not asserted.
    ///
    /// - Parameters:
    ///   - timeout: how long to wait for the tasks (default: the store's ``timeout``).
    ///   - fileID: where a failure is reported (leave the defaults).
    ///   - filePath: likewise.
    ///   - line: likewise.
    ///   - column: likewise.
    public func finish(
        timeout: Duration? = nil, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
        line: UInt = #line, column: UInt = #column
    ) async {
        let place = Place(fileID: fileID, filePath: filePath, line: line, column: column)
        let limit = timeout ?? self.timeout
        let runtime = self.runtime
        let quiet = await log.wait(timeout: limit) { _ in runtime.isQuiet }
        if !quiet {
            for task in runningTasks() {
                report("finish(): after waiting \(limit), \(Self.describe(task))", place)
            }
        }
        let steps = log.contents.withLock { $0.steps }
        let start = progress.withLock { $0.consumed }
        passOver(steps[start...], before: "finish()", place)
    }

    // MARK: Checking

    /// Asserts a step's state and makes it the state the next assertion starts from.
    private func check(
        _ step: StoreLog<T.Event, T.State>.Step, consuming index: Int, what: String,
        _ assert: ((inout T.State) throws -> Void)?, _ place: Place
    ) {
        let (previous, exhaustivity) = progress.withLock { p -> (T.State, Exhaustivity) in
            defer {
                p.consumed = index + 1
                p.expected = step.state
            }
            return (p.expected, p.exhaustivity)
        }
        // Exhaustive: the closure turns the last asserted state into the committed one.
        // Non-exhaustive: its assignments must hold on the committed state; what else changed is
        // passed over.
        var expected = exhaustivity == .on ? previous : step.state
        do {
            try assert?(&expected)
        } catch {
            place.fail("\(what): the state closure threw \(error)")
            return
        }
        if expected != step.state {
            let diff = StateDiff.diff(expected, step.state) ?? "(the states differ, but are written alike)"
            place.fail("\(what): the state differs from what was expected (− expected, + actual):\n\(diff)")
            return
        }
        if case .off(let show) = exhaustivity {
            var fromPrevious = previous
            try? assert?(&fromPrevious)
            if let diff = StateDiff.diff(fromPrevious, step.state) {
                skip("\(what): state changes not asserted (− expected, + actual):\n\(diff)", show: show, place)
            }
        }
    }

    /// Events received and not asserted before `what`: a failure each in an exhaustive store,
    /// passed over in a non-exhaustive one. Either way they are consumed.
    private func passOver(_ steps: ArraySlice<StoreLog<T.Event, T.State>.Step>, before what: String, _ place: Place) {
        guard let last = steps.last else { return }
        progress.withLock { p in
            p.consumed = steps.endIndex
            p.expected = last.state
        }
        for step in steps {
            report("\(what): \(Self.describe(step.event)) was received\(origin(of: step)) and not asserted", place)
        }
    }

    /// Fails (exhaustive) or records a skipped assertion (non-exhaustive).
    private func report(_ message: String, _ place: Place) {
        switch exhaustivity {
        case .on: place.fail(message)
        case .off(let show): skip(message, show: show, place)
        }
    }

    private func skip(_ message: String, show: Bool, _ place: Place) {
        progress.withLock { $0.skipped.append(message) }
        if show { reportSkipped(message, fileID: place.fileID, filePath: place.filePath, line: place.line, column: place.column) }
    }

    // MARK: Describing

    private func origin(of step: StoreLog<T.Event, T.State>.Step) -> String {
        let where_ = " (cycle \(step.observed.cycle)"
        if step.observed.step > 0 { return where_ + ", chained)" }
        guard step.observed.origin != 0 else { return where_ + ")" }
        let task = log.contents.withLock { $0.tasks[step.observed.origin] }
        return where_ + ", from " + (task.map { Self.name(of: $0.task) } ?? "task #\(step.observed.origin)") + ")"
    }

    private func runningTasks() -> [StoreLog<T.Event, T.State>.TaskRecord] {
        log.contents.withLock { $0.tasks.values.filter { $0.endedAt == nil } }.sorted { $0.task.instance < $1.task.instance }
    }

    private func runningTasksText() -> String {
        let running = runningTasks()
        guard !running.isEmpty else { return "" }
        return "; " + running.map(Self.describe).joined(separator: "; ")
    }

    private static func name(of task: ObservedTask) -> String {
        "task #\(task.instance)" + (task.id.map { " \"\($0)\"" } ?? "")
    }

    /// `task #3 "search" is still running: started by .typed("a") in cycle 2 at Search.swift:14,
    /// running for 1002 ms`.
    private static func describe(_ task: StoreLog<T.Event, T.State>.TaskRecord) -> String {
        let ran = (ContinuousClock.now - task.startedAt).components
        let millis = ran.seconds * 1_000 + ran.attoseconds / 1_000_000_000_000_000
        let spawner = task.spawnedBy.map { " by \(describe($0))" } ?? ""
        return "\(name(of: task.task)) is still running: started\(spawner) in cycle \(task.task.cycle) at "
            + "\(task.task.fileID):\(task.task.line), running for \(millis) ms"
    }

    private static func describe(_ event: T.Event) -> String { eventText(event) }

    // MARK: Waiting with a limit

    private enum Outcome {
        case finished
        case failed(any Error)
        case timedOut
    }

    /// Runs `operation`, giving up (and cancelling it) after `limit` of real time.
    private static func within(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> Void) async
        -> Outcome
    {
        await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                do {
                    try await operation()
                    return .finished
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return Task.isCancelled ? nil : .timedOut
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let outcome = next { return outcome }
            }
            return .timedOut
        }
    }
}

/// Where an assertion was written: its failures are reported there.
struct Place: Sendable {
    let fileID: StaticString
    let filePath: StaticString
    let line: UInt
    let column: UInt

    func fail(_ message: String) {
        reportFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
