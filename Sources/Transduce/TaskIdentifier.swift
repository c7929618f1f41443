/// The identity of a managed task.
///
/// Wraps any `Hashable & Sendable` value; values of different types never compare equal, so
/// `"1"` and `1` are different identifiers.
public struct TaskIdentifier: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByStringInterpolation
{
    // `AnyHashable` is not Sendable in Swift 6, hence the hand-written equality and hash.
    /// The wrapped value.
    public let base: any Hashable & Sendable

    /// Wraps `value` (an identifier given an identifier is that identifier).
    public init(_ value: some Hashable & Sendable) {
        if let id = value as? TaskIdentifier { self = id } else { base = value }
    }
    public init(stringLiteral value: String) { base = value }
    public init(integerLiteral value: Int) { base = value }
    public init(stringInterpolation: DefaultStringInterpolation) { base = String(stringInterpolation: stringInterpolation) }

    public static func == (lhs: TaskIdentifier, rhs: TaskIdentifier) -> Bool {
        func equal<A: Hashable>(_ a: A, _ b: any Hashable) -> Bool { (b as? A) == a }
        return equal(lhs.base, rhs.base)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type(of: base)))
        hasher.combine(base)
    }

    public var description: String {
        if let s = base as? String { return s }
        return String(describing: base)
    }
}

extension TaskIdentifier {
    /// The label traces name the task by: its ``description``, interned in
    /// ``LabelInterner/shared`` (made only while an instrument records).
    public var label: EventLabel { EventLabel(description) }
}
