/// A dispatch as the invariant rules remember it while it is open: every field a `dispatch` event
/// carries (its time, thread, style, queue depth, origin task, label and payload; its runtime and
/// id are the key it is kept under), in 64 bytes rather than an event's 128. ``event(_:)`` gives
/// the event back whole, as evidence.
///
/// Three rules keep each open dispatch (the admission queue, the causal order, the resume count):
/// a trace of tens of thousands of runtimes open at once has hundreds of thousands open.
struct DispatchStamp: Sendable {
    var time: UInt64
    var otherTask: UInt64
    var thread: UInt32
    var count: UInt32
    var code: UInt8
    var label: String
    var payload: String

    init(_ e: TraceEvent) {
        time = e.time
        otherTask = e.otherTask
        thread = e.thread
        count = e.count
        code = e.code
        label = e.label
        payload = e.payload
    }

    /// The dispatch event of `key` (its runtime and dispatch id).
    func event(_ key: TraceIndex.Key) -> TraceEvent {
        var e = TraceEvent(kind: .dispatch, time: time, thread: thread, runtime: key.runtime.runtime)
        e.process = key.runtime.process
        e.dispatch = key.id
        e.otherTask = otherTask
        e.count = count
        e.code = code
        e.label = label
        e.payload = payload
        return e
    }

    /// Its style's name (``TraceEvent/codeName`` of its event).
    var codeName: String { TraceNames.codeName(kind: .dispatch, code: code) }
}
