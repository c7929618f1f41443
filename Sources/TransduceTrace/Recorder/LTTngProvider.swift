import CLTTng
import Transduce

#if canImport(Glibc)
    import Glibc
#endif

/// Loads the LTTng-UST probes of the provider `transduce` into the process, once.
///
/// The tracepoint call sites are compiled into every process that uses `TransduceTrace`, with
/// dynamic linkage: until the provider shared object (`libTransduceLTTngProvider.so`, a product
/// of this package) is loaded, a tracepoint costs one load and liblttng-ust is not in the process
/// at all. ``TraceRecorder`` loads it when it is created with `lttng: true` (the default); from
/// then on any LTTng session that enables `transduce:*` receives events, with no rebuild.
///
/// Where it looks, in order: the path in `TRANSDUCE_LTTNG_PROVIDER`; the directory of the running
/// executable; the dynamic linker's search path (`LD_LIBRARY_PATH`, system directories). Set
/// `TRANSDUCE_LTTNG=off` to never load it (for example under ThreadSanitizer, which rejects
/// liblttng-ust's helper threads).
public enum LTTngProvider {
    public static let fileName = "libTransduceLTTngProvider.so"

    public enum Status: Sendable, Equatable {
        case loaded(path: String)
        case disabled(reason: String)
        case unavailable(reason: String)
    }

    /// Loads the provider on first use; later calls return the first outcome.
    public static var status: Status { loadOnce.value }

    public static var isLoaded: Bool {
        if case .loaded = status { return true }
        return false
    }

    private static let loadOnce = Lazy { load() }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    private static func load() -> Status {
        guard clttng_available() != 0 else { return .unavailable(reason: "built without LTTng-UST") }
        if let mode = environment("TRANSDUCE_LTTNG"), ["off", "0", "no", "false"].contains(mode.lowercased()) {
            return .disabled(reason: "TRANSDUCE_LTTNG=\(mode)")
        }
        var candidates: [String] = []
        if let explicit = environment("TRANSDUCE_LTTNG_PROVIDER") { candidates.append(explicit) }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            let exe = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = exe.lastIndex(of: "/") { candidates.append(String(exe[..<slash]) + "/" + fileName) }
        }
        candidates.append(fileName)
        var errors: [String] = []
        for candidate in candidates {
            if candidate.contains("/") && access(candidate, F_OK) != 0 { continue }
            var error = [CChar](repeating: 0, count: 512)
            if clttng_load_provider(candidate, &error, error.count) != 0 { return .loaded(path: candidate) }
            errors.append(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return .unavailable(reason: "\(fileName) not found or not loadable" + (errors.isEmpty ? "" : ": " + errors.joined(separator: "; ")))
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
