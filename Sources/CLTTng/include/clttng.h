#ifndef CLTTNG_H
#define CLTTNG_H

/* Plain C wrappers over the LTTng-UST provider `transduce`. Every clttng_<event> function checks
 * its tracepoint's enabled state first and returns at once when no session enables it. Without
 * LTTng-UST (e.g. Apple platforms) every function is a no-op and clttng_available() is 0.
 * Text arguments are (pointer, length) pairs and need not be NUL-terminated. Enumerations are
 * passed as their raw codes (the order of the Swift enums in Transduce). */

#include <stddef.h>
#include <stdint.h>

#include "clttng_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the package was built with LTTng-UST. */
int clttng_available(void);
/* Loads liblttng-ust (dlopen) and registers the probes of the provider `transduce`, which are
 * compiled into this module (clttng_probes.c). Idempotent. Returns 1 on success, else 0 with a
 * message in `error`. */
int clttng_load_lttng(char *error, size_t error_size);
/* 1 when any transduce tracepoint is enabled by a session (a few loads). */
int clttng_any_enabled(void);

void clttng_runtime_start(uint64_t runtime, const char *transducer_ptr, uint32_t transducer_len, const char *host_ptr, uint32_t host_len, uint32_t queue_capacity);
void clttng_runtime_stop(uint64_t runtime, uint8_t reason, const char *error_ptr, uint32_t error_len);
void clttng_dispatch(uint64_t runtime, uint64_t dispatch, uint8_t style, const char *event_ptr, uint32_t event_len, uint64_t origin_task, uint32_t queue_depth);
void clttng_dispatch_rejected(uint64_t runtime, uint64_t dispatch, uint8_t style, const char *event_ptr, uint32_t event_len, uint8_t reason);
void clttng_cycle_enter(uint64_t runtime, uint64_t cycle, uint64_t dispatch, uint64_t waited_ns, uint32_t queue_depth);
void clttng_transduce(uint64_t runtime, uint64_t cycle, uint32_t step, const char *event_ptr, uint32_t event_len);
void clttng_effect(uint64_t runtime, uint64_t cycle, uint32_t step, uint8_t effect_kind, const char *task_ptr, uint32_t task_len, uint64_t duration_ns);
void clttng_cycle_leave(uint64_t runtime, uint64_t cycle, uint8_t outcome, uint32_t steps, uint64_t held_ns);
void clttng_task_spawn(uint64_t runtime, uint64_t task, const char *name_ptr, uint32_t name_len, uint8_t policy, uint64_t cycle, uint32_t waiters, uint64_t replaces);
void clttng_task_join(uint64_t runtime, uint64_t task, uint64_t dispatch);
void clttng_task_cancel(uint64_t runtime, uint64_t task, uint8_t reason);
void clttng_task_settle(uint64_t runtime, uint64_t task, uint8_t outcome, const char *label_ptr, uint32_t label_len, uint64_t ran_ns);
void clttng_request_resume(uint64_t runtime, uint64_t dispatch, uint8_t outcome, const char *error_ptr, uint32_t error_len, uint64_t by_cycle, uint64_t by_task, uint64_t latency_ns);
void clttng_event_dropped(uint64_t runtime, uint64_t cycle, const char *event_ptr, uint32_t event_len, uint8_t reason);
void clttng_trace_context(uint64_t runtime, uint64_t dispatch, uint64_t trace_id_high, uint64_t trace_id_low, uint64_t parent_span_id, uint32_t trace_flags);

#ifdef __cplusplus
}
#endif

#endif /* CLTTNG_H */
