import CTraceRing

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
///                    and, when a slow-request trigger counted any or the writer says why it
///                    wrote, u64 slow requests, slow dumps; and, when it says why, u64 occasion
///                    (`TraceCounts.Occasion`: 48, 64 or 72 bytes in all)
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
    /// A footer with the slow-request counts and the dump's occasion (written whenever the writer
    /// says why it wrote: see ``TraceCounts/Occasion``).
    public static let occasionFooterSize = Int(CLTTNG_FOOTER_OCCASION_SIZE)
    /// Total string bytes a reader accepts before it stops (bounds its memory), each string
    /// counted as its text and ``stringEntryCost``: at most 4,194,304 strings, however short.
    public static let maxTotalStringBytes = 256 << 20
    /// What one string costs a reader beyond its text (its `String` and its table slot): counted
    /// against ``maxTotalStringBytes``, so that empty strings cannot grow the table without bound.
    public static let stringEntryCost = 64

    enum Tag: UInt8 {
        case string = 1
        case events = 2
        case footer = 3
        case process = 4
    }
}
