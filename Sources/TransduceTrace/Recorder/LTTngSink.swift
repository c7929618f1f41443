import CLTTng
import Transduce

/// Forwards runtime events to the LTTng-UST provider `transduce`. Each wrapper checks its own
/// tracepoint's enabled state first.
enum LTTngSink {
    static func emit(_ event: RuntimeEvent) {
        let runtime = event.runtime.rawValue
        switch event.detail {
        case .runtimeStart(let transducer, let host, let capacity):
            text(transducer) { t, tl in
                text(host) { h, hl in clttng_runtime_start(runtime, t, tl, h, hl, UInt32(clamping: capacity)) }
            }
        case .runtimeStop(let reason, let error):
            text(error) { e, el in clttng_runtime_stop(runtime, reason.rawValue, e, el) }
        case .dispatch(let dispatch, let style, let label, let origin, let depth):
            text(label) { l, ll in
                clttng_dispatch(runtime, dispatch, style.rawValue, l, ll, origin, UInt32(clamping: depth))
            }
        case .dispatchRejected(let dispatch, let style, let label, let reason):
            text(label) { l, ll in clttng_dispatch_rejected(runtime, dispatch, style.rawValue, l, ll, reason.rawValue) }
        case .cycleEnter(let cycle, let dispatch, let waited, let depth):
            clttng_cycle_enter(runtime, cycle, dispatch, waited, UInt32(clamping: depth))
        case .transduce(let cycle, let step, let label):
            text(label) { l, ll in clttng_transduce(runtime, cycle, UInt32(clamping: step), l, ll) }
        case .effect(let cycle, let step, let kind, let task, let duration):
            text(task.map { EventLabel($0.description) }) { t, tl in
                clttng_effect(runtime, cycle, UInt32(clamping: step), kind.rawValue, t, tl, duration)
            }
        case .cycleLeave(let cycle, let outcome, let steps, let held):
            clttng_cycle_leave(runtime, cycle, outcome.rawValue, UInt32(clamping: steps), held)
        case .taskSpawn(let task, let name, let policy, let cycle, let waiters, let replaces):
            text(name.map { EventLabel($0.description) }) { n, nl in
                clttng_task_spawn(runtime, task, n, nl, policy.rawValue, cycle, UInt32(clamping: waiters), replaces)
            }
        case .taskJoin(let task, let dispatch):
            clttng_task_join(runtime, task, dispatch)
        case .taskCancel(let task, let reason):
            clttng_task_cancel(runtime, task, reason.rawValue)
        case .taskSettle(let task, let outcome, let label, let ran):
            text(label) { l, ll in clttng_task_settle(runtime, task, outcome.rawValue, l, ll, ran) }
        case .requestResume(let dispatch, let outcome, let error, let byCycle, let byTask, let latency):
            text(error) { e, el in
                clttng_request_resume(runtime, dispatch, outcome.rawValue, e, el, byCycle, byTask, latency)
            }
        case .eventDropped(let cycle, let label, let reason):
            text(label) { l, ll in clttng_event_dropped(runtime, cycle, l, ll, reason.rawValue) }
        }
    }

    @inline(__always)
    private static func text(_ label: EventLabel?, _ body: (UnsafePointer<CChar>?, UInt32) -> Void) {
        guard let label else { return body(nil, 0) }
        label.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress, UInt32(clamping: $0.count)) }
        }
    }
}
