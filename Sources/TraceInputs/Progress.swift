import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Progress of long work on standard error: shown only when standard error is a terminal and
/// the work has taken a second (`TRANSDUCE_PROGRESS_AFTER_MS` sets that delay), at most five
/// times a second, and erased when the work is done.
package final class Progress {
    private let enabled: Bool
    private let start = Progress.now()
    private let delay: UInt64
    private var last: UInt64 = 0
    private var shown = false
    /// Put before each text shown ("pass 2: ").
    package var prefix = ""

    package init() {
        enabled = isatty(STDERR_FILENO) != 0
        delay =
            getenv("TRANSDUCE_PROGRESS_AFTER_MS").flatMap { UInt64(String(cString: $0)) }.map { $0 * 1_000_000 } ?? 1_000_000_000
    }

    package static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    /// Shows `text` if it is time to; cheap enough to call every few thousand items.
    package func update(_ text: @autoclosure () -> String) {
        guard enabled else { return }
        let t = Self.now()
        guard t - start >= delay, t - last >= 200_000_000 || !shown else { return }
        last = t
        shown = true
        StandardError.write(
            "\r\u{1B}[K" + "trace-view: " + prefix + text() + " (\(formatDuration((t - start) / 1_000_000 * 1_000_000)))")
    }

    /// Erases the progress line.
    package func done() {
        guard shown else { return }
        StandardError.write("\r\u{1B}[K")
        shown = false
    }
}
