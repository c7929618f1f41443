import Transduce

/// Opt-in capture of dispatched event values, redacted before they are kept.
///
/// Traces leave the process and payloads may hold user data, so nothing is captured unless a
/// recorder is given one of these. `redact` returns the text to keep, or `nil` to keep nothing.
/// Captured texts live in a bounded store of `capacity` entries; an event whose text was pushed
/// out by newer ones shows `(payload overwritten)`.
public struct PayloadCapture: Sendable {
    /// How many captured texts are kept at once (the oldest go first).
    public var capacity: Int
    /// Returns the text to keep for a payload, or `nil` to keep nothing. Called on the recording
    /// thread, so keep it cheap; it must be thread-safe.
    public var redact: @Sendable (any Sendable) -> String?
    /// Returns the text to keep for the state a cycle committed (with its `cycleLeave`), or `nil`
    /// to keep nothing; `nil` (the default) captures no states. Called on the host's isolation,
    /// in the cycle: it may read the state, must not keep it, and should be quick.
    public var state: (@Sendable (Any) -> String?)?

    /// A capture keeping at most `capacity` texts made by `redact` (and by `state`, for each
    /// cycle's committed state, when given).
    public init(
        capacity: Int = 4_096, redact: @escaping @Sendable (any Sendable) -> String?,
        state: (@Sendable (Any) -> String?)? = nil
    ) {
        self.capacity = capacity
        self.redact = redact
        self.state = state
    }

    /// Keeps `String(describing:)` of every payload: only for traces that stay private.
    public static var unredacted: PayloadCapture { PayloadCapture { String(describing: $0) } }
}

/// The bounded store behind ``PayloadCapture``.
final class PayloadStore: @unchecked Sendable {  // `entries` is guarded by its Lock
    private let capacity: Int
    private let entries: Lock<(next: UInt64, items: [(UInt64, String)])>

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        entries = Lock((1, Array(repeating: (0, ""), count: max(1, capacity))))
    }

    func store(_ text: String) -> UInt64 {
        entries.withLock { state in
            let generation = state.next
            state.next += 1
            state.items[Int(generation % UInt64(capacity))] = (generation, text)
            return generation
        }
    }

    func resolve(_ generation: UInt64) -> String {
        guard generation != 0 else { return "" }
        return entries.withLock { state in
            let entry = state.items[Int(generation % UInt64(capacity))]
            return entry.0 == generation ? entry.1 : "(payload overwritten)"
        }
    }
}
