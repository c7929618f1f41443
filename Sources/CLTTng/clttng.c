/* The provider's wrappers declared in include/clttng.h. */
#define _GNU_SOURCE
#include "clttng.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__) && __has_include(<lttng/tracepoint.h>)
#define CLTTNG_HAVE_LTTNG 1
/* The tracepoint call sites live here, with dynamic linkage; the probes are in clttng_probes.c
 * and register only when clttng_load_lttng() loads liblttng-ust. Until then no session can enable
 * them and nothing of liblttng-ust runs. */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "transduce_tp.h"
#else
#define CLTTNG_HAVE_LTTNG 0
#endif

/* An empty text goes to LTTng as "∅" (see transduce_tp.h for why). */
static const char empty_text[] = "\xE2\x88\x85";
#define CLTTNG_TEXT(ptr, len) ((len) == 0 ? empty_text : (ptr)), ((len) == 0 ? 3u : (len))

int clttng_available(void) { return CLTTNG_HAVE_LTTNG; }

#define CODE_NAME(kind, code) clttng_code_name(CLTTNG_KIND_##kind, (code))

#if CLTTNG_HAVE_LTTNG
int clttng_any_enabled(void) {
    return lttng_ust_tracepoint_enabled(transduce, runtime_start) ||
        lttng_ust_tracepoint_enabled(transduce, runtime_stop) ||
        lttng_ust_tracepoint_enabled(transduce, dispatch) ||
        lttng_ust_tracepoint_enabled(transduce, dispatch_rejected) ||
        lttng_ust_tracepoint_enabled(transduce, cycle_enter) ||
        lttng_ust_tracepoint_enabled(transduce, transduce) ||
        lttng_ust_tracepoint_enabled(transduce, effect) ||
        lttng_ust_tracepoint_enabled(transduce, cycle_leave) ||
        lttng_ust_tracepoint_enabled(transduce, task_spawn) ||
        lttng_ust_tracepoint_enabled(transduce, task_join) ||
        lttng_ust_tracepoint_enabled(transduce, task_cancel) ||
        lttng_ust_tracepoint_enabled(transduce, task_settle) ||
        lttng_ust_tracepoint_enabled(transduce, request_resume) ||
        lttng_ust_tracepoint_enabled(transduce, event_dropped) ||
        lttng_ust_tracepoint_enabled(transduce, trace_context);
}
#else
int clttng_any_enabled(void) { return 0; }
#endif

void clttng_runtime_start(uint64_t runtime, const char *transducer_ptr, uint32_t transducer_len, const char *host_ptr, uint32_t host_len, uint32_t queue_capacity) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, runtime_start)) {
        const char *tag = getenv("TRANSDUCE_RECORD_TAG");
        uint32_t tag_len = tag ? (uint32_t)strlen(tag) : 0;
        lttng_ust_do_tracepoint(transduce, runtime_start, runtime, CLTTNG_TEXT(transducer_ptr, transducer_len), CLTTNG_TEXT(host_ptr, host_len), queue_capacity, CLTTNG_TEXT(tag, tag_len));
    }
#else
    (void)runtime; (void)transducer_ptr; (void)transducer_len; (void)host_ptr; (void)host_len; (void)queue_capacity;
#endif
}

void clttng_runtime_stop(uint64_t runtime, uint8_t reason, const char *error_ptr, uint32_t error_len) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, runtime_stop)) {
        lttng_ust_do_tracepoint(transduce, runtime_stop, runtime, CODE_NAME(RUNTIME_STOP, reason), CLTTNG_TEXT(error_ptr, error_len));
    }
#else
    (void)runtime; (void)reason; (void)error_ptr; (void)error_len;
#endif
}

void clttng_dispatch(uint64_t runtime, uint64_t dispatch, uint8_t style, const char *event_ptr, uint32_t event_len, uint64_t origin_task, uint32_t queue_depth) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, dispatch)) {
        lttng_ust_do_tracepoint(transduce, dispatch, runtime, dispatch, CODE_NAME(DISPATCH, style), CLTTNG_TEXT(event_ptr, event_len), origin_task, queue_depth);
    }
#else
    (void)runtime; (void)dispatch; (void)style; (void)event_ptr; (void)event_len; (void)origin_task; (void)queue_depth;
#endif
}

void clttng_dispatch_rejected(uint64_t runtime, uint64_t dispatch, uint8_t style, const char *event_ptr, uint32_t event_len, uint8_t reason) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, dispatch_rejected)) {
        lttng_ust_do_tracepoint(transduce, dispatch_rejected, runtime, dispatch, CODE_NAME(DISPATCH_REJECTED, style), CLTTNG_TEXT(event_ptr, event_len), clttng_code2_name(CLTTNG_KIND_DISPATCH_REJECTED, reason));
    }
#else
    (void)runtime; (void)dispatch; (void)style; (void)event_ptr; (void)event_len; (void)reason;
#endif
}

void clttng_cycle_enter(uint64_t runtime, uint64_t cycle, uint64_t dispatch, uint64_t waited_ns, uint32_t queue_depth) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, cycle_enter)) {
        lttng_ust_do_tracepoint(transduce, cycle_enter, runtime, cycle, dispatch, waited_ns, queue_depth);
    }
