import CLTTng

/// The binary trace file format, version 2 (little-endian throughout; version 1 is version 2
/// without process chunks, and is still read).
///
/// ```
/// header   16 bytes  magic 89 54 44 54 52 0D 0A 1A ("\x89TDTR\r\n\x1A"), u16 version, u16 flags (0),
///                    u32 reserved (0)
/// chunk    12 bytes  u8 tag, 3 bytes reserved (0), u32 payload length, u32 CRC-32 of the payload;
///                    then the payload
///   tag 1  string    u32 id (> 0), UTF-8 bytes (length − 4, at most 65,536)
///   tag 2  events    u32 count (1...65,536), count × 80-byte records (length = 4 + 80 × count)
///   tag 3  footer    u64 events, overwritten, discarded, lost, monotonic origin, realtime origin,
///                    and, when a slow-request trigger counted any, u64 slow requests, slow dumps
///   tag 4  process   u32 pid, UTF-8 host name (length − 4, at most 256): the process of the
///                    events that follow, until the next process chunk (none: pid 0)
/// record   80 bytes  u8 kind, u8 code, u8 code2, u8 0, u32 step, u64 time, runtime, dispatch, cycle,
///                    task, otherTask, nanos, u32 count, u32 thread, u32 label, u32 label2 (or payload)
/// ```
/// A string chunk precedes the first record that uses its id; id 0 is the empty string. The footer
/// is the last chunk. Readers reject an unknown version, and treat anything after a damaged chunk
/// as lost.
///
/// The sizes and the record layout are defined once, in C (`clttng_format.h`), because the
/// crash dump writes this format from a signal handler; this type and `TraceRecordLayout` read
/// them from there.
public enum TraceFileFormat {
    /// The file's first 8 bytes.
    public static let magic: [UInt8] = [0x89, 0x54, 0x44, 0x54, 0x52, 0x0D, 0x0A, 0x1A]
    /// The version writers write.
    public static let version = UInt16(CLTTNG_FILE_VERSION)
    /// The versions a reader of this format reads.
    public static let readableVersions: ClosedRange<UInt16> = 1...version
    /// The most bytes of a process chunk's host name.
    public static let maxHostBytes = Int(CLTTNG_MAX_HOST_BYTES)
    /// The file header's size in bytes.
    public static let headerSize = Int(CLTTNG_FILE_HEADER_SIZE)
    /// A chunk header's size in bytes.
    public static let chunkHeaderSize = Int(CLTTNG_CHUNK_HEADER_SIZE)
    /// One event record's size in bytes (`TraceRecordLayout`).
    public static let recordSize = TraceRecordLayout.size
    /// The most bytes of one string chunk's text.
    public static let maxStringBytes = Int(CLTTNG_MAX_STRING_BYTES)
    /// The most events one events chunk may hold.
    public static let maxEventsPerChunk = 65_536
    /// Events per chunk as writers write them: a file cut short loses at most its last chunk.
    /// (The async-signal-safe dump in clttng_dump.c writes the same.)
    public static let eventsPerChunk = Int(CLTTNG_EVENTS_PER_CHUNK)
    /// The footer's size in bytes without the slow-request counts.
    public static let footerSize = Int(CLTTNG_FOOTER_SIZE)
    /// A footer with the slow-request counts too (written only when they are not both 0, so a
    /// trace without them reads in every version-2 reader).
    public static let slowFooterSize = footerSize + 16
    /// Total string bytes a reader accepts before it stops (bounds its memory).
    public static let maxTotalStringBytes = 256 << 20

    enum Tag: UInt8 {
        case string = 1
        case events = 2
        case footer = 3
        case process = 4
    }
}

/// A trace file that cannot be read at all.
public struct TraceFileError: Error, CustomStringConvertible, Equatable {
    /// The file (or the name given for a stream).
    public var path: String
    /// The byte offset where reading failed.
    public var offset: Int
    /// Why, in words.
    public var reason: String

    /// An error about `path` at `offset`.
    public init(path: String, offset: Int, reason: String) {
        self.path = path
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(path): \(reason) (at byte offset \(offset))" }
}

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

extension Array where Element == UInt8 {
    @inline(__always) mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        var v = value.littleEndian
        Swift.withUnsafeBytes(of: &v) { append(contentsOf: $0) }
    }
}

extension UnsafeRawBufferPointer {
    @inline(__always) func le<T: FixedWidthInteger>(_ offset: Int, as: T.Type = T.self) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
