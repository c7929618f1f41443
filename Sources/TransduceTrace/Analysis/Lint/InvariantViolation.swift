/// One broken invariant, with the events that show it.
public struct InvariantViolation: Sendable, CustomStringConvertible {
    /// The broken invariant.
    public var rule: InvariantRule
    /// The runtime (its ``RuntimeKey``).
    public var runtime: RuntimeKey
    /// What is broken, with the ids that show it.
    public var message: String
    /// The events that show it.
    public var events: [TraceEvent]
    /// The trace's start, which the event times are printed from.
    public var origin: UInt64 = 0

    /// The rule, runtime and message, then one line per event with its time from ``origin``.
    public var description: String {
        "\(rule.rawValue) (runtime \(runtime.name)): \(message)"
            + events.map { e in
                let ms =
                    e.time >= origin
                    ? format(Double(e.time - origin) / 1_000_000, decimals: 3)
                    : "-" + format(Double(origin - e.time) / 1_000_000, decimals: 3)
                // A dispatch event names its id once ("dispatch #8", not "dispatch dispatch #8").
                let ids = Self.ids(e)
                let line = e.kind == .dispatch && ids.hasPrefix("dispatch ") ? ids : "\(e.kind) \(ids)"
                return "\n    at \(ms)ms \(line)"
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

/// The error ``Trace/checkInvariants(complete:)`` throws: every violation found.
public struct InvariantError: Error, CustomStringConvertible, Sendable {
    /// Every violation found, grouped by rule.
    public var violations: [InvariantViolation]
    public var description: String {
        "\(counted(violations.count, "runtime invariant violation")), times from the trace's start:\n"
            + violations.map { "  " + $0.description }.joined(separator: "\n")
    }
}
