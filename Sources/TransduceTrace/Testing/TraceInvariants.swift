/// The runtime invariants a trace can be checked against (RUNTIME.md B.2, as TRACING.md §5
/// lists them).
public enum InvariantRule: String, Sendable, CaseIterable {
    /// At most one cycle per runtime at a time; `transduce` only inside its cycle.
    case oneCycleAtATime
    /// Admissions enter the gate in the order they were accepted.
    case fifoAdmission
    /// Every awaited caller (`send`, `request`, `uniqueRequest`) is resumed exactly once.
    case resumedExactlyOnce
    /// Every task instance is spawned once and ends once (settled or cancelled); a cancelled
    /// instance's late outcome is discarded.
    case taskSpawnedAndEndedOnce
    /// Nothing is transduced after the runtime stopped.
    case nothingTransducedAfterStop
}

/// One broken invariant, with the events that show it.
public struct InvariantViolation: Sendable, CustomStringConvertible {
    public var rule: InvariantRule
    public var runtime: UInt64
    public var message: String
    public var events: [TraceEvent]
    /// The trace's start, which the event times are printed from.
    public var origin: UInt64 = 0

    public var description: String {
        "\(rule.rawValue) (runtime \(RuntimeKey.name(runtime))): \(message)"
            + events.map { e in
                let ms =
                    e.time >= origin
                    ? format(Double(e.time - origin) / 1_000_000, decimals: 3)
                    : "-" + format(Double(origin - e.time) / 1_000_000, decimals: 3)
                return "\n    at \(ms)ms \(e.kind) \(Self.ids(e))"
            }.joined()
    }

    static func ids(_ e: TraceEvent) -> String {
        var parts: [String] = []
        if e.dispatch != 0 { parts.append("dispatch #\(e.dispatch)") }
        if e.cycle != 0 { parts.append("cycle #\(e.cycle)") }
        if e.task != 0 { parts.append("task #\(e.task)") }
        if !e.label.isEmpty { parts.append("'\(e.label)'") }
        return parts.joined(separator: " ")
    }
}

public struct InvariantError: Error, CustomStringConvertible, Sendable {
    public var violations: [InvariantViolation]
    public var description: String {
        "\(violations.count) runtime invariant violation(s), times from the trace's start:\n"
            + violations.map { "  " + $0.description }.joined(separator: "\n")
    }
}

