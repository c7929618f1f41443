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

    /// What a warning found, as data: the ids, counts and durations its message shows (the
    /// views render it: ``message``).
    public enum Finding: Sendable, Equatable {
        /// `count` cycles held the gate for `threshold` nanoseconds or more; the longest held it
        /// `held` nanoseconds.
        case longHold(count: Int, threshold: UInt64, longest: Cycle, held: UInt64)
        /// Runtime `runtime` (a ``RuntimeKey``) reached `deepest` queued admissions of
        /// `capacity`.
        case runawayQueue(runtime: RuntimeKey, deepest: Int, capacity: Int)
        /// The deepest queue of the trace's first third was `early`, of its last third `late`.
        case growingQueue(early: UInt32, late: UInt32)
        /// `task` never ended in a trace that lost nothing.
        case neverSettled(Task)
        /// `task` has no recorded end, in a trace that lost `lost` events (`nil`: a number the
        /// input did not say).
        case noEndRecorded(Task, lost: UInt64?)
        /// Of `spawned` instances of task `name` in runtime `runtime`, `replaced` were replaced
        /// and none completed.
        case switchToLatestChurn(runtime: RuntimeKey, name: String, replaced: Int, spawned: Int)
    }

    /// A cycle a warning names.
    public struct Cycle: Sendable, Equatable {
        /// Its runtime (a ``RuntimeKey``).
        public var runtime: RuntimeKey
        /// Its id.
        public var cycle: UInt64
        /// The label of the event that started it.
        public var label: String

        /// Cycle `cycle` of runtime `runtime`, started by an event labelled `label`.
        public init(runtime: RuntimeKey, cycle: UInt64, label: String) {
            self.runtime = runtime
            self.cycle = cycle
            self.label = label
        }
    }

    /// A task instance a warning names.
    public struct Task: Sendable, Equatable {
        /// Its runtime (a ``RuntimeKey``).
        public var runtime: RuntimeKey
        /// Its id.
        public var task: UInt64
        /// Its name ("" for an anonymous task).
        public var name: String
        /// The cycle that spawned it, by its event label and id.
        public var spawnedBy: String
        /// How long it had run at the end of the trace, in nanoseconds.
        public var running: UInt64

        /// Task `task` of runtime `runtime`.
        public init(runtime: RuntimeKey, task: UInt64, name: String, spawnedBy: String, running: UInt64) {
            self.runtime = runtime
            self.task = task
            self.name = name
            self.spawnedBy = spawnedBy
            self.running = running
        }
    }

    /// What was found.
    public var finding: Finding

    /// The check that raised it.
    public var check: Check {
        switch finding {
        case .longHold: .longHold
        case .runawayQueue: .runawayQueue
        case .growingQueue: .growingQueue
        case .neverSettled: .neverSettled
        case .noEndRecorded: .noEndRecorded
        case .switchToLatestChurn: .switchToLatestChurn
        }
    }

    /// A warning of what `finding` says.
    public init(_ finding: Finding) { self.finding = finding }

    /// What was found, in words, with the ids and durations that show it (as the reports print
    /// it after `warning: `).
    public var message: String { WarningRender.message(finding) }

    /// ``message``.
    public var description: String { message }
}
