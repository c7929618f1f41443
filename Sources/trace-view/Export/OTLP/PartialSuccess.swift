import Foundation
import TransduceTrace

/// An OTLP/HTTP partial success (`ExportTracePartialSuccess`): a collector that took the request
/// but rejected some of its spans says how many and why in its 2xx answer's body, an
/// `ExportTraceServiceResponse` in the request's encoding (JSON:
/// `{"partialSuccess": {"rejectedSpans": "3", "errorMessage": "…"}}`, `rejectedSpans` an int64,
/// a string or a number; protobuf: field 1, holding `rejected_spans` (1) and `error_message`
/// (2)). Those spans are lost: the sender must say so.
struct PartialSuccess: Equatable {
    var rejectedSpans: UInt64
    var message: String

    init(rejectedSpans: UInt64, message: String) {
        self.rejectedSpans = rejectedSpans
        self.message = message
    }

    /// The partial success in `body` (protobuf when `protobuf`, else JSON), or `nil` when it has
    /// none (an empty body, `{}`, a body that is not the encoding, or zero spans rejected and no
    /// message: a full success).
    init?(_ body: [UInt8], protobuf: Bool) {
        guard protobuf else {
            self.init(body)
            return
        }
        var reader = ProtobufReader(body[...])
        var rejected: UInt64 = 0
        var message = ""
        while let (field, value) = reader.next() {
            guard field == 1, case .bytes(let partial) = value else { continue }
            var inner = ProtobufReader(partial)
            while let (field, value) = inner.next() {
                switch (field, value) {
                // An int64: a negative count still says spans were lost.
                case (1, .varint(let n)): rejected = Int64(bitPattern: n) < 0 ? 1 : n
                case (2, .bytes(let text)): message = String(decoding: text.prefix(300), as: UTF8.self)
                default: break
                }
            }
        }
        message = Escaping.oneLine(message)
        guard reader.isWhole, rejected != 0 || !message.isEmpty else { return nil }
        self.init(rejectedSpans: rejected, message: message)
    }

    /// The partial success in the JSON `body` (see ``init(_:protobuf:)``).
    init?(_ body: [UInt8]) {
        guard !body.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let partial = object["partialSuccess"] as? [String: Any]
        else { return nil }
        let rejected: UInt64?
        switch partial["rejectedSpans"] {
        case nil: rejected = 0
        case let text as String: rejected = UInt64(text)
        case let number as NSNumber:
            let value = number.doubleValue
            rejected = value >= 0 && value < 0x1p64 && value == value.rounded(.down) ? UInt64(value) : nil
        default: rejected = nil
        }
        // A count that is not one (negative, fractional, too large, not a number) still says spans
        // were rejected: at least one.
        rejectedSpans = rejected ?? 1
        message = Escaping.oneLine(String((partial["errorMessage"] as? String ?? "").prefix(300)))
        if rejectedSpans == 0 && message.isEmpty { return nil }
    }
}

/// Protocol Buffers' wire format read field by field from bytes a peer sent: never traps, never
/// reads past them; a malformed message ends the reading with `isWhole` false.
struct ProtobufReader {
    enum Value {
        case varint(UInt64)
        case bytes(ArraySlice<UInt8>)
        case fixed
    }

    private var rest: ArraySlice<UInt8>
    private(set) var isWhole = true

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    private mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = rest.first, shift < 64 {
            rest = rest.dropFirst()
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }

    /// The next field's number and value; `nil` at the end or at damage.
    mutating func next() -> (field: UInt64, value: Value)? {
        guard isWhole, !rest.isEmpty else { return nil }
        guard let key = varint() else { return fail() }
        let field = key >> 3
        switch key & 7 {
        case 0:
            guard let v = varint() else { return fail() }
            return (field, .varint(v))
        case 1, 5:
            let size = key & 7 == 1 ? 8 : 4
            guard rest.count >= size else { return fail() }
            rest = rest.dropFirst(size)
            return (field, .fixed)
        case 2:
            guard let length = varint(), length <= UInt64(rest.count) else { return fail() }
            let value = rest.prefix(Int(length))
            rest = rest.dropFirst(Int(length))
            return (field, .bytes(value))
        default: return fail()
        }
    }

    private mutating func fail() -> (field: UInt64, value: Value)? {
        isWhole = false
        return nil
    }
}
