/// A lint-like warning an analysis raises, in tokio-console's shape: the check that found it,
/// and a message about this trace (``Check/summary`` says what the check looks for).
public struct AnalysisWarning: Sendable, Equatable, CustomStringConvertible {
    /// The checks the analyses run.
    public enum Check: String, Sendable, CaseIterable {
        /// ``ContentionReport``: cycles held the gate for the long-hold threshold or more.
        case longHold
        /// ``ContentionReport``: a queue reached half its capacity.
        case runawayQueue
        /// ``ContentionReport``: queue depth rises through the trace.
        case growingQueue
        /// ``TaskReport``: a task has no end in a trace that lost nothing.
        case neverSettled
        /// ``TaskReport``: a task has no end, in a trace that lost events that may hold it.
        case noEndRecorded
        /// ``TaskReport``: `switchToLatest` instances replaced again and again, none completed.
        case switchToLatestChurn

        /// What the check looks for, in one line.
        public var summary: String {
            switch self {
            case .longHold: "a cycle held the gate for the long-hold threshold or more"
            case .runawayQueue: "a runtime's queue reached half its capacity"
            case .growingQueue: "queue depth rises from the first third of the trace to the last"
            case .neverSettled: "a task instance never settled, was cancelled or re-entered"
            case .noEndRecorded: "a task instance has no recorded end, and the trace lost events"
            case .switchToLatestChurn: "five or more instances of a named task were replaced and none completed"
            }
        }
    }

    /// The check that raised it.
    public var check: Check
    /// What was found, with the ids and durations that show it.
    public var message: String

    /// A warning of `check` saying `message`.
    public init(_ check: Check, _ message: String) {
        self.check = check
        self.message = message
    }

    /// The message, as the reports print it after `warning: `.
    public var description: String { message }
}
