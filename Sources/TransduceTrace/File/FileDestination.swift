#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How bytes meant for a path get there without harming what is at it: a writer must never
/// replace a symbolic link, a FIFO or a device with a regular file (run as root,
/// `--output /dev/null` once turned the machine's `/dev/null` into one).
///
/// - absent, or a regular file: written atomically (a temporary file beside it, renamed over it);
/// - a symbolic link: followed; what it points to is then treated the same way, so the link
///   stays a link and its target gets the bytes (a dangling link's target is created);
/// - anything else that can be opened for writing (a FIFO, a character device, `/dev/stdout`):
///   written directly, in place;
/// - a directory: refused.
package enum FileDestination: Equatable {
    /// Write `temporary` (in the same directory as `final`), then rename it to `final`.
    case atomic(final: String)
    /// Open `path` for writing and write in place.
    case direct(path: String)

    /// Links followed at most (a loop of links is refused, as the system would).
    static let maxLinks = 40

    /// Where the bytes for `path` go; throws a reason for a path that cannot take them.
    package static func resolve(_ path: String) throws(FileDestinationError) -> FileDestination {
        var current = path
        for _ in 0..<maxLinks {
            var info = stat()
            guard lstat(current, &info) == 0 else {
                if errno == ENOENT { return .atomic(final: current) }
                throw FileDestinationError(reason: String(cString: strerror(errno)))
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG: return .atomic(final: current)
            case S_IFDIR: throw FileDestinationError(reason: "is a directory")
            case S_IFLNK:
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let length = readlink(current, &buffer, buffer.count - 1)
                guard length > 0 else { throw FileDestinationError(reason: String(cString: strerror(errno))) }
                let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if target.hasPrefix("/") {
                    current = target
                } else {
                    // Relative to the link's own directory.
                    let directory = current.lastIndex(of: "/").map { String(current[...$0]) } ?? ""
                    current = directory + target
                }
                // A link whose target has no file name of its own (`/dev/stdout` → `/proc/self/fd/1`
                // → `pipe:[…]`) is written through in place.
                if current.hasPrefix("/proc/") { return .direct(path: path) }
            default:
                return .direct(path: current)
            }
        }
        throw FileDestinationError(reason: "too many levels of symbolic links")
    }
}

/// Why bytes cannot go to a path.
package struct FileDestinationError: Error {
    package var reason: String
}
