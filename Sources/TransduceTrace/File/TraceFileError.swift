/// A trace file that cannot be read (or written) at all.
///
/// A struct over a ``Code``, like the runtime's `RuntimeError`: branch on ``code`` (codes may be
/// added, so a `switch` needs a `default`); ``reason`` says the same in words, with what the
/// system said.
public struct TraceFileError: Error, CustomStringConvertible, Equatable {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        @usableFromInline
        enum Base: UInt8, Sendable {
            case cannotOpen, cannotWrite, empty, notATrace, truncatedHeader, unsupportedVersion, unknownFlags
            case reservedBytes, badResumePoint
        }
        @usableFromInline
        let base: Base

        init(_ base: Base) { self.base = base }

        /// The file could not be opened for reading (it does not exist, or may not be read).
        public static let cannotOpen = Code(.cannotOpen)
        /// The file could not be created or written.
        public static let cannotWrite = Code(.cannotWrite)
        /// The file is empty.
        public static let empty = Code(.empty)
        /// The file does not start with the trace format's magic number.
        public static let notATrace = Code(.notATrace)
        /// The file ends inside its header.
        public static let truncatedHeader = Code(.truncatedHeader)
        /// The header names a format version this reader does not know.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// The header sets flags this reader does not know.
        public static let unknownFlags = Code(.unknownFlags)
        /// The header's reserved bytes are not zero.
        public static let reservedBytes = Code(.reservedBytes)
        /// Reading was asked to start at an offset that is not a record's start.
        public static let badResumePoint = Code(.badResumePoint)

        /// The code's name, as written in Swift (`notATrace`).
        public var description: String { "\(base)" }
    }

    /// What went wrong.
    public var code: Code
    /// The file (or the name given for a stream).
    public var path: String
    /// The byte offset where reading failed.
    public var offset: Int
    /// Why, in words.
    public var reason: String

    /// An error of `code` about `path` at `offset`, with the reason in words.
    public init(_ code: Code, path: String, offset: Int, reason: String) {
        self.code = code
        self.path = path
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(path): \(reason) (at byte offset \(offset))" }
}
