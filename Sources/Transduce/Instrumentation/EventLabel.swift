/// A payload-free name for an event, error or type, as instruments record it.
///
/// Made from a string literal or an enum case it costs no allocation: it points at static
/// memory (the literal, or the enum's reflection metadata, which lives as long as the process).
public struct EventLabel: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    @usableFromInline
    enum Storage: @unchecked Sendable {  // `.utf8` points at immutable static memory only
        case utf8(UnsafePointer<UInt8>, count: Int)
        case string(String)
    }

    @usableFromInline
    let storage: Storage

    /// A label pointing at `literal`'s static memory (no allocation).
    @inlinable
    public init(_ literal: StaticString) {
        if literal.hasPointerRepresentation {
            storage = .utf8(literal.utf8Start, count: literal.utf8CodeUnitCount)
        } else {
            storage = .string(literal.description)
        }
    }

    @inlinable
    public init(stringLiteral value: StaticString) { self.init(value) }

    /// A label holding `string` (allocates when `string` is not small).
    public init(_ string: String) { storage = .string(string) }

    /// The enum case name of `value` without its payload (`loaded`, not `loaded(["a"])`), or the
    /// type name when `value` is not an enum.
    public init<T>(reflecting value: T) {
        if let name = _enumCaseName(value) {
            let bytes = UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self)
            storage = .utf8(bytes, count: Int(_strlen(name)))
        } else {
            storage = .string(_typeName(type(of: value as Any), qualified: false))
        }
    }

    /// The label's bytes when they live in static memory (a literal or reflection metadata), valid
    /// for the life of the process; `nil` for labels made from a `String`.
    public var staticUTF8: UnsafeBufferPointer<UInt8>? {
        if case .utf8(let start, let count) = storage { UnsafeBufferPointer(start: start, count: count) } else { nil }
    }

    /// Calls `body` with the label's UTF-8 bytes; never allocates for static labels.
    public func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch storage {
        case .utf8(let start, let count): return try body(UnsafeBufferPointer(start: start, count: count))
        case .string(var string): return try string.withUTF8(body)
        }
    }

    public var description: String {
        switch storage {
        case .utf8(let start, let count): String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
        case .string(let string): string
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.withUTF8 { a in rhs.withUTF8 { b in a.elementsEqual(b) } }
    }

    public func hash(into hasher: inout Hasher) {
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

@_silgen_name("swift_EnumCaseName")
private func _enumCaseName<T>(_ value: T) -> UnsafePointer<CChar>?

private func _strlen(_ p: UnsafePointer<CChar>) -> Int {
    var n = 0
    while p[n] != 0 { n += 1 }
    return n
}
