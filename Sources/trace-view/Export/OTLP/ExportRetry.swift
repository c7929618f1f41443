import Foundation

/// When to POST a batch again, as OTLP/HTTP says a client should: 429, 502, 503 and 504 and a
/// connection that fails are retried, after an exponential backoff with jitter (1, 2, 4, 8, 16
/// seconds, each ×0.8…1.2) or the collector's `Retry-After` where it gives one, at most six
/// attempts in all, and never past the batch's deadline; any other answer ends it. The policy of
/// the OpenTelemetry Python SDK's exporter, which the tests run beside trace-view.
///
/// A pure value: the shell POSTs, tells it what came back and the time, and does what it says.
struct ExportRetry {
    static let maxAttempts = 6
    static let retryableStatuses: Set<Int> = [429, 502, 503, 504]

    /// What an attempt came to.
    enum Outcome: Equatable {
        /// An HTTP answer, with its `Retry-After` in seconds from now where it gave a usable one.
        case answered(status: Int, retryAfter: Double?)
        /// No answer: the connection was refused, reset or closed first (retried).
        case connectionFailed(String)
        /// No usable answer for a reason a retry would not change (a time limit passed, an
        /// answer that is not HTTP): not retried.
        case failed(String)
    }

    /// What to do next.
    enum Action: Equatable {
        /// The collector answered 2xx: the batch is sent.
        case sent
        /// POST again after this many nanoseconds.
        case retry(afterNanos: UInt64)
        /// Stop: the last outcome stands, and `why` says why there is no retry after it
        /// ("" when it was not retryable).
        case giveUp(why: String)
    }

    /// When the batch must be done by (nanoseconds of the monotonic clock).
    let deadline: UInt64
    /// Attempts made so far.
    private(set) var attempts = 0

    init(deadline: UInt64) { self.deadline = deadline }

    /// Nanoseconds left at `now` (at least 1 ms while any is left, 0 after).
    func left(at now: UInt64) -> UInt64 { now >= deadline ? 0 : max(deadline - now, 1_000_000) }

    /// The next step after an attempt ended in `outcome` at `now`; `jitter` is a number in
    /// 0.8…1.2 (the shell draws it; tests give it).
    mutating func next(after outcome: Outcome, now: UInt64, jitter: Double) -> Action {
        attempts += 1
        var wait = Double(1 << (attempts - 1)) * min(max(jitter, 0.8), 1.2)
        switch outcome {
        case .answered(let status, let retryAfter):
            if (200..<300).contains(status) { return .sent }
            guard Self.retryableStatuses.contains(status) else { return .giveUp(why: "") }
            if let retryAfter { wait = retryAfter }
        case .connectionFailed: break
        case .failed: return .giveUp(why: "")
        }
        guard attempts < Self.maxAttempts else { return .giveUp(why: "after \(attempts) attempts") }
        let nanos = wait.isFinite && wait < 1e9 ? UInt64(max(0, wait) * 1e9) : .max
        guard now < deadline, nanos <= deadline - now else {
            let seconds = wait.isFinite && wait < 1e9 ? String(Int(wait.rounded(.up))) : "forever"
            return .giveUp(
                why:
                    "the next attempt (in \(seconds) s) would be past the time limit, after \(attempts) attempt\(attempts == 1 ? "" : "s")"
            )
        }
        return .retry(afterNanos: nanos)
    }

    /// A `Retry-After` value in seconds from now: a number of seconds, or an HTTP date less the
    /// wall-clock time `nowUnix` (seconds since 1970). `date` parses an HTTP date (the shell
    /// passes libcurl's `curl_getdate`). `nil` when it is neither.
    static func retryAfter(_ text: String, nowUnix: Double, date: (String) -> Double?) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        if trimmed.allSatisfy(\.isASCII), let seconds = Double(trimmed) {
            return seconds.isFinite ? max(0, seconds) : nil
        }
        guard let at = date(trimmed) else { return nil }
        return max(0, at - nowUnix)
    }
}