/// Checks the runtime's invariants from a trace alone.
public enum TraceInvariants {
    /// - Parameter complete: the trace covers whole runs (every caller returned, every task
    ///   ended). With `false` (a flight-recorder snapshot of a live process), only what a partial
    ///   trace can prove is checked: nothing twice, nothing out of order. A trace whose recorder
    ///   lost events is always checked as incomplete.
    public static func check(_ trace: Trace, complete: Bool = true) -> [InvariantViolation] {
        let whole = complete && trace.counts.overwritten == 0 && trace.counts.discarded == 0 && trace.counts.lost == 0
        var violations: [InvariantViolation] = []
        let origin = trace.start ?? 0
        struct RuntimeState {
            var open: TraceEvent?
            var accepted: [UInt64] = []
            var acceptedAt: [UInt64: TraceEvent] = [:]
            var stop: TraceEvent?
        }
        var runtimes: [UInt64: RuntimeState] = [:]
        var awaited: [TraceIndex.Key: (dispatch: TraceEvent, resumes: [TraceEvent])] = [:]
        var tasks: [TraceIndex.Key: (spawns: [TraceEvent], cancels: [TraceEvent], settles: [TraceEvent])] = [:]
        func add(_ rule: InvariantRule, _ runtime: UInt64, _ message: String, _ events: [TraceEvent]) {
            violations.append(
                InvariantViolation(rule: rule, runtime: runtime, message: message, events: events, origin: origin))
        }
        for e in trace.events {
            // Taken out of the dictionary while it is updated, so its collections are not copied.
            var s = runtimes.removeValue(forKey: e.runtimeKey) ?? RuntimeState()
            defer { runtimes[e.runtimeKey] = s }
            let key = { (id: UInt64) in TraceIndex.Key(runtime: e.runtimeKey, id: id) }
            switch e.kind {
            case .dispatch:
                s.accepted.append(e.dispatch)
                s.acceptedAt[e.dispatch] = e
                if e.isAwaitedDispatch { awaited[key(e.dispatch)] = (e, []) }
            case .cycleEnter:
                if let open = s.open {
                    add(
                        .oneCycleAtATime, e.runtimeKey, "cycle #\(e.cycle) entered while cycle #\(open.cycle) held the gate",
                        [open, e])
                }
                s.open = e
                if let position = s.accepted.firstIndex(of: e.dispatch) {
                    if position > 0, let first = s.acceptedAt[s.accepted[0]] {
                        add(
                            .fifoAdmission, e.runtimeKey,
                            "dispatch #\(e.dispatch) entered before dispatch #\(first.dispatch), which was accepted first",
                            [first] + (s.acceptedAt[e.dispatch].map { [$0] } ?? []) + [e])
                    }
                    s.accepted.remove(at: position)
                    s.acceptedAt[e.dispatch] = nil
                }
            case .transduce:
                if let stop = s.stop {
                    add(
                        .nothingTransducedAfterStop, e.runtimeKey,
                        "'\(e.label)' transduced after the runtime stopped (\(stop.codeName))", [stop, e])
                }
                if s.open?.cycle != e.cycle {
                    add(.oneCycleAtATime, e.runtimeKey, "'\(e.label)' transduced outside its cycle #\(e.cycle)", [e])
                }
            case .cycleLeave:
                if s.open?.cycle == e.cycle { s.open = nil }
            case .runtimeStop:
                s.stop = e
                s.accepted.removeAll()
                s.acceptedAt.removeAll()
            case .requestResume:
                awaited[key(e.dispatch)]?.resumes.append(e)
            case .taskSpawn:
                tasks[key(e.task), default: ([], [], [])].spawns.append(e)
            case .taskCancel:
                tasks[key(e.task), default: ([], [], [])].cancels.append(e)
            case .taskSettle:
                tasks[key(e.task), default: ([], [], [])].settles.append(e)
            default:
                break
            }
        }
        for (key, entry) in awaited.sorted(by: { $0.value.dispatch.time < $1.value.dispatch.time }) {
            if entry.resumes.count > 1 {
                add(
                    .resumedExactlyOnce, key.runtime, "dispatch #\(key.id) was resumed \(entry.resumes.count) times",
                    [entry.dispatch] + entry.resumes)
            } else if entry.resumes.isEmpty && whole {
                add(
                    .resumedExactlyOnce, key.runtime,
                    "dispatch #\(key.id) (\(entry.dispatch.codeName) '\(entry.dispatch.label)') was never resumed",
                    [entry.dispatch])
            }
        }
        for (key, entry) in tasks.sorted(by: { ($0.key.runtime, $0.key.id) < ($1.key.runtime, $1.key.id) }) {
            let all = entry.spawns + entry.cancels + entry.settles
            if entry.spawns.count > 1 {
                add(
                    .taskSpawnedAndEndedOnce, key.runtime, "task #\(key.id) was spawned \(entry.spawns.count) times", entry.spawns
                )
            }
            if entry.spawns.isEmpty && whole {
                add(.taskSpawnedAndEndedOnce, key.runtime, "task #\(key.id) ended without a spawn", all)
            }
            if entry.cancels.count > 1 || entry.settles.count > 1 {
                add(.taskSpawnedAndEndedOnce, key.runtime, "task #\(key.id) ended more than once", all)
            }
            if let cancel = entry.cancels.first, let late = entry.settles.first(where: { $0.taskOutcome != .cancelled }) {
                add(
                    .taskSpawnedAndEndedOnce, key.runtime,
                    "task #\(key.id) was cancelled (\(cancel.codeName)) but its outcome \(late.codeName) was not discarded",
                    [cancel, late])
            }
            if whole && entry.cancels.isEmpty && entry.settles.isEmpty, let spawn = entry.spawns.first {
                add(.taskSpawnedAndEndedOnce, key.runtime, "task #\(key.id) '\(spawn.label)' never ended", [spawn])
            }
        }
        return violations
    }
}

extension Trace {
    /// Throws ``InvariantError`` listing every broken invariant.
    public func checkInvariants(complete: Bool = true) throws {
        let violations = TraceInvariants.check(self, complete: complete)
        if !violations.isEmpty { throw InvariantError(violations: violations) }
    }
}
