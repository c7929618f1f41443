#ifndef CLTTNG_RING_H
#define CLTTNG_RING_H

/* The ring buffer's C parts: the per-slot sequence lock its producers and readers use, and the
 * thread id every event is stamped with (its time comes from CTransduceClock, the runtime's
 * clock: CLOCK_MONOTONIC, LTTng's default clock, so the ring's and LTTng's traces of one process
 * line up). */

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

/* Ring-buffer slot protocol (a per-slot sequence lock), inline so Swift can inline it.
 * A slot is CLTTNG_SLOT_WORDS words: word 0 is the sequence, then the payload, then the drop word. The sequence
 * of ticket t is 2t+1 while t is being written and 2t+2 once committed. Payload words are
 * accessed with relaxed atomics, so a reader racing a writer never tears silently: it sees a
 * changed sequence and discards what it copied. */
/* (CLTTNG_SLOT_WORDS and CLTTNG_DROP_WORD are in clttng_format.h.) */

/* Claims `slot` for `ticket`: returns the claim to commit with, or 0 when the slot is still
 * being written by an older ticket or already holds a newer one. Then the event is dropped, and
 * the slot's drop word says so, so that a drain passes over the ticket instead of waiting for
 * it. Claim and commit are apart so that a caller reads the words it commits after the claim,
 * not before (where they would be kept across its atomics). */
static inline uint64_t clttng_slot_claim(uint64_t *slot, uint64_t ticket) {
    uint64_t expected = __atomic_load_n(&slot[0], __ATOMIC_RELAXED);
    uint64_t claim = 2 * ticket + 1;
    if ((expected & 1) != 0 || expected >= claim ||
        !__atomic_compare_exchange_n(&slot[0], &expected, claim, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        __atomic_store_n(&slot[CLTTNG_DROP_WORD], ticket + 1, __ATOMIC_RELEASE);
        return 0;
    }
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return claim;
}

/* Writes the payload words w0…w10 (CLTTNG_PAYLOAD_WORDS of them, by value: a words array would
 * be built in memory first and copied again) into `slot`, claimed by clttng_slot_claim, and
 * commits them. */
static inline void clttng_slot_commit(uint64_t *slot, uint64_t claim, uint64_t w0, uint64_t w1, uint64_t w2,
                                      uint64_t w3, uint64_t w4, uint64_t w5, uint64_t w6, uint64_t w7, uint64_t w8,
                                      uint64_t w9, uint64_t w10) {
    _Static_assert(CLTTNG_PAYLOAD_WORDS == 11, "clttng_slot_commit takes every payload word");
    __atomic_store_n(&slot[1], w0, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[2], w1, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[3], w2, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[4], w3, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[5], w4, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[6], w5, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[7], w6, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[8], w7, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[9], w8, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[10], w9, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[11], w10, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[0], claim + 1, __ATOMIC_RELEASE);
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

/* 1 when `ticket` was dropped at `slot` by clttng_slot_claim. */
static inline int clttng_slot_dropped(const uint64_t *slot, uint64_t ticket) {
    return __atomic_load_n(&slot[CLTTNG_DROP_WORD], __ATOMIC_ACQUIRE) == ticket + 1;
}

#ifdef __cplusplus
}
#endif

#endif /* CLTTNG_RING_H */
