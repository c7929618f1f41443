/// A lifeline of the request-lifecycle chart.
package enum Participant: Hashable, Sendable {
    case caller, gate, transduce, tasks
    case task(TraceIndex.Key)
}

/// One message or note of a sequence diagram, independent of how it is drawn (text, Mermaid,
/// PlantUML): the shared model of every sequence renderer.
package struct Interaction: Sendable {
    /// Named as the SVG export's classes name them.
    package enum Style: String, Sendable {
        case dispatch, gate, task, resume, error, quiet, banner
    }

    package var from: Participant
    /// Equal to `from` for a note on one lifeline.
    package var to: Participant
    package var label: String
    /// A duration or remark for the margin (`wait 56µs`, `held 1.2ms`).
    package var note: String
    package var time: UInt64
    package var style: Style

    package var isLocal: Bool { from == to }
}

extension TraceIndex {
    /// The interaction an event draws as, or `nil` for events a diagram leaves out (`.none` and
    /// `.sequence` effects).
    package func interaction(for e: TraceEvent, ascii: Bool = false) -> Interaction? {
        let task = Participant.task(Key(runtime: e.runtimeKey, id: e.task))
        func make(_ from: Participant, _ to: Participant, _ label: String, _ note: String, _ style: Interaction.Style)
            -> Interaction
        {
            Interaction(from: from, to: to, label: label, note: note, time: e.time, style: style)
        }
        func make(_ from: Participant, _ to: Participant, _ label: String, _ style: Interaction.Style) -> Interaction {
            make(from, to, label, "", style)
        }
        let d = { (n: UInt64) in formatDuration(n, ascii: ascii) }
        // One time base: a note's duration is the trace's own timestamps, from the event that
        // began it (the runtime's measure only when the trace lost that event).
        let runtime = e.runtimeKey
        func since(_ start: Int?) -> UInt64 { start.map { e.time.minus(events[$0].time) } ?? e.nanos }
        switch e.kind {
        case .runtimeStart:
            return make(.caller, .caller, "runtime \(e.runtimeKey.name): \(e.label) on \(e.label2)", .banner)
        case .runtimeStop:
            return make(
                .caller, .caller,
                "runtime \(e.runtimeKey.name) stopped: \(e.codeName)" + (e.label.isEmpty ? "" : " (\(e.label))"),
                .banner)
        case .dispatch:
            let from: Participant = e.otherTask != 0 ? .task(Key(runtime: e.runtimeKey, id: e.otherTask)) : .caller
            return make(from, .gate, "dispatch #\(e.dispatch) \(e.codeName)(\(e.label))", .dispatch)
        case .dispatchRejected:
            return make(.caller, .gate, "\(ascii ? "x" : "✗") \(e.codeName)(\(e.label)): \(e.code2Name)", "rejected", .error)
        case .cycleEnter:
            let wait = since(dispatches[Key(runtime: runtime, id: e.dispatch)]?.event)
            return make(.gate, .transduce, "enter cycle #\(e.cycle)", "wait \(d(wait))", .gate)
        case .transduce:
            return make(.transduce, .transduce, "transduce(\(e.label))" + (e.step > 0 ? " step \(e.step)" : ""), .gate)
        case .effect:
            switch e.effectKind {
            case .task: return make(.transduce, .tasks, "task(\(e.label.isEmpty ? "anonymous" : e.label))", .task)
            case .cancel: return make(.transduce, .tasks, "cancel(\(e.label))", .task)
            case .action: return make(.transduce, .transduce, "action", "ran \(d(e.nanos))", .gate)
            case .asyncAction:
                return make(.transduce, .transduce, "async action (gate held)", "ran \(d(e.nanos))", .gate)
            case .event: return make(.transduce, .transduce, ".event", .gate)
            case .some(.none), .sequence, nil: return nil
            }
        case .cycleLeave:
            let held = since(cycles[Key(runtime: runtime, id: e.cycle)]?.enter)
            return make(.transduce, .gate, "leave cycle #\(e.cycle) (\(e.codeName))", "held \(d(held))", .gate)
        case .taskSpawn:
            let label = "spawn \(e.codeName)" + (e.otherTask != 0 ? ", replaces task #\(e.otherTask)" : "")
            return make(.tasks, task, label, e.count > 0 ? "waiters \(e.count)" : "", .task)
        case .taskJoin:
            return make(.tasks, task, "join: dispatch #\(e.dispatch)", .task)
        case .taskCancel:
            return make(.tasks, task, "cancel (\(e.codeName))", .error)
        case .taskSettle:
            let what = e.label.isEmpty ? e.codeName : "\(e.codeName)(\(e.label))"
            // (A settle the runtime stamped with no run time has none to show.)
            let ran = since(tasks[Key(runtime: runtime, id: e.task)]?.spawn)
            return make(
                task, .tasks, "settle: \(what)", e.nanos > 0 ? "ran \(d(ran))" : "", e.taskOutcome == .failed ? .error : .task)
        case .requestResume:
            let what = e.resumeOutcome == .error ? "error(\(e.label))" : e.codeName
            // A request made from inside a task resumes that task, not an outside caller.
            let dispatch = dispatches[Key(runtime: runtime, id: e.dispatch)]
            let origin = dispatch.map { events[$0.event].otherTask } ?? 0
            let caller: Participant = origin != 0 ? .task(Key(runtime: runtime, id: origin)) : .caller
            return make(
                .gate, caller, "resume dispatch #\(e.dispatch): \(what)", "after \(d(since(dispatch?.event)))",
                e.resumeOutcome == .error ? .error : .resume)
        case .eventDropped:
            return make(.transduce, .transduce, "dropped(\(e.label)): \(e.codeName)", .quiet)
        case .traceContext:
            // Context of the dispatch that follows it, not an interaction of its own.
            return nil
        }
    }

    package func title(of participant: Participant) -> String {
        switch participant {
        case .caller: "caller"
        case .gate: "gate"
        case .transduce: "transduce"
        case .tasks: "tasks"
        case .task(let key): taskTitle(runtime: key.runtime, task: key.id)
        }
    }
}

extension TraceIndex {
    /// `indices` in the order a diagram draws them: by time, ties in the order given.
    ///
    /// Trace order is not always time order within a request: the runtime stamps some events
    /// with a time it took before recording another (a `switchToLatest` spawn carries the time
    /// it began, and the cancel of the task it replaces is recorded first, a few microseconds
    /// later), and threads record concurrently. A diagram whose time column ran backwards put
    /// an effect above its cause. Linear when `indices` are already in time order.
    package func inTimeOrder(_ indices: [Int]) -> [Int] {
        var ordered = true
        var previous: UInt64 = 0
        for i in indices {
            let time = events[i].time
            if time < previous {
                ordered = false
                break
            }
            previous = time
        }
        if ordered { return indices }
        return indices.enumerated()
            .sorted { (events[$0.element].time, $0.offset) < (events[$1.element].time, $1.offset) }
            .map(\.element)
    }
}
