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
