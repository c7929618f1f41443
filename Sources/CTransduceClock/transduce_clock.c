/* The runtime's clock, declared in include/transduce_clock.h.
 *
 * Every recorded event is stamped, about six times a recorded send. clock_gettime through the
 * vDSO costs about 34 ns here (35 instructions): a sequence-counter read, a serialized counter
 * read and a scaling. Where the kernel itself keeps CLOCK_MONOTONIC on the time-stamp counter,
 * this does the same scaling on an unserialized counter read, with the scale in a sequence lock
 * of its own: about 14 ns.
 *
 * When: x86-64, a counter the processor says is invariant (CPUID 0x80000007, EDX bit 8: it ticks
 * at one rate in every power state), and the kernel's current clock source "tsc" (the kernel
 * checked that the counters of all processors agree, and keeps checking: it leaves "tsc" when
 * they stop agreeing, and then so does every process started afterwards). Elsewhere, or with
 * TRANSDUCE_CLOCK=monotonic in the environment, every read is clock_gettime's.
 *
 * How it stays on CLOCK_MONOTONIC: until 50 ms after the first read, reads are clock_gettime's;
 * then the scale is the ratio of the two clocks over those 50 ms. Every 50 ms, the first read
 * past the interval measures the offset between the two clocks again (a clock_gettime read
 * bracketed by two counter reads) and sets the next interval's rate to the rate measured over
 * the last one plus what cancels the offset by the interval's end: a slew, so the time never
 * jumps. An offset over 100 µs (the process was stopped for long, or the system clock's rate was
 * changed hard) is stepped instead. Drift within an interval is the rate change the kernel's NTP
 * discipline makes in 50 ms: a microsecond at 20 ppm. Reads never wait for the one thread that
 * measures; they use the scale they find. */
#define _GNU_SOURCE
#include "transduce_clock.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

transduce_clock_scale transduce_clock_shared __attribute__((aligned(64)));

uint64_t transduce_clock_monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)

enum { UNDECIDED = 0, CALIBRATING = 1, COUNTER = 2, MONOTONIC = 3 };

#define CALIBRATION_NS 50000000u /* the first scale's baseline */
#define INTERVAL_NS 50000000u    /* how often the offset is measured */
#define WIDEST_PAIR_TICKS 500u   /* a pair read this narrow was not interrupted */
#define SLEW_LIMIT_NS 100000     /* offsets beyond this are stepped */
#define MOST_FAILURES 64         /* interrupted measurements before calibration gives up */

static int state;  /* UNDECIDED…MONOTONIC, atomic */
static char busy;  /* the flag of the one thread that writes the scale */
/* Only the thread holding `busy` touches these: the last pair measured and its bracket, the narrowest bracket
 * measured yet, and the measurements interrupted before the counter was calibrated. */
static uint64_t last_tsc, last_ns, last_width;
static uint64_t narrowest_seen = UINT64_MAX;
static int failures;

static int counter_is_safe(void) {
    const char *choice = getenv("TRANSDUCE_CLOCK");
    if (choice != NULL && strcmp(choice, "monotonic") == 0) return 0;
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d) || (d & (1u << 8)) == 0) return 0;
    char source[16] = {0};
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, source, sizeof source - 1);
    close(fd);
    return n >= 3 && strncmp(source, "tsc", 3) == 0 && (source[3] == '\n' || source[3] == 0);
}

/* Whether a pair read in a bracket of `width` ticks was not interrupted: the bracket is within
 * WIDEST_PAIR_TICKS or within twice the narrowest bracket measured yet. */
static int clean(uint64_t width) { return width <= WIDEST_PAIR_TICKS || width / 2 <= narrowest_seen; }

/* A counter value and the CLOCK_MONOTONIC time read at it: the narrowest of five brackets, all
 * serialized; returns the bracket's width (clean() says whether the thread was interrupted). A
 * pair is off by at most half its bracket.
 * The narrowest bracket is under 200 ticks on the machine this was built on, busy or not, so
 * two pairs 50 ms apart give a rate within 4 ppm: 0.2 µs by the interval's end. The second
 * bound is for where clock_gettime itself takes longer (under valgrind, about 3,000 ticks): the
 * clock is less exact there, but still the counter's. */