#else
    (void)runtime; (void)cycle; (void)dispatch; (void)waited_ns; (void)queue_depth;
#endif
}

void clttng_transduce(uint64_t runtime, uint64_t cycle, uint32_t step, const char *event_ptr, uint32_t event_len) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, transduce)) {
        lttng_ust_do_tracepoint(transduce, transduce, runtime, cycle, step, CLTTNG_TEXT(event_ptr, event_len));
    }
#else
    (void)runtime; (void)cycle; (void)step; (void)event_ptr; (void)event_len;
#endif
}

void clttng_effect(uint64_t runtime, uint64_t cycle, uint32_t step, uint8_t effect_kind, const char *task_ptr, uint32_t task_len, uint64_t duration_ns) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, effect)) {
        lttng_ust_do_tracepoint(transduce, effect, runtime, cycle, step, CODE_NAME(EFFECT, effect_kind), CLTTNG_TEXT(task_ptr, task_len), duration_ns);
    }
#else
    (void)runtime; (void)cycle; (void)step; (void)effect_kind; (void)task_ptr; (void)task_len; (void)duration_ns;
#endif
}

void clttng_cycle_leave(uint64_t runtime, uint64_t cycle, uint8_t outcome, uint32_t steps, uint64_t held_ns) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, cycle_leave)) {
        lttng_ust_do_tracepoint(transduce, cycle_leave, runtime, cycle, CODE_NAME(CYCLE_LEAVE, outcome), steps, held_ns);
    }
#else
    (void)runtime; (void)cycle; (void)outcome; (void)steps; (void)held_ns;
#endif
}

void clttng_task_spawn(uint64_t runtime, uint64_t task, const char *name_ptr, uint32_t name_len, uint8_t policy, uint64_t cycle, uint32_t waiters, uint64_t replaces) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, task_spawn)) {
        lttng_ust_do_tracepoint(transduce, task_spawn, runtime, task, CLTTNG_TEXT(name_ptr, name_len), CODE_NAME(TASK_SPAWN, policy), cycle, waiters, replaces);
    }
#else
    (void)runtime; (void)task; (void)name_ptr; (void)name_len; (void)policy; (void)cycle; (void)waiters; (void)replaces;
#endif
}

void clttng_task_join(uint64_t runtime, uint64_t task, uint64_t dispatch) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, task_join)) {
        lttng_ust_do_tracepoint(transduce, task_join, runtime, task, dispatch);
    }
#else
    (void)runtime; (void)task; (void)dispatch;
#endif
}

void clttng_task_cancel(uint64_t runtime, uint64_t task, uint8_t reason) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, task_cancel)) {
        lttng_ust_do_tracepoint(transduce, task_cancel, runtime, task, CODE_NAME(TASK_CANCEL, reason));
    }
#else
    (void)runtime; (void)task; (void)reason;
#endif
}

void clttng_task_settle(uint64_t runtime, uint64_t task, uint8_t outcome, const char *label_ptr, uint32_t label_len, uint64_t ran_ns) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, task_settle)) {
        lttng_ust_do_tracepoint(transduce, task_settle, runtime, task, CODE_NAME(TASK_SETTLE, outcome), CLTTNG_TEXT(label_ptr, label_len), ran_ns);
    }
#else
    (void)runtime; (void)task; (void)outcome; (void)label_ptr; (void)label_len; (void)ran_ns;
#endif
}

void clttng_request_resume(uint64_t runtime, uint64_t dispatch, uint8_t outcome, const char *error_ptr, uint32_t error_len, uint64_t by_cycle, uint64_t by_task, uint64_t latency_ns) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, request_resume)) {
        lttng_ust_do_tracepoint(transduce, request_resume, runtime, dispatch, CODE_NAME(REQUEST_RESUME, outcome), CLTTNG_TEXT(error_ptr, error_len), by_cycle, by_task, latency_ns);
    }
#else
    (void)runtime; (void)dispatch; (void)outcome; (void)error_ptr; (void)error_len; (void)by_cycle; (void)by_task; (void)latency_ns;
#endif
}

void clttng_event_dropped(uint64_t runtime, uint64_t cycle, const char *event_ptr, uint32_t event_len, uint8_t reason) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, event_dropped)) {
        lttng_ust_do_tracepoint(transduce, event_dropped, runtime, cycle, CLTTNG_TEXT(event_ptr, event_len), CODE_NAME(EVENT_DROPPED, reason));
    }
#else
    (void)runtime; (void)cycle; (void)event_ptr; (void)event_len; (void)reason;
#endif
}

void clttng_trace_context(uint64_t runtime, uint64_t dispatch, uint64_t trace_id_high, uint64_t trace_id_low, uint64_t parent_span_id, uint32_t trace_flags) {
#if CLTTNG_HAVE_LTTNG
    if (lttng_ust_tracepoint_enabled(transduce, trace_context)) {
        lttng_ust_do_tracepoint(transduce, trace_context, runtime, dispatch, trace_id_high, trace_id_low, parent_span_id, trace_flags);
    }
#else
    (void)runtime; (void)dispatch; (void)trace_id_high; (void)trace_id_low; (void)parent_span_id; (void)trace_flags;
#endif
}
