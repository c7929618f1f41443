/* The LTTng-UST tracepoint provider `transduce` (TheTraceContract.md in TransduceTrace's documentation). Not part of the Swift
 * module (module.modulemap lists only clttng.h). Included by clttng.c, which defines the
 * tracepoints with dynamic linkage, and by clttng_probes.c, which creates the probes (registered
 * when liblttng-ust is loaded). Keep it in step with clttng.c and clttng.h. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER transduce

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "transduce_tp.h"

/* Text fields are length-prefixed text sequences (no copy at the call site), and an empty text
 * is never written empty but as "∅" (U+2205 EMPTY SET): babeltrace2 2.0.4 (Debian 12) clears a
 * string field for an empty text without writing its terminator, so `babeltrace2` and the bt2
 * bindings would show the previous event's text there (a NUL byte fares no better: decoding stops
 * at it). CTFTraceReader reads "∅" back as the empty label (so a label that is "∅" itself reads
 * as empty: the one text LTTng traces cannot carry). */

#if !defined(TRANSDUCE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TRANSDUCE_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(transduce, runtime_start,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, const char *, transducer_ptr, uint32_t, transducer_len, const char *, host_ptr, uint32_t, host_len, uint32_t, queue_capacity, const char *, tag_ptr, uint32_t, tag_len),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_sequence_text(char, transducer, transducer_ptr, uint32_t, transducer_len)
        lttng_ust_field_sequence_text(char, host, host_ptr, uint32_t, host_len)
        lttng_ust_field_integer(uint32_t, queue_capacity, queue_capacity)
        /* TRANSDUCE_RECORD_TAG of the process: `trace-view record` sets it for its command, so
         * that its trace shows that command's processes and no others. Not part of the schema. */
        lttng_ust_field_sequence_text(char, record_tag, tag_ptr, uint32_t, tag_len)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, runtime_stop,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, const char *, reason, const char *, error_ptr, uint32_t, error_len),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_string(reason, reason)
        lttng_ust_field_sequence_text(char, error, error_ptr, uint32_t, error_len)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, dispatch,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, dispatch, const char *, style, const char *, event_ptr, uint32_t, event_len, uint64_t, origin_task, uint32_t, queue_depth),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, dispatch, dispatch)
        lttng_ust_field_string(style, style)
        lttng_ust_field_sequence_text(char, event, event_ptr, uint32_t, event_len)
        lttng_ust_field_integer(uint64_t, origin_task, origin_task)
        lttng_ust_field_integer(uint32_t, queue_depth, queue_depth)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, dispatch_rejected,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, dispatch, const char *, style, const char *, event_ptr, uint32_t, event_len, const char *, reason),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, dispatch, dispatch)
        lttng_ust_field_string(style, style)
        lttng_ust_field_sequence_text(char, event, event_ptr, uint32_t, event_len)
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
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, cycle, uint32_t, step, const char *, event_ptr, uint32_t, event_len),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, cycle, cycle)
        lttng_ust_field_integer(uint32_t, step, step)
        lttng_ust_field_sequence_text(char, event, event_ptr, uint32_t, event_len)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, effect,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, cycle, uint32_t, step, const char *, effect_kind, const char *, task_ptr, uint32_t, task_len, uint64_t, duration_ns),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, cycle, cycle)
        lttng_ust_field_integer(uint32_t, step, step)
        lttng_ust_field_string(effect_kind, effect_kind)
        lttng_ust_field_sequence_text(char, task, task_ptr, uint32_t, task_len)
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
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, task, const char *, name_ptr, uint32_t, name_len, const char *, policy, uint64_t, cycle, uint32_t, waiters, uint64_t, replaces),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_sequence_text(char, name, name_ptr, uint32_t, name_len)
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
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, task, const char *, outcome, const char *, label_ptr, uint32_t, label_len, uint64_t, ran_ns),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_string(outcome, outcome)
        lttng_ust_field_sequence_text(char, label, label_ptr, uint32_t, label_len)
        lttng_ust_field_integer(uint64_t, ran_ns, ran_ns)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, request_resume,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, dispatch, const char *, outcome, const char *, error_ptr, uint32_t, error_len, uint64_t, by_cycle, uint64_t, by_task, uint64_t, latency_ns),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, dispatch, dispatch)
        lttng_ust_field_string(outcome, outcome)
        lttng_ust_field_sequence_text(char, error, error_ptr, uint32_t, error_len)
        lttng_ust_field_integer(uint64_t, by_cycle, by_cycle)
        lttng_ust_field_integer(uint64_t, by_task, by_task)
        lttng_ust_field_integer(uint64_t, latency_ns, latency_ns)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(transduce, event_dropped,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, cycle, const char *, event_ptr, uint32_t, event_len, const char *, reason),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, cycle, cycle)
        lttng_ust_field_sequence_text(char, event, event_ptr, uint32_t, event_len)
        lttng_ust_field_string(reason, reason)
    )
)

/* The W3C trace context a dispatch was made under (the trace id in two halves, the parent span
 * id, the flags), before that dispatch (same thread); only when one was set. */
LTTNG_UST_TRACEPOINT_EVENT(transduce, trace_context,
    LTTNG_UST_TP_ARGS(uint64_t, runtime, uint64_t, dispatch, uint64_t, trace_id_high, uint64_t, trace_id_low, uint64_t, parent_span_id, uint32_t, trace_flags),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, runtime, runtime)
        lttng_ust_field_integer(uint64_t, dispatch, dispatch)
        lttng_ust_field_integer_hex(uint64_t, trace_id_high, trace_id_high)
        lttng_ust_field_integer_hex(uint64_t, trace_id_low, trace_id_low)
        lttng_ust_field_integer_hex(uint64_t, parent_span_id, parent_span_id)
        lttng_ust_field_integer(uint32_t, trace_flags, trace_flags)
    )
)

#endif /* TRANSDUCE_TP_H */

#include <lttng/tracepoint-event.h>