static uint64_t measure(uint64_t *tsc, uint64_t *ns) {
    uint64_t narrowest = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        __builtin_ia32_lfence();
        uint64_t before = __builtin_ia32_rdtsc();
        __builtin_ia32_lfence();
        uint64_t mono = transduce_clock_monotonic();
        __builtin_ia32_lfence();
        uint64_t after = __builtin_ia32_rdtsc();
        if (after - before < narrowest) {
            narrowest = after - before;
            *tsc = before + (after - before) / 2;
            *ns = mono;
        }
    }
    if (narrowest < narrowest_seen) narrowest_seen = narrowest;
    return narrowest;
}

static uint64_t scaled(const transduce_clock_scale *s, uint64_t tsc) {
    return transduce_clock_scaled(s->tsc, s->ns, s->mult, tsc);
}

/* In a child forked while another thread of the parent held `busy` (or was publishing), the
 * flag would stay held and the scale would never be measured again: every child starts the
 * clock's machine over, on its one thread. */
static void restart_in_child(void) {
    memset(&transduce_clock_shared, 0, sizeof transduce_clock_shared);
    __atomic_store_n(&state, UNDECIDED, __ATOMIC_RELAXED);
    __atomic_clear(&busy, __ATOMIC_RELAXED);
    narrowest_seen = UINT64_MAX;
    failures = 0;
}

/* Ticks in INTERVAL_NS at `mult`. */
static uint64_t interval_ticks(uint64_t mult) {
    return (uint64_t)(((unsigned __int128)INTERVAL_NS << 32) / mult);
}

/* Only the thread holding `busy` calls this. */
static void publish(uint64_t tsc, uint64_t ns, uint64_t mult, uint64_t until) {
    transduce_clock_scale *s = &transduce_clock_shared;
    uint64_t sequence = __atomic_load_n(&s->sequence, __ATOMIC_RELAXED);
    __atomic_store_n(&s->sequence, sequence + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&s->tsc, tsc, __ATOMIC_RELAXED);
    __atomic_store_n(&s->ns, ns, __ATOMIC_RELAXED);
    __atomic_store_n(&s->mult, mult, __ATOMIC_RELAXED);
    __atomic_store_n(&s->until, until, __ATOMIC_RELAXED);
    __atomic_store_n(&s->sequence, sequence + 2, __ATOMIC_RELEASE);
}

/* The time by the published scale, whatever its interval, or clock_gettime's when the scale is
 * being written: for the reads that find another thread measuring. */
static uint64_t by_scale(void) {
    uint64_t time;
    for (int attempt = 0; attempt < 4; attempt++)
        if (transduce_clock_by_scale(0, &time)) return time;
    return transduce_clock_monotonic();
}

