import Synchronization

/// The receiver of the runtime's diagnostics: one call per instrumentation point.
///
/// `Transduce` owns only this protocol; recorders (ring buffer, LTTng, test recorders) live in
/// other modules. A host reads ``isRecording`` at each point first and prepares nothing (no clock
/// read, no label, no allocation) when it is `false`. An event is a flat value of plain words
/// (``RuntimeEvent``), so taking it costs its copy; the dispatched value itself comes only to an
/// instrument that asks for it (``capturesPayloads``), through ``record(_:payload:)``.
///
/// Lifetime: a host holds its instrument strongly for its own life (no weak reference, so no
/// side-table reference counting on every point); an instrument must not hold its hosts.
///
/// Thread-safety: the record calls come from any thread, concurrently, sometimes while the
/// runtime holds its control lock; they must not block and must not call back into the runtime.
///
/// A test instrument is a class with the two members:
///
/// ```swift
/// final class Kinds: RuntimeInstrument {
///     let seen = Mutex<[RuntimeEvent.Kind]>([])
///     var isRecording: Bool { true }
///     func record(_ event: RuntimeEvent) { seen.withLock { $0.append(event.kind) } }
/// }
/// ```
public protocol RuntimeInstrument: AnyObject, Sendable {
    /// Whether events are wanted right now. Read on every instrumentation point; keep it to one
    /// relaxed atomic load.
    var isRecording: Bool { get }
    /// Whether the events that carry a dispatched or transduced event value (dispatch,
    /// dispatchRejected, transduce, eventDropped) should come with it, through
    /// ``record(_:payload:)``. Boxing a payload may allocate, so this is off unless a recorder
    /// opts in. Read once, when a host is created.
    var capturesPayloads: Bool { get }
    /// Whether each `cycleLeave` should come with the state the cycle committed, through
    /// ``record(_:state:)``: for replaying a trace (a state to start from, or to check against).
    /// Read once, when a host is created. Off unless a recorder opts in.
    var capturesStates: Bool { get }
    /// Takes one event, on the thread that produced it; called only while ``isRecording`` was
    /// `true` at that point.
    func record(_ event: RuntimeEvent)
    /// Takes one event with the event value it concerns; called instead of ``record(_:)`` for
    /// those kinds when ``capturesPayloads`` is `true`. By default, drops the payload.
    func record(_ event: RuntimeEvent, payload: any Sendable)
    /// Takes a `cycleLeave` with the state the cycle committed; called instead of ``record(_:)``
    /// when ``capturesStates`` is `true`. Runs on the host's isolation, synchronously: `state`
    /// may be read here and must not be kept (it need not be `Sendable`). By default, drops it.
    func record(_ event: RuntimeEvent, state: Any)
}

extension RuntimeInstrument {
    public var capturesPayloads: Bool { false }
    public var capturesStates: Bool { false }
    public func record(_ event: RuntimeEvent, payload: any Sendable) { record(event) }
    public func record(_ event: RuntimeEvent, state: Any) { record(event) }
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
