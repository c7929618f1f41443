import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard error, as the tools write to it: the one place that writes there (trace-view's
/// `Terminal.error` is this).
package enum StandardError {
    /// Writes `text` as it is (no newline): a progress line redrawn in place.
    package static func write(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { writeAll(STDERR_FILENO, $0) }
    }

    /// Writes `text` and a newline, every control character in it (but its newlines) shown as
    /// an escape: messages quote values from the user, the trace and the network, which must not
    /// drive the terminal.
    package static func line(_ text: String) {
        let safe = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { escapingControls(String($0), keepingColour: false) }.joined(separator: "\n")
        write(safe + "\n")
    }
}
