/// The named fields of each kind: one table shared by JSON Lines, the LTTng reader, exports and
/// renderers, so a field has the same name everywhere (the LTTng field names of TRACING.md).
public enum TraceSchema {
    /// Where a named field lives in a ``TraceEvent``.
    public enum Slot: Sendable {
        case dispatch, cycle, task, otherTask, step, code, code2, count, nanos, label, label2

        /// Whether the field is written as a string (labels and code names).
        public var isText: Bool {
            switch self {
            case .label, .label2, .code, .code2: true
            default: false
            }
        }
    }

    public struct Field: Sendable {
        public let name: String
        public let slot: Slot
    }

    /// The fields of `kind`, in schema order, after the common `time`, `thread` and `runtime`.
    public static func fields(of kind: TraceEvent.Kind) -> [Field] { table[Int(kind.rawValue)] }

    private static let table: [[Field]] = [
        [
            .init(name: "transducer", slot: .label), .init(name: "host", slot: .label2),
            .init(name: "queue_capacity", slot: .count),
        ],
        [.init(name: "reason", slot: .code), .init(name: "error", slot: .label)],
        [
            .init(name: "dispatch", slot: .dispatch), .init(name: "style", slot: .code), .init(name: "event", slot: .label),
            .init(name: "origin_task", slot: .otherTask), .init(name: "queue_depth", slot: .count),
        ],
        [
            .init(name: "dispatch", slot: .dispatch), .init(name: "style", slot: .code), .init(name: "event", slot: .label),
            .init(name: "reason", slot: .code2),
        ],
        [
            .init(name: "cycle", slot: .cycle), .init(name: "dispatch", slot: .dispatch), .init(name: "waited_ns", slot: .nanos),
            .init(name: "queue_depth", slot: .count),
        ],
        [.init(name: "cycle", slot: .cycle), .init(name: "step", slot: .step), .init(name: "event", slot: .label)],
        [
            .init(name: "cycle", slot: .cycle), .init(name: "step", slot: .step), .init(name: "effect_kind", slot: .code),
            .init(name: "task", slot: .label), .init(name: "duration_ns", slot: .nanos),
        ],
        [
            .init(name: "cycle", slot: .cycle), .init(name: "outcome", slot: .code), .init(name: "steps", slot: .step),
            .init(name: "held_ns", slot: .nanos),
        ],
        [
            .init(name: "task", slot: .task), .init(name: "name", slot: .label), .init(name: "policy", slot: .code),
            .init(name: "cycle", slot: .cycle), .init(name: "waiters", slot: .count), .init(name: "replaces", slot: .otherTask),
        ],
        [.init(name: "task", slot: .task), .init(name: "dispatch", slot: .dispatch)],
        [.init(name: "task", slot: .task), .init(name: "reason", slot: .code)],
        [
            .init(name: "task", slot: .task), .init(name: "outcome", slot: .code), .init(name: "label", slot: .label),
            .init(name: "ran_ns", slot: .nanos),
        ],
        [
            .init(name: "dispatch", slot: .dispatch), .init(name: "outcome", slot: .code), .init(name: "error", slot: .label),
            .init(name: "by_cycle", slot: .cycle), .init(name: "by_task", slot: .task), .init(name: "latency_ns", slot: .nanos),
        ],
        [.init(name: "cycle", slot: .cycle), .init(name: "event", slot: .label), .init(name: "reason", slot: .code)],
    ]
}

extension TraceEvent {
    /// Reads a numeric slot.
    public func integer(_ slot: TraceSchema.Slot) -> UInt64 {
        switch slot {
        case .dispatch: dispatch
        case .cycle: cycle
        case .task: task
        case .otherTask: otherTask
        case .step: UInt64(step)
        case .code: UInt64(code)
        case .code2: UInt64(code2)
        case .count: UInt64(count)
        case .nanos: nanos
        case .label, .label2: 0
        }
    }

    /// Reads a slot as text: labels as they are, codes by name, numbers in decimal.
    public func text(_ slot: TraceSchema.Slot) -> String {
        switch slot {
        case .label: label
        case .label2: label2
        case .code: codeName
        case .code2: code2Name
        default: String(integer(slot))
        }
    }

    /// Sets a slot from an integer (numeric slots) ; returns `false` when it does not fit.
    @discardableResult
    public mutating func set(_ slot: TraceSchema.Slot, integer value: UInt64) -> Bool {
        switch slot {
        case .dispatch: dispatch = value
        case .cycle: cycle = value
        case .task: task = value
        case .otherTask: otherTask = value
        case .nanos: nanos = value
        case .step:
            guard let v = UInt32(exactly: value) else { return false }
            step = v
        case .count:
            guard let v = UInt32(exactly: value) else { return false }
            count = v
        case .code:
            guard let v = UInt8(exactly: value) else { return false }
            code = v
        case .code2:
            guard let v = UInt8(exactly: value) else { return false }
            code2 = v
        case .label, .label2: return false
        }
        return true
    }

    /// Sets a slot from text: labels as they are, codes by name; returns `false` for an unknown
    /// code name or a non-text slot.
    @discardableResult
    public mutating func set(_ slot: TraceSchema.Slot, text value: String) -> Bool {
        switch slot {
        case .label: label = value
        case .label2: label2 = value
        case .code:
            guard let v = TraceNames.code(kind: kind, name: value) ?? TraceNames.unknownCode(value) else { return false }
            code = v
        case .code2:
            guard let v = TraceNames.rejections.firstIndex(of: value).map(UInt8.init) ?? TraceNames.unknownCode(value) else {
                return false
            }
            code2 = v
        default: return false
        }
        return true
    }
}
