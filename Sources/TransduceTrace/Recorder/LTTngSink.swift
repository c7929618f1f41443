import CLTTng
import Transduce

/// Forwards runtime events to the LTTng-UST provider `transduce`, field by field of the flat
/// event. Each wrapper checks its own tracepoint's enabled state first.
enum LTTngSink {
    static func emit(_ e: RuntimeEvent) {
        let runtime = e.runtime.rawValue
        switch e.kind {
        case .runtimeStart:
            text(e.label) { t, tl in text(e.label2) { h, hl in clttng_runtime_start(runtime, t, tl, h, hl, e.count) } }
        case .runtimeStop:
            text(e.label) { l, ll in clttng_runtime_stop(runtime, e.code, l, ll) }
        case .dispatch:
            text(e.label) { l, ll in clttng_dispatch(runtime, e.dispatch, e.code, l, ll, e.otherTask, e.count) }
        case .dispatchRejected:
            text(e.label) { l, ll in clttng_dispatch_rejected(runtime, e.dispatch, e.code, l, ll, e.code2) }
        case .cycleEnter:
            clttng_cycle_enter(runtime, e.cycle, e.dispatch, e.nanos, e.count)
        case .transduce:
            text(e.label) { l, ll in clttng_transduce(runtime, e.cycle, e.step, l, ll) }
        case .effect:
            text(e.label) { l, ll in clttng_effect(runtime, e.cycle, e.step, e.code, l, ll, e.nanos) }
        case .cycleLeave:
            clttng_cycle_leave(runtime, e.cycle, e.code, e.step, e.nanos)
        case .taskSpawn:
            text(e.label) { l, ll in clttng_task_spawn(runtime, e.task, l, ll, e.code, e.cycle, e.count, e.otherTask) }
        case .taskJoin:
            clttng_task_join(runtime, e.task, e.dispatch)
        case .taskCancel:
            clttng_task_cancel(runtime, e.task, e.code)
        case .taskSettle:
            text(e.label) { l, ll in clttng_task_settle(runtime, e.task, e.code, l, ll, e.nanos) }
        case .requestResume:
            text(e.label) { l, ll in
                clttng_request_resume(runtime, e.dispatch, e.code, l, ll, e.cycle, e.task, e.nanos)
            }
        case .eventDropped:
            text(e.label) { l, ll in clttng_event_dropped(runtime, e.cycle, l, ll, e.code) }
        case .traceContext:
            clttng_trace_context(runtime, e.dispatch, e.cycle, e.task, e.otherTask, e.count)
        }
    }

    /// Calls `body` with the label's bytes (`nil`, 0 for the empty label).
    @inline(__always)
    private static func text(_ label: EventLabel, _ body: (UnsafePointer<CChar>?, UInt32) -> Void) {
        guard label.bits != 0 else { return body(nil, 0) }
        label.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress, UInt32(clamping: $0.count)) }
        }
    }
}
