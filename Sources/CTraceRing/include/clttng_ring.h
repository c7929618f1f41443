#ifndef CLTTNG_RING_H
#define CLTTNG_RING_H

/* The ring buffer's C parts: the per-slot sequence lock its producers and readers use, and the
 * thread and clock reads every event is stamped with (the same CLOCK_MONOTONIC as LTTng's default
 * clock, so the ring's and LTTng's traces of one process line up). */

#include <stdint.h>

#include "clttng_format.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#endif /* CLTTNG_RING_H */
