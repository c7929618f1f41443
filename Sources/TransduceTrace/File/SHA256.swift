/// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104): the report page's Content-Security-Policy
/// names its script by hash, and a trace's index (``TraceFileIndex``) is signed with its user's
/// key. The toolchain has no digest on Linux (CryptoKit is Apple's).
///
/// It hashes the bytes where they are (``Hasher``): an index of a trace of 78,126 runtimes is
/// 48 MB, and a digest that copied its message, padded, behind the key's block, held it four
/// times over while a view loaded it.
package enum SHA256 {
    /// The 32-byte digest of `bytes`.
    package static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// HMAC-SHA-256 of `message` under `key` (RFC 2104).
    package static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { hmac(key: key, $0) }
    }

    /// HMAC-SHA-256 of `message` under `key` (RFC 2104), read in place.
    package static func hmac(key: [UInt8], _ message: UnsafeRawBufferPointer) -> [UInt8] {
        var block = key.count > 64 ? digest(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        var inner = Hasher()
        block.map { $0 ^ 0x36 }.withUnsafeBytes { inner.update($0) }
        inner.update(message)
        var outer = Hasher()
        block.map { $0 ^ 0x5c }.withUnsafeBytes { outer.update($0) }
        inner.finish().withUnsafeBytes { outer.update($0) }
        return outer.finish()
    }

    /// A digest made over bytes given in pieces, none of them copied but the last block's
    /// remainder.
    package struct Hasher {
        private var h: [UInt32] = [
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
        ]
        /// Bytes given that do not fill a block yet (fewer than 64).
        private var pending: [UInt8] = []
        private var length: UInt64 = 0

        package init() {}

        /// Hashes `bytes` next.
        package mutating func update(_ bytes: UnsafeRawBufferPointer) {
            length &+= UInt64(bytes.count)
            var at = 0
            if !pending.isEmpty {
                let take = min(64 - pending.count, bytes.count)
                pending += bytes[0..<take]
                at = take
                guard pending.count == 64 else { return }
                pending.withUnsafeBytes { compress($0) }
                pending.removeAll(keepingCapacity: true)
            }
            while bytes.count - at >= 64 {
                compress(UnsafeRawBufferPointer(rebasing: bytes[at..<(at + 64)]))
                at += 64
            }
            pending += bytes[at...]
        }

        /// The digest of every byte given.
        package mutating func finish() -> [UInt8] {
            let bits = length &* 8
            var tail = pending
            tail.append(0x80)
            while tail.count % 64 != 56 { tail.append(0) }
            for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
            tail.withUnsafeBytes { all in
                for block in stride(from: 0, to: all.count, by: 64) {
                    compress(UnsafeRawBufferPointer(rebasing: all[block..<(block + 64)]))
                }
            }
            pending = []
            return h.flatMap { v in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> UInt32($0)) } }
        }

        /// One 64-byte block into the state.
        private mutating func compress(_ block: UnsafeRawBufferPointer) {
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                for t in 0..<16 {
                    let i = 4 * t
                    w[t] = UInt32(block[i]) << 24 | UInt32(block[i + 1]) << 16 | UInt32(block[i + 2]) << 8 | UInt32(block[i + 3])
                }
                for t in 16..<64 {
                    let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                    let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                    w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                }
                var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
                for t in 0..<64 {
                    let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = hh &+ s1 &+ choice &+ k[t] &+ w[t]
                    let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
                h[0] &+= a
                h[1] &+= b
                h[2] &+= c
                h[3] &+= d
                h[4] &+= e
                h[5] &+= f
                h[6] &+= g
                h[7] &+= hh
            }
        }
    }

    fileprivate static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }

    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}
