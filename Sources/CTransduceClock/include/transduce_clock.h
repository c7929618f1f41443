#ifndef TRANSDUCE_CLOCK_H
#define TRANSDUCE_CLOCK_H

/* The runtime's clock (Transduce's MonotonicClock): nanoseconds of CLOCK_MONOTONIC, the clock
 * LTTng stamps its events with, read from the processor's time-stamp counter where that is safe
 * and from clock_gettime elsewhere. transduce_clock.c says when and how. */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The scale from counter ticks to nanoseconds, under a sequence lock of its own: `sequence` is
 * odd while the one writer changes the rest. Past `until` a read takes the slow path: to measure
 * the offset again, and always while `until` is 0 (before calibration, and where the counter is
 * not used). */
typedef struct {
    uint64_t sequence;
    uint64_t tsc;   /* the counter at the base */
    uint64_t ns;    /* the time at the base */
    uint64_t mult;  /* nanoseconds a tick, times 2^32 */
    uint64_t until; /* the counter value past which reads take the slow path */
} transduce_clock_scale;

extern transduce_clock_scale transduce_clock_shared;

/* clock_gettime(CLOCK_MONOTONIC) in nanoseconds. */
uint64_t transduce_clock_monotonic(void);
/* A read past the fast path: decides which clock to use, calibrates the counter, measures its
 * offset again, or reads clock_gettime. */
uint64_t transduce_clock_slow(void);
/* 1 when reads come from the counter (once it is calibrated), 0 when from clock_gettime. */
int transduce_clock_uses_counter(void);
/* Reads the clock (a read a millisecond) until it reads the counter, until it has decided not
 * to, or for `within_ns` at most: for benchmarks and tests that must not count or check the
 * calibration's clock_gettime reads. Returns transduce_clock_uses_counter(). */
int transduce_clock_await_counter(uint64_t within_ns);

/* The time at counter value `tsc` by a scale's base and rate. A counter read racing a new base
 * can come out a few ticks before it: it reads as the base. */
static inline uint64_t transduce_clock_scaled(uint64_t base_tsc, uint64_t base_ns, uint64_t mult, uint64_t tsc) {
    uint64_t ticks = tsc > base_tsc ? tsc - base_tsc : 0;
    return base_ns + (uint64_t)(((unsigned __int128)ticks * mult) >> 32);
}

#if defined(__x86_64__)
/* The time by the published scale, read under its sequence lock, into *time: 1 when the scale
 * was whole and, with `within` (a constant), the counter within its interval; 0 when the read
 * must take another way (the scale being written, not calibrated yet, or past its interval). */
static inline int transduce_clock_by_scale(int within, uint64_t *time) {
    const transduce_clock_scale *s = &transduce_clock_shared;
    uint64_t sequence = __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE);
    uint64_t base = __atomic_load_n(&s->tsc, __ATOMIC_RELAXED);
    uint64_t ns = __atomic_load_n(&s->ns, __ATOMIC_RELAXED);
    uint64_t mult = __atomic_load_n(&s->mult, __ATOMIC_RELAXED);
    uint64_t until = __atomic_load_n(&s->until, __ATOMIC_RELAXED);
    uint64_t now = __builtin_ia32_rdtsc();
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    /* `until` is 0 until the counter is calibrated, and stays 0 where it is not used. */
    int unusable = within ? now > until : mult == 0;
    if (__builtin_expect(((sequence & 1) | unusable | (__atomic_load_n(&s->sequence, __ATOMIC_RELAXED) != sequence)) != 0, 0))
        return 0;
    *time = transduce_clock_scaled(base, ns, mult, now);
    return 1;
}
#endif

/* The current time in nanoseconds of CLOCK_MONOTONIC (within about a microsecond when read from
 * the counter). Never blocks, never allocates. */
static inline uint64_t transduce_clock_now(void) {
#if defined(__x86_64__)
    uint64_t time;
    if (__builtin_expect(transduce_clock_by_scale(1, &time), 1)) return time;
    return transduce_clock_slow();
#else
    return transduce_clock_monotonic();
#endif
}

#ifdef __cplusplus
}
#endif

#endif /* TRANSDUCE_CLOCK_H */
