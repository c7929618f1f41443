/// An event a ``BreakdownKeeper`` keeps, with its position: 96 bytes where the position and a
/// ``TraceEvent`` took 136. Its runtime and process are the keeper's (every event it keeps is of
/// one runtime); the host kind and the payload, which few events carry, are held apart.
///
/// At 10M events in 78,126 runtimes, the requests' breakdowns keep up to 500,000 events at once,
/// each runtime's in an array of its own: a third less a kept event is a third less of what the
/// CSV requests table and the OTLP export peak at.
struct KeptEvent {
    var position: Int
    private var time: UInt64
    private var dispatch: UInt64
    private var cycle: UInt64
    private var task: UInt64
    private var otherTask: UInt64
    private var nanos: UInt64
    private var label: String
    /// The host kind and payload, when either is not empty.
    private var extra: Extra?
    private var thread: UInt32
    private var step: UInt32
    private var count: UInt32
    private var kind: TraceEvent.Kind
    private var code: UInt8
    private var code2: UInt8

    private final class Extra {
        let label2: String
        let payload: String
        init(label2: String, payload: String) { (self.label2, self.payload) = (label2, payload) }
    }

    /// `e` at `position` (its runtime and process are left to the keeper).
    init(_ e: TraceEvent, at position: Int) {
        self.position = position
        (time, dispatch, cycle, task, otherTask, nanos) = (e.time, e.dispatch, e.cycle, e.task, e.otherTask, e.nanos)
        label = e.label
        extra = e.label2.isEmpty && e.payload.isEmpty ? nil : Extra(label2: e.label2, payload: e.payload)
        (thread, step, count, kind, code, code2) = (e.thread, e.step, e.count, e.kind, e.code, e.code2)
    }

    /// The event again, of `runtime` in `process`.
    func event(runtime: UInt64, process: UInt32) -> TraceEvent {
        var e = TraceEvent(kind: kind, time: time, thread: thread, runtime: runtime)
        e.process = process
        (e.dispatch, e.cycle, e.task, e.otherTask, e.nanos) = (dispatch, cycle, task, otherTask, nanos)
        (e.step, e.count, e.code, e.code2) = (step, count, code, code2)
        e.label = label
        if let extra { (e.label2, e.payload) = (extra.label2, extra.payload) }
        return e
    }
}
