/// Protocol Buffers' wire format, written by hand into a byte buffer: what the Perfetto export
/// needs (varints, strings, fixed64 and nested messages), with no protobuf library.
///
/// A nested message is written in place: ``begin(_:)`` leaves one byte for its length and
/// ``end(_:)`` fills it in, moving the message's bytes up in the rare case its length needs more
/// than one byte (a message of 128 bytes or more).
struct ProtobufBuffer {
    var bytes: [UInt8] = []

    /// Wire types.
    enum Wire: UInt64 {
        case varint = 0
        case fixed64 = 1
        case length = 2
    }

    @inline(__always) mutating func varint(_ value: UInt64) { Self.varint(value, into: &bytes) }

    /// Appends `value` as a varint (7 bits a byte, least significant first) to `out`.
    @inline(__always) static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    @inline(__always) mutating func tag(_ field: UInt64, _ wire: Wire) { varint(field << 3 | wire.rawValue) }

    /// An unsigned integer, an enum or a bool field.
    @inline(__always) mutating func uint(_ field: UInt64, _ value: UInt64) {
        tag(field, .varint)
        varint(value)
    }

    /// A signed `int32`/`int64` field (two's complement: a negative value takes ten bytes).
    mutating func int(_ field: UInt64, _ value: Int64) { uint(field, UInt64(bitPattern: value)) }

    mutating func fixed64(_ field: UInt64, _ value: UInt64) {
        tag(field, .fixed64)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ field: UInt64, _ value: String) {
        tag(field, .length)
        var value = value
        value.withUTF8 {
            varint(UInt64($0.count))
            bytes.append(contentsOf: $0)
        }
    }

    /// Starts a nested message in `field`; pass what it returns to ``end(_:)``.
    @inline(__always) mutating func begin(_ field: UInt64) -> Int {
        tag(field, .length)
        bytes.append(0)
        return bytes.count
    }

    /// Ends the nested message begun at `start`, writing its length before it.
    mutating func end(_ start: Int) {
        let length = bytes.count - start
        if length < 0x80 {
            bytes[start - 1] = UInt8(length)
            return
        }
        var prefix: [UInt8] = []
        Self.varint(UInt64(length), into: &prefix)
        bytes.replaceSubrange((start - 1)..<start, with: prefix)
    }
}
