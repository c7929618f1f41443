/// A payload-free name for an event, error or type, as instruments record it: one word, trivially
/// copyable, so an event that carries it is copied with plain stores.
///
/// The word is a reference (``bits``):
/// - a label made from a string literal or an enum case points at static memory (the literal, or
///   the enum's reflection metadata, which lives as long as the process): its address and length,
///   no allocation, no lookup;
/// - any other label is a string interned once in the process's ``LabelInterner`` and referenced
///   by its index (tag bit 63); a type's name is interned once per type.
///
/// `0` is the empty label. Two labels are equal when their text is.
public struct EventLabel: Sendable, Hashable, BitwiseCopyable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The reference: `address | length << 47` for static text, `1 << 63 | index` for interned
    /// text, `0` for the empty label. Valid for the life of the process that made it.
    public let bits: UInt64

    @usableFromInline static let internedTag: UInt64 = 1 << 63
    @usableFromInline static let addressBits: UInt64 = 47

    /// The label whose reference is `bits` (from ``bits`` of a label of this process).
    @inlinable
    public init(bits: UInt64) { self.bits = bits }

    /// The empty label. (Computed: a stored `static let` is read through a lazy accessor, a
    /// call on every event that defaults a label.)
    @inlinable
    public static var empty: EventLabel { EventLabel(bits: 0) }

    /// A label pointing at `literal`'s static memory (no allocation).
    @inlinable
    public init(_ literal: StaticString) {
        if literal.hasPointerRepresentation {
            self.init(staticText: literal.utf8Start, count: literal.utf8CodeUnitCount)
        } else {
            self.init(literal.description)
        }
    }

    @inlinable
    public init(stringLiteral value: StaticString) { self.init(value) }

    /// A label holding `string`, interned in ``LabelInterner/shared`` (a lock and a lookup; the
    /// first time a string is seen, a copy of it).
    public init(_ string: String) { self = LabelInterner.shared.label(for: string) }

    /// The enum case name of `value` without its payload (`loaded`, not `loaded(["a"])`), or the
    /// type name when `value` is not an enum (interned once per type).
    public init<T>(reflecting value: T) {
        if let name = _enumCaseName(value) {
            let bytes = UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self)
            self.init(staticText: bytes, count: Int(_strlen(name)))
        } else {
            self = LabelInterner.shared.label(forType: type(of: value as Any))
        }
    }

    /// The label of `count` bytes at `start`, which must stay valid and unchanged for the life of
    /// the process (static memory).
    @inlinable
    init(staticText start: UnsafePointer<UInt8>, count: Int) {
        let address = UInt64(UInt(bitPattern: start))
        if count == 0 {
            bits = 0
        } else if address < 1 << Self.addressBits && count < 1 << 16 {
            bits = address | UInt64(count) << Self.addressBits
        } else {
            self = LabelInterner.shared.label(
                for: String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self))
        }
    }

    /// Whether the label is an index into ``LabelInterner/shared`` rather than static memory.
    @inlinable
    public var isInterned: Bool { bits & Self.internedTag != 0 }

    /// The index of an interned label in ``LabelInterner/shared`` (`nil` for a static one).
    @inlinable
    public var internedIndex: Int? { isInterned ? Int(truncatingIfNeeded: bits & ~Self.internedTag) : nil }

    /// The label's bytes when they live in static memory (a literal or reflection metadata), valid
    /// for the life of the process; `nil` for interned labels.
    public var staticUTF8: UnsafeBufferPointer<UInt8>? {
        guard !isInterned else { return nil }
        guard bits != 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
        let start = UnsafePointer<UInt8>(bitPattern: UInt(bits & ((1 << Self.addressBits) - 1)))
        return UnsafeBufferPointer(start: start, count: Int(bits >> Self.addressBits))
    }

    /// Calls `body` with the label's UTF-8 bytes; never allocates for static labels.
    public func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let bytes = staticUTF8 { return try body(bytes) }
        var string = description
        return try string.withUTF8(body)
    }

    public var description: String {
        if let index = internedIndex { return LabelInterner.shared.string(at: index) }
        return String(decoding: staticUTF8!, as: UTF8.self)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.bits == rhs.bits || lhs.withUTF8 { a in rhs.withUTF8 { b in a.elementsEqual(b) } }
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
