import Transduce

/// Which events of a trace a shape assertion looks at.
public enum ShapeScope: Sendable {
    /// Every event (of one runtime, when given).
    case all(runtime: RuntimeID? = nil)
    /// The lifecycle of one request: the `occurrence`-th dispatch (1-based) of `event` in the
    /// trace, with everything it caused whatever its style (``TraceIndex/requestLifecycle(runtime:dispatch:)``):
    /// its cycles and what they cancelled, the tasks they started or joined to their end, the
    /// tasks' re-entries and requests, and its resume.
    case request(String, occurrence: Int = 1, runtime: RuntimeID? = nil)
    /// The lifecycle of one request, by dispatch id.
    case dispatch(UInt64, runtime: RuntimeID? = nil)
    /// The events of the `occurrence`-th instance of the task named `name`.
    case task(String, occurrence: Int = 1, runtime: RuntimeID? = nil)
}

/// A failed shape assertion: what was expected, what happened, where they first differ, and the
/// sequence diagram of what happened.
public struct TraceShapeError: Error, CustomStringConvertible, Sendable {
    /// The file of the assertion that failed (`#fileID`).
    public var fileID: String
    /// Its line.
    public var line: Int
    /// Expected, actual, the first difference and the diagram.
    public var message: String
    public var description: String { "\(fileID):\(line): \(message)" }
}

extension Trace {
    /// Asserts that the events in `scope` have `expected`'s shape; throws ``TraceShapeError``
    /// otherwise.
    ///
    /// - Parameters:
    ///   - expected: the events expected, in order.
    ///   - scope: which events of the trace are compared (a request's lifecycle, a task, …).
    ///   - exhaustive: `true` (the default) requires exactly these events in this order; `false`
    ///     allows other events between and around them (the expected ones must still appear in
    ///     order).
    ///   - ignoring: kinds left out of the actual events before matching (for example
    ///     `[.effect]`).
    ///   - width: width of the sequence diagram in the failure message.
    ///   - fileID: where the assertion is (for the error; leave the default).
    ///   - line: likewise.
    public func expectShape(
        _ expected: [EventPattern], in scope: ShapeScope = .all(), exhaustive: Bool = true,
        ignoring: Set<TraceEvent.Kind> = [], width: Int = 100, fileID: String = #fileID, line: Int = #line
    ) throws {
        try expectShape(
            expected, in: scope, exhaustive: exhaustive, width: width, fileID: fileID, line: line,
            ignored: { e, _ in ignoring.contains(e.kind) })
    }

    /// Asserts that the events in `scope` have `expected`'s shape, leaving out first every event
    /// that matches one of `ignoring`, written as the expected ones are (`[.cancel(), .effect(.none)]`,
    /// `[.join("catalogue")]`); throws ``TraceShapeError`` otherwise. The other parameters are
    /// ``expectShape(_:in:exhaustive:ignoring:width:fileID:line:)``'s.
    public func expectShape(
        _ expected: [EventPattern], in scope: ShapeScope = .all(), exhaustive: Bool = true,
        ignoring: [EventPattern], width: Int = 100, fileID: String = #fileID, line: Int = #line
    ) throws {
        try expectShape(
            expected, in: scope, exhaustive: exhaustive, width: width, fileID: fileID, line: line,
            ignored: { e, index in ignoring.contains { $0.matches(e, in: index) } })
    }