/* One step of the clock's machine, by the thread holding `busy`. */
static uint64_t advance(void) {
    switch (__atomic_load_n(&state, __ATOMIC_ACQUIRE)) {
    case UNDECIDED: {
        static int forks_watched;
        if (!counter_is_safe()) {
            __atomic_store_n(&state, MONOTONIC, __ATOMIC_RELEASE);
            return transduce_clock_monotonic();
        }
        if (!forks_watched) forks_watched = pthread_atfork(NULL, NULL, restart_in_child) == 0;
        last_width = measure(&last_tsc, &last_ns);
        __atomic_store_n(&state, CALIBRATING, __ATOMIC_RELEASE);
        return transduce_clock_monotonic();
    }
    case CALIBRATING: {
        uint64_t mono = transduce_clock_monotonic();
        uint64_t tsc, ns;
        if (mono - last_ns < CALIBRATION_NS) return mono;
        uint64_t width = measure(&tsc, &ns);
        if (!clean(width) || tsc <= last_tsc) {
            /* Never measuring cleanly (a machine too loaded to read two clocks in a row) must
             * not cost every read a measurement forever. */
            if (++failures >= MOST_FAILURES) __atomic_store_n(&state, MONOTONIC, __ATOMIC_RELEASE);
            return mono;
        }
        if (!clean(last_width)) {
            /* The first pair was interrupted (it set the bound it is judged by): start over. */
            last_tsc = tsc;
            last_ns = ns;
            last_width = width;
            return mono;
        }
        uint64_t mult = (uint64_t)(((unsigned __int128)(ns - last_ns) << 32) / (tsc - last_tsc));
        if (mult == 0) {
            __atomic_store_n(&state, MONOTONIC, __ATOMIC_RELEASE);
            return mono;
        }
        publish(tsc, ns, mult, tsc + interval_ticks(mult));
        last_tsc = tsc;
        last_ns = ns;
        __atomic_store_n(&state, COUNTER, __ATOMIC_RELEASE);
        return mono;
    }
    case COUNTER: {
        transduce_clock_scale current = transduce_clock_shared; /* this thread is its only writer */
        uint64_t now = __builtin_ia32_rdtsc();
        /* A read that raced a publish comes here too: the new scale holds. Measuring again so
         * soon would take the next rate from a few microseconds of counter, where the pairs'
         * own spread is tens of ppm: microseconds off by the interval's end. */
        if (now <= current.until) return scaled(&current, now);
        uint64_t tsc, ns;
        if (!clean(measure(&tsc, &ns)) || tsc <= last_tsc) {
            /* Interrupted: keep the scale a millisecond more, and measure then. */
            publish(current.tsc, current.ns, current.mult, current.until + interval_ticks(current.mult) / 50);
            return by_scale();
        }
        uint64_t estimate = scaled(&current, tsc);
        int64_t offset = (int64_t)(ns - estimate);
        uint64_t rate = (uint64_t)(((unsigned __int128)(ns - last_ns) << 32) / (tsc - last_tsc));
        if (rate == 0) rate = current.mult;
        uint64_t ticks = interval_ticks(rate);
        uint64_t base = ns;
        uint64_t mult = rate;
        if (offset <= SLEW_LIMIT_NS && offset >= -SLEW_LIMIT_NS) {
            /* Continue from the estimate, at the rate that cancels the offset by the interval's end. */
            base = estimate;
            int64_t correction = (int64_t)(((__int128)offset << 32) / (__int128)ticks);
            mult = (uint64_t)((int64_t)rate + correction);
        }
        publish(tsc, base, mult, tsc + ticks);
        last_tsc = tsc;
        last_ns = ns;
        return by_scale();
    }
    default:
        return transduce_clock_monotonic();
    }
}

uint64_t transduce_clock_slow(void) {
    int current = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (current == MONOTONIC) return transduce_clock_monotonic();
    if (__atomic_test_and_set(&busy, __ATOMIC_ACQUIRE)) {
        /* Another thread is deciding, calibrating or measuring: never wait for it. */
        return current == COUNTER ? by_scale() : transduce_clock_monotonic();
    }
    uint64_t now = advance();
    __atomic_clear(&busy, __ATOMIC_RELEASE);
    return now;
}

int transduce_clock_uses_counter(void) {
    return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == COUNTER;
}

int transduce_clock_await_counter(uint64_t within_ns) {
    uint64_t deadline = transduce_clock_monotonic() + within_ns;
    while (!transduce_clock_uses_counter() && __atomic_load_n(&state, __ATOMIC_ACQUIRE) != MONOTONIC &&
           transduce_clock_monotonic() < deadline) {
        (void)transduce_clock_now();
        usleep(1000);
    }
    return transduce_clock_uses_counter();
}

#else

uint64_t transduce_clock_slow(void) { return transduce_clock_monotonic(); }

int transduce_clock_uses_counter(void) { return 0; }

int transduce_clock_await_counter(uint64_t within_ns) {
    (void)within_ns;
    return 0;
}

#endif
