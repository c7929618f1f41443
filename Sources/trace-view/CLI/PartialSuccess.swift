import Foundation
import TransduceTrace

/// An OTLP/HTTP partial success (`ExportTracePartialSuccess`): a collector that took the request
/// but rejected some of its spans says how many and why in its 2xx answer's body
/// (`{"partialSuccess": {"rejectedSpans": "3", "errorMessage": "…"}}`; `rejectedSpans` an int64,
/// a string or a number in OTLP JSON). Those spans are lost: the sender must say so.
struct PartialSuccess: Equatable {
    var rejectedSpans: UInt64
    var message: String

    init(rejectedSpans: UInt64, message: String) {
        self.rejectedSpans = rejectedSpans
        self.message = message
    }

    /// The partial success in `body`, or `nil` when it has none (an empty body, `{}`, a body that
    /// is not JSON, or zero spans rejected and no message: a full success).
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
