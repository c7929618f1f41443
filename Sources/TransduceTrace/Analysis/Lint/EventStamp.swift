/// An event as the invariant rules remember it while they keep it, for a `dispatch` or a
/// `runtimeStop`: every field those kinds carry but their runtime and dispatch id (which are the
/// key it is kept under), in 64 bytes rather than an event's 128. ``event(runtime:dispatch:)``
/// gives the event back whole, as evidence.
///
/// Three rules keep each open dispatch (the admission queue, the causal order, the resume count)
/// and one keeps every stopped runtime's stop: a trace of tens of thousands of runtimes open at
/// once has hundreds of thousands of them.
struct EventStamp: Sendable {
    var kind: TraceEvent.Kind
    var code: UInt8
    var thread: UInt32
    var count: UInt32
    var time: UInt64
    var otherTask: UInt64
    var label: String
    var payload: String

    init(_ e: TraceEvent) {
        kind = e.kind
        code = e.code
        thread = e.thread
        count = e.count
        time = e.time
        otherTask = e.otherTask
        label = e.label
        payload = e.payload
    }

    /// The event of `runtime` (and `dispatch`, for a dispatch's stamp).
    func event(runtime: RuntimeKey, dispatch: UInt64 = 0) -> TraceEvent {
        var e = TraceEvent(kind: kind, time: time, thread: thread, runtime: runtime.runtime)
        e.process = runtime.process
        e.dispatch = dispatch
        e.otherTask = otherTask
        e.count = count
        e.code = code
        e.label = label
        e.payload = payload
        return e
    }

    /// Its code's name (``TraceEvent/codeName`` of its event).
    var codeName: String { TraceNames.codeName(kind: kind, code: code) }
}
