import Transduce

/// Records a scenario in memory for shape assertions and invariant checks.
///
/// ```swift
/// let recording = TraceRecording()
/// let host = BaseRuntime(of: Loader.self, env: api, instrument: recording.instrument)
/// _ = try await host.input.request(.load)
/// try recording.trace().expectShape([...], in: .request("load"))
/// try recording.trace().checkInvariants()
/// ```
public final class TraceRecording: Sendable {
    /// The recorder behind it (ring only, discard-newest, no LTTng).
    public let recorder: TraceRecorder

    /// - Parameter capacity: events kept; a trace that overflowed it is reported as incomplete by
    ///   ``Trace/checkInvariants(complete:)``.
    public init(capacity: Int = 1 << 18) {
        recorder = TraceRecorder(capacity: capacity, mode: .discardNewest, lttng: false)
    }

    /// The instrument to give the hosts under test.
    public var instrument: any RuntimeInstrument { recorder }

    /// Everything recorded so far.
    public func trace() -> Trace { recorder.snapshot() }
}
