import Dispatch
import Synchronization
import Transduce

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A flight recorder that dumps itself when a request is slow (Go's flight-recorder workflow):
/// when an awaited request takes longer than ``threshold``, the ring's window is written to
/// ``directory`` as a trace file named for the moment and the request
/// (`slow-<pid>-<unix ms>-r<runtime>-d<dispatch>.tdtrace`), which holds the slow request's whole
/// lifecycle as far as the ring still does.
///
/// Cost on the recording thread: one comparison per recorded resume; a slow one also does an
/// atomic exchange and, when no dump is pending, hands the dump to a background queue. The
/// snapshot and the write never run on the thread that recorded the event.
public struct SlowRequestTrigger: Sendable {
    /// Latency (ns) above which a request is slow.
    public var threshold: UInt64
    /// Where dumps are written (created when missing).
    public var directory: String
    /// At most one dump per this many nanoseconds; slow requests in between are counted as
    /// suppressed.
    public var minimumInterval: UInt64

    /// A trigger for requests over `threshold` ns, dumping to `directory` at most once per
    /// `minimumInterval` ns (default 10 s).
    public init(threshold: UInt64, directory: String, minimumInterval: UInt64 = 10_000_000_000) {
        self.threshold = threshold
        self.directory = directory
        self.minimumInterval = minimumInterval
    }

    /// `TRANSDUCE_SLOW`: the threshold (`50ms`, `250us`; a bare number is ns).
    public static let thresholdVariable = "TRANSDUCE_SLOW"
    /// `TRANSDUCE_SLOW_DIR`: where the dumps go (default: the current directory).
    public static let directoryVariable = "TRANSDUCE_SLOW_DIR"
    /// `TRANSDUCE_SLOW_EVERY`: the least time between two dumps (default `10s`).
    public static let intervalVariable = "TRANSDUCE_SLOW_EVERY"

    /// The trigger the environment asks for, or `nil` (`TRANSDUCE_SLOW` unset or not a
    /// duration, which is said on standard error).
    public static func fromEnvironment() -> SlowRequestTrigger? {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        guard let text = variable(thresholdVariable) else { return nil }
        guard let threshold = parseDuration(text) else {
            let message = "transduce: \(thresholdVariable)=\(text) is not a duration (50ms, 250us); no slow-request dumps\n"
            _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            return nil
        }
        let interval = variable(intervalVariable).flatMap(parseDuration) ?? 10_000_000_000
        return SlowRequestTrigger(threshold: threshold, directory: variable(directoryVariable) ?? ".", minimumInterval: interval)
    }
}