    private func expectShape(
        _ expected: [EventPattern], in scope: ShapeScope, exhaustive: Bool, width: Int, fileID: String, line: Int,
        ignored: (TraceEvent, TraceIndex) -> Bool
    ) throws {
        let index = TraceIndex(events)
        let selected = try Self.select(scope, in: index, fileID: fileID, line: line).filter {
            !ignored(index.events[$0], index)
        }
        let actual = selected.map { ShapeText.describe(index.events[$0], in: index) }
        let expectedText = expected.map(\.description)
        var failure: (expected: Int?, actual: Int?, reason: String)?
        if exhaustive {
            for i in 0..<max(expected.count, selected.count) {
                if i >= expected.count {
                    failure = (nil, i, "an extra event happened after the last expected one")
                    break
                }
                if i >= selected.count {
                    failure = (i, nil, "the trace ended before this expected event")
                    break
                }
                if !expected[i].matches(index.events[selected[i]], in: index) {
                    failure = (i, i, "the events differ")
                    break
                }
            }
        } else {
            var position = 0
            for (i, pattern) in expected.enumerated() {
                guard let found = selected[position...].firstIndex(where: { pattern.matches(index.events[$0], in: index) }) else {
                    failure = (i, position < selected.count ? position : nil, "no later event matches")
                    break
                }
                position = found - selected.startIndex + 1
            }
        }
        guard let failure else { return }
        var lines = ["trace shape mismatch (\(exhaustive ? "exhaustive" : "in order, extra events allowed")): \(failure.reason)"]
        if let e = failure.expected { lines.append("  expected #\(e + 1): \(expectedText[e])") }
        if let a = failure.actual {
            lines.append(
                (exhaustive ? "  actual   #" : "  searched from actual #") + "\(a + 1): \(actual[a])")
        }
        lines.append("")
        // Each side has its own marker: in order (non-exhaustive) matching, the expected event
        // that found no match and the actual event the search stopped at are different rows.
        let left = max(24, (expectedText.map(\.count).max() ?? 0) + 8)
        lines.append("  " + pad("expected", left) + "  actual")
        for i in 0..<max(expectedText.count, actual.count) {
            let e = i < expectedText.count ? pad("\(i + 1)", 4, right: true) + " " + expectedText[i] : ""
            let a = i < actual.count ? pad("\(i + 1)", 4, right: true) + " " + actual[i] : ""
            lines.append(
                (i == failure.expected ? "> " : "  ") + pad(e, left) + (i == failure.actual ? "> " : "  ") + a)
        }
        lines.append("")
        lines.append("What happened:")
        lines += SequenceDiagram(index: index, options: RenderOptions(width: width, ascii: false, color: false)).render(selected)
        lines.append("")
        lines.append(
            exhaustive
                ? "Fix: update the expected shape, or pass `exhaustive: false` to allow extra events in between."
                : "Fix: update the expected shape; expected events must appear in this order.")
        throw TraceShapeError(fileID: fileID, line: line, message: lines.joined(separator: "\n"))
    }

    static func select(_ scope: ShapeScope, in index: TraceIndex, fileID: String, line: Int) throws -> [Int] {
        func fail(_ message: String) -> TraceShapeError { TraceShapeError(fileID: fileID, line: line, message: message) }
        switch scope {
        case .all(let runtime):
            return index.events.indices.filter { runtime == nil || index.events[$0].runtime == runtime!.rawValue }
        case .request(let label, let occurrence, let runtime):
            let matches = index.events.indices.filter {
                let e = index.events[$0]
                return e.kind == .dispatch && e.label == label && e.otherTask == 0
                    && (runtime == nil || e.runtime == runtime!.rawValue)
            }
            guard occurrence >= 1, occurrence <= matches.count else {
                throw fail("no dispatch number \(occurrence) of '\(label)' in the trace (found \(matches.count))")
            }
            let e = index.events[matches[occurrence - 1]]
            return index.requestLifecycle(runtime: e.runtimeKey, dispatch: e.dispatch)
        case .dispatch(let id, let runtime):
            // Runtimes are keyed across processes (RuntimeKey); a RuntimeID is the id within one.
            let candidates = index.runtimes.filter { runtime == nil || $0.runtime == runtime!.rawValue }
            guard let r = candidates.first(where: { index.dispatches[TraceIndex.Key(runtime: $0, id: id)] != nil })
            else { throw fail("no dispatch #\(id) in the trace") }
            return index.requestLifecycle(runtime: r, dispatch: id)
        case .task(let name, let occurrence, let runtime):
            let spawns = index.events.indices.filter {
                let e = index.events[$0]
                return e.kind == .taskSpawn && e.label == name && (runtime == nil || e.runtime == runtime!.rawValue)
            }
            guard occurrence >= 1, occurrence <= spawns.count else {
                throw fail("no instance number \(occurrence) of task '\(name)' in the trace (found \(spawns.count))")
            }
            let e = index.events[spawns[occurrence - 1]]
            return index.taskLifecycle(runtime: e.runtimeKey, task: e.task)
        }
    }
}
