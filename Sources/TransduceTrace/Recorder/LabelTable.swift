import CLTTng
import Transduce

/// Turns labels into one-word references for ring-buffer slots, and back.
///
/// A static label (a literal or reflection metadata) is referenced by its address and length
/// packed into one word, with no lookup and no allocation. A label made from a `String` (task
/// names, error names) is interned once under a lock and referenced by its index; the table keeps
/// at most `dynamicLimit` distinct strings and maps the rest to `"(label table full)"`.
public final class LabelTable: @unchecked Sendable {  // `dynamic` is guarded by its Lock
    static let dynamicTag: UInt64 = 1 << 63
    static let addressBits: UInt64 = 47
    public let dynamicLimit: Int

    private struct Dynamic {
        var ids: [String: UInt64] = [:]
        var strings: [String] = []
    }
    private let dynamic = Lock(Dynamic())
    /// A copy of the dynamic strings that the async-signal-safe dump can read (`nil` when its
    /// memory could not be had: such labels then dump as empty on a signal).
    let mirror: OpaquePointer?

    public init(dynamicLimit: Int = 65_536) {
        self.dynamicLimit = dynamicLimit
        mirror = clttng_label_mirror_create(UInt64(dynamicLimit))
    }

    /// The reference of `label`; `0` for the empty label. Allocation-free for static labels.
    @inline(__always)
    public func reference(_ label: EventLabel) -> UInt64 {
        if let bytes = label.staticUTF8 {
            guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
            let address = UInt64(UInt(bitPattern: base))
            if address < 1 << Self.addressBits && bytes.count < 1 << 16 {
                return address | UInt64(bytes.count) << Self.addressBits
            }
        }
        return intern(label.description)
    }

    /// The reference of a dynamic string.
    public func intern(_ string: String) -> UInt64 {
        if string.isEmpty { return 0 }
        return dynamic.withLock { table in
            if let id = table.ids[string] { return id }
            guard table.strings.count < dynamicLimit else { return Self.dynamicTag | UInt64(dynamicLimit) }
            let id = Self.dynamicTag | UInt64(table.strings.count)
            var copy = string
            copy.withUTF8 { clttng_label_mirror_publish(mirror, UInt64(table.strings.count), $0.baseAddress, $0.count) }
            table.strings.append(string)
            table.ids[string] = id
            return id
        }
    }

    /// The string behind `reference`.
    public func resolve(_ reference: UInt64) -> String {
        if reference == 0 { return "" }
        if reference & Self.dynamicTag != 0 {
            let index = Int(reference & ~Self.dynamicTag)
            return dynamic.withLock { index < $0.strings.count ? $0.strings[index] : "(label table full)" }
        }
        let address = UInt(reference & ((1 << Self.addressBits) - 1))
        let count = Int(reference >> Self.addressBits)
        guard let base = UnsafePointer<UInt8>(bitPattern: address) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }
}

/// Opt-in capture of dispatched event values, redacted before they are kept.
///
/// Traces leave the process and payloads may hold user data, so nothing is captured unless a
/// recorder is given one of these. `redact` returns the text to keep, or `nil` to keep nothing.
/// Captured texts live in a bounded store of `capacity` entries; an event whose text was pushed
/// out by newer ones shows `(payload overwritten)`.
public struct PayloadCapture: Sendable {
    public var capacity: Int
    public var redact: @Sendable (any Sendable) -> String?

    public init(capacity: Int = 4_096, redact: @escaping @Sendable (any Sendable) -> String?) {
        self.capacity = capacity
        self.redact = redact
    }

    /// Keeps `String(describing:)` of every payload: only for traces that stay private.
    public static var unredacted: PayloadCapture { PayloadCapture { String(describing: $0) } }
}

/// The bounded store behind ``PayloadCapture``.
final class PayloadStore: @unchecked Sendable {  // `entries` is guarded by its Lock
    private let capacity: Int
    private let entries: Lock<(next: UInt64, items: [(UInt64, String)])>

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        entries = Lock((1, Array(repeating: (0, ""), count: max(1, capacity))))
    }

    func store(_ text: String) -> UInt64 {
        entries.withLock { state in
            let generation = state.next
            state.next += 1
            state.items[Int(generation % UInt64(capacity))] = (generation, text)
            return generation
        }
    }

    func resolve(_ generation: UInt64) -> String {
        guard generation != 0 else { return "" }
        return entries.withLock { state in
            let entry = state.items[Int(generation % UInt64(capacity))]
            return entry.0 == generation ? entry.1 : "(payload overwritten)"
        }
    }
}
