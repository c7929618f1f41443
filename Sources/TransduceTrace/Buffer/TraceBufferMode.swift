/// What a recorder's ring buffer does when it is full.
public enum TraceBufferMode: Sendable {
    /// Keep the newest events, overwriting the oldest: a flight recorder (the default).
    case overwriteOldest
    /// Keep the oldest events, refusing new ones until a drain makes room.
    case discardNewest
}
