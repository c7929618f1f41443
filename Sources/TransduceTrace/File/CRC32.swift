import CTraceRing

/// CRC-32 (IEEE 802.3, reflected, as zlib): every chunk of every trace read is checked, so this
/// runs over every byte a view reads. Folded with carry-less multiplication where the processor
/// has it (`clttng_crc32_fold`), table-driven (slicing by 8) elsewhere and for the last bytes.
package enum CRC32 {
    /// Eight tables of 256, one after the other: `tables[k * 256 + b]` is the CRC of byte `b`
    /// followed by `k` zero bytes.
    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[i] = c
        }
        for k in 1..<8 {
            for i in 0..<256 { t[k * 256 + i] = (t[(k - 1) * 256 + i] >> 8) ^ t[Int(t[(k - 1) * 256 + i] & 0xFF)] }
        }
        return t
    }()

    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        tables.withUnsafeBufferPointer { checksum(bytes, tables: $0) }
    }

    /// ``checksum(_:)`` with ``tables`` fetched by the caller: a reader checks a chunk every few
    /// events, and fetching the lazily made tables (a `swift_once` call) each time was 1% of
    /// `summary`.
    @inline(__always)
    package static func checksum(_ bytes: UnsafeRawBufferPointer, tables: UnsafeBufferPointer<UInt32>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        var done = 0
        // Carry-less multiplication folds most of it where the processor has it (C, one
        // implementation with the crash dump's); the tables take the rest.
        if bytes.count >= 64, let base = bytes.baseAddress {
            crc = clttng_crc32_fold(crc, base.assumingMemoryBound(to: UInt8.self), bytes.count, &done)
        }
        return ~sliced(crc, bytes, from: done, tables: tables)
    }

    /// `crc` carried over `bytes` from byte `start` on, eight bytes a step, then four, then one:
    /// a chunk's checksum ends with up to 15 bytes the folding left and a process chunk's is a
    /// few bytes, so these steps run once or twice for every chunk read. (Kept apart so that
    /// `crc` and the position stay in registers: in the closure, the position was stored back
    /// to memory at every step, and the bytes one at a time were 4% of `summary`.)
    @inline(__always)
    private static func sliced(
        _ crc: UInt32, _ bytes: UnsafeRawBufferPointer, from start: Int, tables t: UnsafeBufferPointer<UInt32>
    ) -> UInt32 {
        func at(_ k: Int, _ byte: UInt32) -> UInt32 { t[k &* 256 &+ Int(byte & 0xFF)] }
        var crc = crc
        var i = start
        let n = bytes.count
        while i + 8 <= n {
            let one = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self)) ^ crc
            let two = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self))
            crc =
                at(7, one) ^ at(6, one >> 8) ^ at(5, one >> 16) ^ at(4, one >> 24) ^ at(3, two) ^ at(2, two >> 8)
                ^ at(1, two >> 16) ^ at(0, two >> 24)
            i += 8
        }
        if i + 4 <= n {
            let one = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self)) ^ crc
            crc = at(3, one) ^ at(2, one >> 8) ^ at(1, one >> 16) ^ at(0, one >> 24)
            i += 4
        }
        while i < n {
            crc = at(0, crc ^ UInt32(bytes[i])) ^ (crc >> 8)
            i += 1
        }
        return crc
    }

    package static func checksum(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { checksum($0) } }
}
