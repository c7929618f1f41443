import Synchronization
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A temporary binary copy of an input that cannot be read again cheaply (standard input, a
/// pipe, a CTF trace, JSON Lines), for the passes of a view that reads more than once
/// (``TraceSource``).
///
/// The copy lives in `TMPDIR` (else /tmp) without a name: it is unlinked as soon as it is made
/// and read through its descriptor (`/proc/self/fd/N`), so nothing is left behind however
/// trace-view ends, SIGKILL included. It takes what the events take in a trace file (about 80
/// bytes an event). A file system that fills up ends the view with status 74, naming the
/// directory.
struct TraceCopy {
    /// Where the passes read it.
    package let path: String
    private let descriptor: Int32
    private let directory: String
    private let input: String
    private var encoder = TraceFileEncoder()
    private var failure: Int32 = 0
    /// The events appended.
    package private(set) var events: UInt64 = 0

    /// The variable naming the directory of temporary copies.
    package static let directoryVariable = "TMPDIR"

    /// Makes an empty copy for the input at `input` (named in errors).
    package init(of input: String) throws {
        self.input = input
        let directory = getenv(Self.directoryVariable).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        self.directory = directory
        var template = Array((directory + "/trace-view-copy-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw CLIError(
                "\(input): a view that reads it more than once keeps a temporary copy, and it cannot be made in "
                    + "\(directory) (\(String(cString: strerror(errno)))); set \(Self.directoryVariable) to a "
                    + "writable directory", .diskFull)
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        self.descriptor = descriptor
        #if os(Linux)
            // Read through the descriptor from now on: the name can go at once.
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            path = "/proc/self/fd/\(descriptor)"
        #else
            path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            TraceCopy.removeAtExit(path)
        #endif
    }

    /// Appends one event.
    package mutating func append(_ event: TraceEvent) {
        events += 1
        guard failure == 0 else { return }
        var failure: Int32 = 0
        let descriptor = descriptor
        encoder.append(event) { bytes in Self.write(bytes, to: descriptor, failure: &failure) }
        if failure != 0 { self.failure = failure }
    }

    /// Writes what is pending and the footer; throws (status 74) when the copy could not be
    /// written whole.
    package mutating func finish(counts: TraceCounts?) throws {
        var failure = self.failure
        let descriptor = descriptor
        if failure == 0 {
            encoder.finish(counts: counts ?? TraceCounts(events: events)) { bytes in
                Self.write(bytes, to: descriptor, failure: &failure)
            }
        }
        guard failure == 0 else {
            throw CLIError(
                "\(input): a view that reads it more than once keeps a temporary copy in \(directory), and writing "
                    + "it failed (\(String(cString: strerror(failure)))); set \(Self.directoryVariable) to a directory "
                    + "with room (about 80 bytes an event)", .diskFull)
        }
    }

    /// Writes `bytes` whole to `descriptor`, or sets `failure` to why not.
    private static func write(_ bytes: [UInt8], to descriptor: Int32, failure: inout Int32) {
        var offset = 0
        while offset < bytes.count && failure == 0 {
            let n = bytes.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                failure = n < 0 ? errno : ENOSPC
            }
        }
    }

    #if !os(Linux)
        /// The copies' names, removed at exit (where a copy cannot be read through its descriptor).
        private static let named = Mutex<[String]>([])
        private static func removeAtExit(_ path: String) {
            let first = named.withLock { list in
                list.append(path)
                return list.count == 1
            }
            if first { atexit { TraceCopy.named.withLock { $0.forEach { _ = unlink($0) } } } }
        }
    #endif
}

/// write(2), named apart from the copy's own `write`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
