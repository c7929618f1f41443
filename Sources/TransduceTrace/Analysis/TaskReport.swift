/// Every task instance: name, policy, spawning event, run time, outcome, replaced-by and
/// joined-by; warnings for tasks that never ended and for `switchToLatest` churn (instances
/// replaced over and over while none completes).
public struct TaskReport: Sendable {
    /// One task instance.
    public struct Row: Sendable {
        /// Its runtime (its ``RuntimeKey``).
        public var runtime: RuntimeKey
        /// Its id.
        public var task: UInt64
        /// Its name ("" for an anonymous task).
        public var name: String
        /// Its policy (`switchToLatest`, `shareable`, `unique`).
        public var policy: String
        /// The cycle that spawned it, by its event label and id.
        public var spawnedBy: String
        /// When it was spawned.
        public var start: UInt64
        /// How long it ran, once it ended.
        public var ran: UInt64?
        /// How it ended (`settle`, `request(loaded)`, `cancelled (replaced)`, …) or `running`.
        public var outcome: String
        /// The task that replaced it (0 for none).
        public var replacedBy: UInt64
        /// The dispatches whose waiters joined it.
        public var joinedBy: [UInt64]
        /// The dispatch that the cycle that spawned it ran (0 when that cycle is not in the
        /// trace): its lifecycle (``TraceIndex/requestLifecycle(runtime:dispatch:)``) holds the
        /// task's events to its end.
        public var spawnDispatch: UInt64 = 0
    }

    /// One row per task instance, in spawn order.
    public private(set) var rows: [Row] = []
    /// Tasks that never ended and `switchToLatest` churn.
    public private(set) var warnings: [AnalysisWarning] = []

    /// - Parameters:
    ///   - index: the trace, indexed.
    ///   - lost: events the recorder or tracer lost. A task without an end may have had one among
    ///     them, so its warning then says so instead of asserting it never settled.
    ///   - lossesUnknown: the input lost events in a number it did not say (likewise).
    public init(index: TraceIndex, lost: UInt64 = 0, lossesUnknown: Bool = false) {
        var builder = TaskRows(maxWaiting: .max)
        for e in index.events { builder.consume(e) }
        (rows, warnings) = builder.finish(lost: lost, lossesUnknown: lossesUnknown)
    }

    /// The rows and warnings as they are (`TaskRows` hands them out from a stream).
    public init(rows: [Row], warnings: [AnalysisWarning]) {
        self.rows = rows
        self.warnings = warnings
    }

    /// A runtime's tasks of one name, which churn is counted over.
    struct Named: Hashable, Comparable {
        var runtime: RuntimeKey
        var name: String
        static func < (a: Named, b: Named) -> Bool { (a.runtime, a.name) < (b.runtime, b.name) }
    }
}
