/// CRC-32 (IEEE 802.3, reflected, as zlib), table-driven, slicing by 4.
package enum CRC32 {
    static let tables: [[UInt32]] = {
        var t = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 4)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[0][i] = c
        }
        for i in 0..<256 {
            for k in 1..<4 { t[k][i] = (t[k - 1][i] >> 8) ^ t[0][Int(t[k - 1][i] & 0xFF)] }
        }
        return t
    }()

    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        let t0 = tables[0]
        let t1 = tables[1]
        let t2 = tables[2]
        let t3 = tables[3]
        var i = 0
        let n = bytes.count
        t0.withUnsafeBufferPointer { t0 in
            t1.withUnsafeBufferPointer { t1 in
                t2.withUnsafeBufferPointer { t2 in
                    t3.withUnsafeBufferPointer { t3 in
                        while i + 4 <= n {
                            crc ^= UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self))
                            crc =
                                t3[Int(crc & 0xFF)] ^ t2[Int((crc >> 8) & 0xFF)] ^ t1[Int((crc >> 16) & 0xFF)]
                                ^ t0[Int(crc >> 24)]
                            i += 4
                        }
                        while i < n {
                            crc = t0[Int((crc ^ UInt32(bytes[i])) & 0xFF)] ^ (crc >> 8)
                            i += 1
                        }
                    }
                }
            }
        }
        return ~crc
    }

    package static func checksum(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { checksum($0) } }
}
