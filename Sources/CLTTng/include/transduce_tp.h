/* The LTTng-UST tracepoint provider `transduce` (TRACING.md, section 2). Not part of the Swift
 * module (module.modulemap lists only clttng.h). Included by clttng.c, which defines the
 * tracepoints with dynamic linkage, and by clttng_probes.c, which creates the probes (registered
 * when liblttng-ust is loaded). Keep it in step with clttng.c and clttng.h. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER transduce

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "transduce_tp.h"

/* Text fields are NUL-terminated strings, not length-prefixed text sequences: babeltrace2 2.0.4
 * (Debian 12) shows an empty text sequence as the previous event's text, so a reader of the trace
 * with babeltrace2 or the bt2 bindings would see wrong labels. clttng.c copies each label into a
 * bounded NUL-terminated buffer (CLTTNG_MAX_TEXT bytes) before the tracepoint. */

#if !defined(TRANSDUCE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TRANSDUCE_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(transduce, runtime_start,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, const char *, transducer_str, const char *, host_str, uint32_t, queue_capacity, const char *, record_tag),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_string(transducer, transducer_str)
        lttng_ust_field_string(host, host_str)
        lttng_ust_field_integer(uint32_t, queue_capacity, queue_capacity)
        /* TRANSDUCE_RECORD_TAG of the process: `trace-view record` sets it for its command, so
         * that its trace shows that command's processes and no others. Not part of the schema. */
        lttng_ust_field_string(record_tag, record_tag)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, runtime_stop,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, const char *, reason, const char *, error_str),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_string(reason, reason)
        lttng_ust_field_string(error, error_str)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, dispatch,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, dispatch, const char *, style, const char *, event_str, uint64_t, origin_task, uint32_t, queue_depth),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, dispatch, dispatch)
        lttng_ust_field_string(style, style)
        lttng_ust_field_string(event, event_str)
        lttng_ust_field_integer(uint64_t, origin_task, origin_task)
        lttng_ust_field_integer(uint32_t, queue_depth, queue_depth)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, dispatch_rejected,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, dispatch, const char *, style, const char *, event_str, const char *, reason),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, dispatch, dispatch)
        lttng_ust_field_string(style, style)
        lttng_ust_field_string(event, event_str)
        lttng_ust_field_string(reason, reason)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, cycle_enter,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, cycle, uint64_t, dispatch, uint64_t, waited_ns, uint32_t, queue_depth),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, cycle, cycle)
        lttng_ust_field_integer(uint64_t, dispatch, dispatch)
        lttng_ust_field_integer(uint64_t, waited_ns, waited_ns)
        lttng_ust_field_integer(uint32_t, queue_depth, queue_depth)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, transduce,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, cycle, uint32_t, step, const char *, event_str),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, cycle, cycle)
        lttng_ust_field_integer(uint32_t, step, step)
        lttng_ust_field_string(event, event_str)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, effect,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, cycle, uint32_t, step, const char *, effect_kind, const char *, task_str, uint64_t, duration_ns),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, cycle, cycle)
        lttng_ust_field_integer(uint32_t, step, step)
        lttng_ust_field_string(effect_kind, effect_kind)
        lttng_ust_field_string(task, task_str)
        lttng_ust_field_integer(uint64_t, duration_ns, duration_ns)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, cycle_leave,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, cycle, const char *, outcome, uint32_t, steps, uint64_t, held_ns),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, cycle, cycle)
        lttng_ust_field_string(outcome, outcome)
        lttng_ust_field_integer(uint32_t, steps, steps)
        lttng_ust_field_integer(uint64_t, held_ns, held_ns)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, task_spawn,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, task, const char *, name_str, const char *, policy, uint64_t, cycle, uint32_t, waiters, uint64_t, replaces),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_string(name, name_str)
        lttng_ust_field_string(policy, policy)
        lttng_ust_field_integer(uint64_t, cycle, cycle)
        lttng_ust_field_integer(uint32_t, waiters, waiters)
        lttng_ust_field_integer(uint64_t, replaces, replaces)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, task_join,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, task, uint64_t, dispatch),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_integer(uint64_t, dispatch, dispatch)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, task_cancel,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, task, const char *, reason),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_string(reason, reason)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, task_settle,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, task, const char *, outcome, const char *, label_str, uint64_t, ran_ns),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_string(outcome, outcome)
        lttng_ust_field_string(label, label_str)
        lttng_ust_field_integer(uint64_t, ran_ns, ran_ns)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, request_resume,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, dispatch, const char *, outcome, const char *, error_str, uint64_t, by_cycle, uint64_t, by_task, uint64_t, latency_ns),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, dispatch, dispatch)
        lttng_ust_field_string(outcome, outcome)
        lttng_ust_field_string(error, error_str)
        lttng_ust_field_integer(uint64_t, by_cycle, by_cycle)
        lttng_ust_field_integer(uint64_t, by_task, by_task)
        lttng_ust_field_integer(uint64_t, latency_ns, latency_ns)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, event_dropped,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, cycle, const char *, event_str, const char *, reason),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, cycle, cycle)
        lttng_ust_field_string(event, event_str)
        lttng_ust_field_string(reason, reason)
    )
)

#endif /* TRANSDUCE_TP_H */

#include <lttng/tracepoint-event.h>
