import Synchronization

/// The receiver of the runtime's diagnostics: one call per instrumentation point.
///
/// `Transduce` owns only this protocol; recorders (ring buffer, LTTng, test recorders) live in
/// other modules. A host reads ``isRecording`` at each point first and prepares nothing (no clock
/// read, no label, no allocation) when it is `false`.
///
/// Thread-safety: ``record(_:)`` is called from any thread, concurrently, sometimes while the
/// runtime holds its control lock; it must not block and must not call back into the runtime.
public protocol RuntimeInstrument: AnyObject, Sendable {
    /// Whether events are wanted right now. Read on every instrumentation point; keep it to one
    /// relaxed atomic load.
    var isRecording: Bool { get }
    /// Whether events should carry the dispatched event value in ``RuntimeEvent/payload``.
    /// Boxing a payload may allocate, so this is off unless a recorder opts in.
    var capturesPayloads: Bool { get }
    /// Takes one event, on the thread that produced it; called only while ``isRecording`` was
    /// `true` at that point.
    func record(_ event: RuntimeEvent)
}

extension RuntimeInstrument {
    public var capturesPayloads: Bool { false }
}

/// An instrument that records nothing; hosts behave as if none were attached.
public final class NoOpInstrument: RuntimeInstrument {
    /// An instrument that records nothing.
    public init() {}
    public var isRecording: Bool { false }
    /// Does nothing.
    public func record(_ event: RuntimeEvent) {}
}

/// The process-wide default instrument that hosts created without an explicit one use.
///
/// Bootstrap it once at start-up (like swift-log's `LoggingSystem`); hosts read it when they are
/// created, so a recorder bootstrapped later sees only hosts created later.
public enum RuntimeInstrumentation {
    private static let storage = Lock<(any RuntimeInstrument)?>(nil)

    /// Installs `instrument` as the default for hosts created from now on; `nil` removes it.
    public static func bootstrap(_ instrument: (any RuntimeInstrument)?) {
        storage.withLock { $0 = instrument }
    }

    /// The instrument hosts created now get when given none (`nil`: none).
    public static var current: (any RuntimeInstrument)? { storage.withLock { $0 } }
}
