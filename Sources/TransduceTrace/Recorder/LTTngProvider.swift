import CLTTng
import Transduce

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Brings LTTng-UST into the process and registers the probes of the provider `transduce`, once.
///
/// The tracepoints and their probes are compiled into every program that uses `TransduceTrace`
/// (an application depending on this package needs no extra build step or library), but nothing
/// links liblttng-ust: until it is loaded a tracepoint costs one load, and no LTTng thread runs.
/// ``TraceRecorder`` loads it when created with `lttng: true` (the default); from then on any LTTng
/// session that enables `transduce:*` receives events, with no rebuild.
///
/// `TRANSDUCE_LTTNG` chooses: `off` (or `0`, `no`, `false`) never loads it (for example under
/// ThreadSanitizer, which rejects liblttng-ust's helper threads); `required` loads it and, when it
/// cannot, says why on standard error (`trace-view record` sets this for its command); unset, it
/// is loaded when it can be, quietly — ``status`` says what happened.
public enum LTTngProvider {
    /// What became of loading LTTng-UST.
    public enum Status: Sendable, Equatable {
        /// The probes are registered with the LTTng-UST library at `path`.
        case loaded(path: String)
        /// `TRANSDUCE_LTTNG` switched it off.
        case disabled(reason: String)
        /// It could not be loaded (no library, or its probes failed to register), and why.
        case unavailable(reason: String)
    }

    /// The library loaded to record to LTTng.
    public static let libraryName = "liblttng-ust.so.1"
    /// The environment variable that switches LTTng off or makes it required.
    public static let environmentVariable = "TRANSDUCE_LTTNG"

    /// Loads LTTng-UST on first use; later calls return the first outcome.
    public static var status: Status { loadOnce.value }

    /// Whether the probes are registered (loads on first use).
    public static var isLoaded: Bool {
        if case .loaded = status { return true }
        return false
    }

    /// Whether `TRANSDUCE_LTTNG=required`: a recorder that cannot feed LTTng says so.
    public static var isRequired: Bool { environment(environmentVariable)?.lowercased() == "required" }

    private static let loadOnce = Lazy { load() }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// Where the LTTng-UST headers this build was compiled without would be, had they been there.
    static let header = "/usr/include/lttng/tracepoint.h"

    private static func load() -> Status {
        let off = environment(environmentVariable).map { ["off", "0", "no", "false"].contains($0.lowercased()) } ?? false
        guard clttng_available() != 0 else {
            // Built before the headers were installed (an incremental build keeps the stubs):
            // said even when not required, since the app would otherwise record nothing silently.
            if !off, access(header, R_OK) == 0 {
                let reason =
                    "built without LTTng-UST headers, which are installed now: rebuild from clean (swift package clean) to record to LTTng"
                if !isRequired { DumpRegistry.report("LTTng is not recording: \(reason)") }
                return report(.unavailable(reason: reason))
            }
            return report(.unavailable(reason: "built without LTTng-UST headers"))
        }
        if off, let mode = environment(environmentVariable) {
            return report(.disabled(reason: "\(environmentVariable)=\(mode)"))
        }
        var error = [CChar](repeating: 0, count: 512)
        if clttng_load_lttng(&error, error.count) != 0 { return .loaded(path: libraryName) }
        let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return report(.unavailable(reason: reason))
    }

    private static func report(_ status: Status) -> Status {
        if isRequired {
            let reason: String
            switch status {
            case .loaded: return status
            case .disabled(let r), .unavailable(let r): reason = r
            }
            DumpRegistry.report("LTTng is required (\(environmentVariable)=required) but not recording: \(reason)")
        }
        return status
    }
}

/// A value computed once, thread-safely.
final class Lazy<Value: Sendable>: Sendable {
    private let storage: Lock<Value?>
    private let make: @Sendable () -> Value
    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
        storage = Lock(nil)
    }
    var value: Value {
        storage.withLock { stored in
            if let stored { return stored }
            let value = make()
            stored = value
            return value
        }
    }
}
