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
/* The calling thread's kernel thread id, cached per thread after the first call. */
uint32_t clttng_thread_id(void);
/* The same, inline: the per-thread cache lives in the including module. */
static inline uint32_t clttng_thread_id_inline(void) {
    static __thread uint32_t cached;
    if (__builtin_expect(cached == 0, 0)) cached = clttng_thread_id();
    return cached;
}
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t clttng_monotonic_ns(void);

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

/* Ring-buffer slot protocol (a per-slot sequence lock), inline so Swift can inline it.
 * A slot is CLTTNG_SLOT_WORDS words: word 0 is the sequence, then the payload, then the drop word. The sequence
 * of ticket t is 2t+1 while t is being written and 2t+2 once committed. Payload words are
 * accessed with relaxed atomics, so a reader racing a writer never tears silently: it sees a
 * changed sequence and discards what it copied. */
/* (CLTTNG_SLOT_WORDS and CLTTNG_DROP_WORD are in clttng_format.h.) */

/* Claims `slot` for `ticket` and writes `words`. Returns 0 when the slot is still being written
 * by an older ticket or already holds a newer one: the event is dropped, and the slot's drop
 * word says so, so that a drain passes over the ticket instead of waiting for it. */
static inline int clttng_slot_write(uint64_t *slot, uint64_t ticket, const uint64_t *words) {
    uint64_t expected = __atomic_load_n(&slot[0], __ATOMIC_RELAXED);
    uint64_t claim = 2 * ticket + 1;
    if ((expected & 1) != 0 || expected >= claim ||
        !__atomic_compare_exchange_n(&slot[0], &expected, claim, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        __atomic_store_n(&slot[CLTTNG_DROP_WORD], ticket + 1, __ATOMIC_RELEASE);
        return 0;
    }
    __atomic_thread_fence(__ATOMIC_RELEASE);
    for (int i = 0; i < CLTTNG_PAYLOAD_WORDS; i++) __atomic_store_n(&slot[i + 1], words[i], __ATOMIC_RELAXED);
    __atomic_store_n(&slot[0], claim + 1, __ATOMIC_RELEASE);
    return 1;
}

/* Copies the event of `ticket` out of `slot`. Returns 1 when it was whole, 0 when the slot does
 * not (yet) hold it committed, and -1 when a newer ticket overwrote it. */
static inline int clttng_slot_read(const uint64_t *slot, uint64_t ticket, uint64_t *out) {
    uint64_t want = 2 * ticket + 2;
    uint64_t before = __atomic_load_n(&slot[0], __ATOMIC_ACQUIRE);
    if (before != want) return before > want ? -1 : 0;
    for (int i = 0; i < CLTTNG_PAYLOAD_WORDS; i++) out[i] = __atomic_load_n(&slot[i + 1], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    uint64_t after = __atomic_load_n(&slot[0], __ATOMIC_RELAXED);
    return after == want ? 1 : -1;
}

/* 1 when `ticket` was dropped at `slot` by clttng_slot_write. */
static inline int clttng_slot_dropped(const uint64_t *slot, uint64_t ticket) {
    return __atomic_load_n(&slot[CLTTNG_DROP_WORD], __ATOMIC_ACQUIRE) == ticket + 1;
}

#ifdef __cplusplus
}
#endif

#endif /* CLTTNG_H */
