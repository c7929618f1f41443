/// The named fields of each kind: one table shared by JSON Lines, the LTTng reader, exports and
/// renderers, so a field has the same name everywhere (the LTTng field names of
/// <doc:TheTraceContract>).
public enum TraceSchema {
    /// Where a named field lives in a ``TraceEvent``.
    public enum Slot: Sendable {
        /// ``TraceEvent/dispatch``.
        case dispatch
        /// ``TraceEvent/cycle``.
        case cycle
        /// ``TraceEvent/task``.
        case task
        /// ``TraceEvent/otherTask``.
        case otherTask
        /// ``TraceEvent/step``.
        case step
        /// ``TraceEvent/code``, written by name.
        case code
        /// ``TraceEvent/code2``, written by name.
        case code2
        /// ``TraceEvent/count``.
        case count
        /// ``TraceEvent/nanos``.
        case nanos
        /// ``TraceEvent/label``.
        case label
        /// ``TraceEvent/label2``.
        case label2

        /// Whether the field is written as a string (labels and code names).
        public var isText: Bool {
            switch self {
            case .label, .label2, .code, .code2: true
            default: false
            }
        }
    }

    /// One named field of a kind and where it lives.
    public struct Field: Sendable, Equatable {
        /// The field's name in every format (JSON Lines, LTTng, exports): snake case.
        public let name: String
        /// Where its value is stored in a ``TraceEvent``.
        public let slot: Slot

        init(_ name: String, _ slot: Slot) {
            self.name = name
            self.slot = slot
        }
    }
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
            let table = TraceNames.secondCodes(of: kind)
            guard let v = table.firstIndex(of: value).map(UInt8.init) ?? TraceNames.unknownCode(value) else {
                return false
            }
            code2 = v
        default: return false
        }
        return true
    }
}
