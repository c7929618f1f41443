import CLTTng
import Transduce

/// Turns labels into one-word references for ring-buffer slots, and back.
///
/// A static label (a literal or reflection metadata) is referenced by its address and length
/// packed into one word, with no lookup and no allocation. A label made from a `String` (task
/// names, error names) is interned once under a lock and referenced by its index; the table keeps
/// at most `dynamicLimit` distinct strings and maps the rest to `"(label table full)"`.
package final class LabelTable: @unchecked Sendable {  // `dynamic` is guarded by its Lock
    static let dynamicTag: UInt64 = 1 << 63
    static let addressBits: UInt64 = 47
    package let dynamicLimit: Int

    private struct Dynamic {
        var ids: [String: UInt64] = [:]
        var strings: [String] = []
    }
    private let dynamic = Lock(Dynamic())
    /// A copy of the dynamic strings that the async-signal-safe dump can read (`nil` when its
    /// memory could not be had: such labels then dump as empty on a signal).
    let mirror: OpaquePointer?

    package init(dynamicLimit: Int = 65_536) {
        self.dynamicLimit = dynamicLimit
        mirror = clttng_label_mirror_create(UInt64(dynamicLimit))
    }

    /// The reference of `label`; `0` for the empty label. Allocation-free for static labels.
    @inline(__always)
    package func reference(_ label: EventLabel) -> UInt64 {
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
    package func intern(_ string: String) -> UInt64 {
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
    package func resolve(_ reference: UInt64) -> String {
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
