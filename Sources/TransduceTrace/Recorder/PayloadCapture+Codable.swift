#if canImport(FoundationEssentials)
    internal import FoundationEssentials
#else
    internal import Foundation
#endif

extension PayloadCapture {
    /// What a ``codable(capacity:states:redact:)`` capture keeps of the state each cycle commits.
    public enum States: Sendable, Hashable {
        /// Nothing.
        case none
        /// A 64-bit FNV-1a hash of the state's JSON encoding (keys sorted), as
        /// `fnv1a64:` and 16 hexadecimal digits: enough to check a replay cycle by cycle, and
        /// reveals nothing of the state. A `Set`, or a `Dictionary` whose keys are not strings,
        /// encodes in an order that changes from process to process: such a state's fingerprints
        /// do not compare across processes (take `snapshots`, which compare decoded values).
        case fingerprints
        /// The state's JSON encoding (keys sorted), whole: a replay can start from it (a dump of a
        /// window that begins mid-run) and show how a replayed state differs. Texts beyond 64 KiB
        /// are cut in trace files. Holds whatever the state holds: for traces that stay private.
        case snapshots
    }

    /// Keeps each dispatched and transduced event as its JSON encoding (the event must be
    /// `Encodable`; others keep nothing), so that a trace can be replayed into the transducer
    /// (`Replay` in TransduceTesting), and with `states` each cycle's committed state as a
    /// fingerprint or a snapshot (the state must be `Encodable`).
    ///
    /// LTTng events carry neither: replay reads ring dumps and JSON Lines.
    ///
    /// - Parameters:
    ///   - capacity: texts kept at once (the oldest go first): a replay needs every event of its
    ///     window, so make it at least twice the events the ring holds.
    ///   - states: what is kept of each cycle's committed state.
    ///   - redact: returns what to encode for an event (a copy with secrets blanked), or `nil`
    ///     to keep nothing; by default the event itself.
    public static func codable(
        capacity: Int = 1 << 16, states: States = .none,
        redact: @escaping @Sendable (any Sendable) -> (any Sendable)? = { $0 }
    ) -> PayloadCapture {
        let event: @Sendable (any Sendable) -> String? = { payload in
            guard let redacted = redact(payload) else { return nil }
            return CodableText.json(redacted)
        }
        let state: @Sendable (Any) -> String? = { state in
            guard let json = CodableText.json(state) else { return nil }
            return states == .snapshots ? json : CodableText.fingerprint(json)
        }
        return PayloadCapture(capacity: capacity, redact: event, state: states == .none ? nil : state)
    }
}

/// The JSON texts of a codable capture, and their fingerprints: one definition for the recorder
/// and the replay that checks against it.
package enum CodableText {
    /// `value`'s JSON encoding with sorted keys, or `nil` when it is not `Encodable` or fails to
    /// encode.
    package static func json(_ value: Any) -> String? {
        guard let encodable = value as? any Encodable, let data = try? encoder.encode(encodable) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// One encoder for every capture (its options are set once, and encoding does not change it).
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The prefix of a fingerprint text.
    package static let fingerprintPrefix = "fnv1a64:"

    /// `fnv1a64:` and the 16 hexadecimal digits of the FNV-1a hash of `json`'s UTF-8.
    package static func fingerprint(_ json: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in json.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return fingerprintPrefix + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Decodes `T` from a JSON text made by ``json(_:)``.
    package static func decode<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }
}
