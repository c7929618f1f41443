import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The distinct texts of one CTF read, each numbered once by its bytes: 1, 2, 3, … in the order
/// they are first seen, 0 for the empty text (and for the provider's mark of one, ``CTFTraceReader/emptyText``).
///
/// libbabeltrace2 hands every text field over as bytes, event after event. Making a `String` of
/// each and hashing it into a table with SipHash was a third of the reading child's own work, and
/// most texts repeat (a runtime's transducer, an event's name). Here a text is hashed by its
/// 8-byte words with a multiply that folds the 128-bit product (seeded at random once a process,
/// so that texts a hand-made trace chooses do not collide by design), found in a table with
/// open addressing, and compared by its bytes. A `String` is made once for each distinct text,
/// and only when one is asked for.
///
/// Memory: every distinct text's bytes once, plus about 20 bytes a text. Not thread-safe: one
/// thread uses a table, so its state goes unchecked for exclusive access.
package final class CTFTextTable {
    /// Every text's bytes, one after another: ``byteCount`` of ``byteCapacity``.
    @exclusivity(unchecked) private var bytes: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var byteCount = 0
    @exclusivity(unchecked) private var byteCapacity = 1 << 12
    /// Each number's text: where its bytes start in ``bytes``, and their count (number 0, the
    /// empty text, is at 0 with 0 bytes).
    @exclusivity(unchecked) private var starts: [Int] = [0]
    @exclusivity(unchecked) private var lengths: [Int32] = [0]
    /// Each number's text as a `String`, made when first asked for.
    @exclusivity(unchecked) private var strings: [String?] = [""]
    /// Each position's number, or 0 where the position is free (0 itself is never looked up).
    @exclusivity(unchecked) private var positions: [UInt32]
    /// Each position's hash, compared before the bytes are.
    @exclusivity(unchecked) private var hashes: [UInt64]
    @exclusivity(unchecked) private var shift: UInt64

    private static let seeds = (
        UInt64.random(in: 0...UInt64.max), UInt64.random(in: 0...UInt64.max) | 1, UInt64.random(in: 0...UInt64.max) | 1
    )
    private static let initialBits: UInt64 = 8
    private static let emptyMark = Array(CTFTraceReader.emptyText.utf8)

    @inline(__always)
    private static func same(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    package init() {
        positions = Array(repeating: 0, count: 1 << Self.initialBits)
        hashes = Array(repeating: 0, count: 1 << Self.initialBits)
        shift = 64 - Self.initialBits
        bytes = .allocate(byteCount: byteCapacity, alignment: 8)
    }

    deinit { bytes.deallocate() }

    /// How many numbers are given out, the empty text's included: the next text new to the
    /// table is numbered `count`.
    package var count: Int { starts.count }

    /// The number of `text`; a text not seen before is added to the table and numbered next.
    /// Amortized O(its length).
    package func number(_ text: UnsafeRawBufferPointer) -> UInt32 {
        guard !text.isEmpty, text.count != Self.emptyMark.count || !Self.emptyMark.withUnsafeBytes({ Self.same(text, $0) })
        else { return 0 }
        let hash = Self.hash(text)
        let mask = positions.count - 1
        var position = Int(truncatingIfNeeded: (hash &* Self.seeds.1) >> shift)
        while true {
            let number = positions[position]
            if number == 0 { break }
            if hashes[position] == hash && Self.same(text, self.text(number)) { return number }
            position = (position + 1) & mask
        }
        let number = UInt32(starts.count)
        if byteCount + text.count > byteCapacity {
            byteCapacity = max(byteCapacity * 2, byteCount + text.count)
            let larger = UnsafeMutableRawPointer.allocate(byteCount: byteCapacity, alignment: 8)
            larger.copyMemory(from: bytes, byteCount: byteCount)
            bytes.deallocate()
            bytes = larger
        }
        (bytes + byteCount).copyMemory(from: text.baseAddress!, byteCount: text.count)
        starts.append(byteCount)
        lengths.append(Int32(text.count))
        strings.append(nil)
        byteCount += text.count
        positions[position] = number
        hashes[position] = hash
        // At most half full: the tables are small (a trace has few distinct texts next to its
        // events), and a search ends sooner.
        if count * 2 > positions.count { grow() }
        return number
    }

    /// The bytes of text `number`, valid until the next call that adds a text.
    package func text(_ number: UInt32) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: bytes + starts[Int(number)], count: Int(lengths[Int(number)]))
    }

    /// Text `number` as a `String` (made once).
    package func string(_ number: UInt32) -> String {
        if let made = strings[Int(number)] { return made }
        let made = String(decoding: text(number), as: UTF8.self)
        strings[Int(number)] = made
        return made
    }

    /// `event` with its `label` and `label2` set to texts `label` and `label2`.
    package func event(_ event: TraceEvent, label: UInt32, label2: UInt32) -> TraceEvent {
        var event = event
        event.label = string(label)
        event.label2 = string(label2)
        return event
    }

    private func grow() {
        let size = positions.count * 2
        positions = Array(repeating: 0, count: size)
        hashes = Array(repeating: 0, count: size)
        shift -= 1
        for number in 1..<UInt32(count) {
            let hash = Self.hash(text(number))
            var position = Int(truncatingIfNeeded: (hash &* Self.seeds.1) >> shift)
            while positions[position] != 0 { position = (position + 1) & (size - 1) }
            positions[position] = number
            hashes[position] = hash
        }
    }

    /// A seeded hash of `text`: each 8-byte word (the last one padded with zeros) mixed into the
    /// state by folding a 128-bit product, and the length mixed in last.
    @inline(__always)
    private static func hash(_ text: UnsafeRawBufferPointer) -> UInt64 {
        var state = seeds.0
        var offset = 0
        let count = text.count
        while offset + 8 <= count {
            state = mix(state ^ text.loadUnaligned(fromByteOffset: offset, as: UInt64.self), seeds.2)
            offset += 8
        }
        if offset < count {
            var last: UInt64 = 0
            for i in offset..<count { last |= UInt64(text[i]) << (8 * UInt64(i - offset)) }
            state = mix(state ^ last, seeds.2)
        }
        return mix(state ^ UInt64(count), seeds.1)
    }

    @inline(__always)
    private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }
}
