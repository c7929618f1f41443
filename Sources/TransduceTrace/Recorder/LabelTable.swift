import CTraceRing
import Synchronization
import Transduce

/// A recorder's view of labels: an ``EventLabel``'s one-word reference goes into a slot as it is
/// (static text by address and length, interned text by its index in
/// ``LabelInterner/shared``), and is turned back into text when a trace is read.
///
/// It also keeps a copy of the interned strings that the async-signal-safe dump can read
/// (``mirror``), brought up to date when a slot first refers to a string it lacks.
package final class LabelTable: @unchecked Sendable {  // `mirror` is published to only under `publishing`
    /// The interned strings the mirror holds (indices below this are published).
    private let mirrored = Atomic<Int>(0)
    private let publishing = Lock(0)
    /// A copy of the interned strings that the async-signal-safe dump can read (`nil` when its
    /// memory could not be had: such labels then dump as empty on a signal).
    let mirror: OpaquePointer?

    package init() {
        mirror = clttng_label_mirror_create(UInt64(LabelInterner.shared.limit))
    }

    /// The slot word of `label`; mirrors its string first when it is interned and new to the mirror.
    @inline(__always)
    package func reference(_ label: EventLabel) -> UInt64 {
        if let index = label.internedIndex, index >= mirrored.load(ordering: .acquiring) {
            publish(through: index)
        }
        return label.bits
    }

    private func publish(through index: Int) {
        guard let mirror, index < LabelInterner.shared.limit else { return }
        publishing.withLock { published in
            guard index >= published else { return }
            for var string in LabelInterner.shared.strings(from: published) {
                string.withUTF8 { clttng_label_mirror_publish(mirror, UInt64(published), $0.baseAddress, $0.count) }
                published += 1
            }
            mirrored.store(published, ordering: .releasing)
        }
    }

    /// The string behind `reference`.
    package func resolve(_ reference: UInt64) -> String { EventLabel(bits: reference).description }
}
