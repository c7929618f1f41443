/// The process's table of interned label strings: what an ``EventLabel`` that is not static text
/// refers to.
///
/// Each distinct string is stored once and never removed, so a label's index stays valid for the
/// life of the process. The table holds at most ``limit`` strings (65,536 for ``shared``): a label
/// made after that refers to `"(label table full)"`, so labels made from unbounded data (an id in
/// an error's text) cannot grow the process without bound. A type's name is interned once per type
/// (looked up by the type, not by its name, so a non-enum event or error makes no string).
///
/// Thread-safety: every method may be called from any thread.
public final class LabelInterner: Sendable {
    /// The table every ``EventLabel`` of the process refers to.
    public static let shared = LabelInterner(limit: 65_536)

    /// The text of the label made once the table is full.
    public static let fullText = "(label table full)"

    /// How many strings the table holds at most.
    public let limit: Int

    private struct Table {
        var strings: [String] = []
        var indices: [String: Int] = [:]
        var types: [ObjectIdentifier: EventLabel] = [:]
    }
    private let table = Lock(Table())

    /// A table of at most `limit` strings (tests make small ones; labels refer to ``shared``).
    public init(limit: Int) {
        precondition(limit > 0 && UInt64(limit) < EventLabel.internedTag, "limit must be positive")
        self.limit = limit
    }

    /// The label of `string`: the empty label for `""`, else its index, added if new.
    public func label(for string: String) -> EventLabel {
        if string.isEmpty { return .empty }
        let index = table.withLock { t -> Int in
            if let index = t.indices[string] { return index }
            guard t.strings.count < limit else { return limit }
            t.indices[string] = t.strings.count
            t.strings.append(string)
            return t.strings.count - 1
        }
        return EventLabel(bits: EventLabel.internedTag | UInt64(index))
    }

    /// The label of `type`'s unqualified name, interned the first time the type is seen.
    public func label(forType type: Any.Type) -> EventLabel {
        let key = ObjectIdentifier(type)
        if let known = table.withLock({ $0.types[key] }) { return known }
        let label = label(for: _typeName(type, qualified: false))
        // A full table answers with the full label: not kept, so the type is not pinned to it.
        if label.internedIndex != limit { table.withLock { $0.types[key] = label } }
        return label
    }

    /// The string at `index` (``fullText`` at ``limit`` and beyond the strings held).
    public func string(at index: Int) -> String {
        table.withLock { index >= 0 && index < $0.strings.count ? $0.strings[index] : Self.fullText }
    }

    /// How many strings the table holds.
    public var count: Int { table.withLock { $0.strings.count } }

    /// The strings from index `start` on, in index order (for a recorder that mirrors the table).
    public func strings(from start: Int) -> [String] {
        table.withLock { start < $0.strings.count ? Array($0.strings[max(start, 0)...]) : [] }
    }
}
