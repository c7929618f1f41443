/* The async-signal-safe ring dump declared in include/clttng_dump.h. Everything a handler touches
 * is allocated by clttng_signal_dump_configure; the handler itself calls only open, write, poll,
 * close, rename, unlink, clock_gettime, sigaction and raise (all async-signal-safe). */
#define _GNU_SOURCE
#include "clttng_crc32.h"
#include "clttng_dump.h"
#include "clttng_format.h"
#include "clttng_ring.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

struct clttng_label_mirror {
    uint64_t limit;
    const uint8_t **bytes;
    uint32_t *lengths;
};

clttng_label_mirror *clttng_label_mirror_create(uint64_t limit) {
    clttng_label_mirror *m = calloc(1, sizeof *m);
    if (m == NULL) return NULL;
    m->limit = limit;
    m->bytes = calloc(limit ? limit : 1, sizeof *m->bytes);
    m->lengths = calloc(limit ? limit : 1, sizeof *m->lengths);
    if (m->bytes == NULL || m->lengths == NULL) {
        free(m->bytes);
        free(m->lengths);
        free(m);
        return NULL;
    }
    return m;
}

void clttng_label_mirror_publish(clttng_label_mirror *m, uint64_t index, const uint8_t *bytes, size_t length) {
    if (m == NULL || index >= m->limit) return;
    if (length > 65536) length = 65536;
    uint8_t *copy = malloc(length ? length : 1);
    if (copy == NULL) return;
    memcpy(copy, bytes, length);
    __atomic_store_n(&m->lengths[index], (uint32_t)length, __ATOMIC_RELAXED);
    __atomic_store_n(&m->bytes[index], copy, __ATOMIC_RELEASE);
}

/* The file layout comes from clttng_format.h, shared with TraceFileFormat.swift. */
static const uint64_t dynamic_tag = (uint64_t)1 << 63;
static const uint64_t address_bits = 47;

struct dump_config {
    const uint64_t *slots;
    uint64_t capacity;
    uint64_t lanes;        /* rings of capacity / lanes slots each, merged by time */
    const clttng_label_mirror *labels;
    char path[4096];
    char temporary[4200];
    int direct;            /* write `path` in place (a FIFO or a device), not a temporary file */
    uint64_t *cursor;      /* per lane: the next ticket to read, and the end of its window */
    uint64_t *end;
    uint64_t *held;        /* per lane: the words of its oldest unwritten event (valid: `ready`) */
    uint8_t *ready;
    uint8_t *events;       /* one events chunk payload */
    uint8_t *out;          /* a write buffer */
    uint8_t process[4 + 256]; /* the process chunk: pid, host name */
    uint32_t process_length;
};

static struct dump_config *volatile current;
static volatile sig_atomic_t dumping;

int clttng_signal_dump_configure(const uint64_t *slots, uint64_t capacity, uint64_t lanes, const clttng_label_mirror *labels,
                                 const char *path, int direct) {
    if (lanes == 0 || capacity % lanes != 0) return 0;
    struct dump_config *c = calloc(1, sizeof *c);
    if (c == NULL) return 0;
    c->direct = direct != 0;
    c->slots = slots;
    c->capacity = capacity;
    c->lanes = lanes;
    c->labels = labels;
    strncpy(c->path, path, sizeof c->path - 1);
    /* Its own temporary name: no other writer (TraceFileWriter uses .tmp-PID-N) shares it. */
    snprintf(c->temporary, sizeof c->temporary, "%s.tmp-%ld-signal", c->path, (long)getpid());
    uint32_t pid = (uint32_t)getpid();
    for (int i = 0; i < 4; i++) c->process[i] = (uint8_t)(pid >> (8 * i));
    char host[257] = {0};
    if (gethostname(host, 256) != 0) host[0] = 0;
    size_t host_length = strnlen(host, 256);
    memcpy(c->process + 4, host, host_length);
    c->process_length = (uint32_t)(4 + host_length);
    c->cursor = malloc(lanes * sizeof(uint64_t));
    c->end = malloc(lanes * sizeof(uint64_t));
    c->held = malloc(lanes * CLTTNG_PAYLOAD_WORDS * sizeof(uint64_t));
    c->ready = malloc(lanes);
    c->events = malloc(4 + CLTTNG_EVENTS_PER_CHUNK * CLTTNG_RECORD_SIZE);
    c->out = malloc(CLTTNG_CHUNK_HEADER_SIZE + 4 + CLTTNG_MAX_STRING_BYTES);
    if (c->cursor == NULL || c->end == NULL || c->held == NULL || c->ready == NULL || c->events == NULL || c->out == NULL) {
        free(c->cursor);
        free(c->end);
        free(c->held);
        free(c->ready);
        free(c->events);
        free(c->out);
        free(c);
        return 0;
    }
    /* The previous configuration is kept (a handler may be using it): a few KiB, once per call. */
    __atomic_store_n(&current, c, __ATOMIC_RELEASE);
    return 1;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }

void clttng_record_encode(const uint64_t *w, uint32_t label, uint32_t label2, uint8_t *r) {
    uint64_t head = w[CLTTNG_WORD_HEAD];
    r[CLTTNG_RECORD_KIND] = (uint8_t)head;
    r[CLTTNG_RECORD_CODE] = (uint8_t)(head >> 8);
    r[CLTTNG_RECORD_CODE2] = (uint8_t)(head >> 16);
    r[CLTTNG_RECORD_CODE2 + 1] = 0;
    put32(r + CLTTNG_RECORD_STEP, (uint32_t)(head >> 32));
    put64(r + CLTTNG_RECORD_TIME, w[CLTTNG_WORD_TIME]);
    put64(r + CLTTNG_RECORD_RUNTIME, w[CLTTNG_WORD_RUNTIME]);
    put64(r + CLTTNG_RECORD_DISPATCH, w[CLTTNG_WORD_DISPATCH]);
    put64(r + CLTTNG_RECORD_CYCLE, w[CLTTNG_WORD_CYCLE]);
    put64(r + CLTTNG_RECORD_TASK, w[CLTTNG_WORD_TASK]);
    put64(r + CLTTNG_RECORD_OTHER_TASK, w[CLTTNG_WORD_OTHER_TASK]);
    put64(r + CLTTNG_RECORD_NANOS, w[CLTTNG_WORD_NANOS]);
    put32(r + CLTTNG_RECORD_COUNT, (uint32_t)w[CLTTNG_WORD_COUNT_THREAD]);
    put32(r + CLTTNG_RECORD_THREAD, (uint32_t)(w[CLTTNG_WORD_COUNT_THREAD] >> 32));
    put32(r + CLTTNG_RECORD_LABEL, label);
    put32(r + CLTTNG_RECORD_LABEL2, label2);
}

/* How long a dump may wait on a FIFO's reader, in all: a handler must end the process in bounded
 * time, whoever holds the other end. */
#define DUMP_WAIT_MS 5000
static int dump_waited_ms; /* this dump's waits so far (one dump at a time: see `dumping`) */

static int write_all(int fd, const uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN && dump_waited_ms < DUMP_WAIT_MS) {
                /* A FIFO (written without blocking) whose reader is behind: wait a little. */
                struct pollfd ready = {fd, POLLOUT, 0};
                poll(&ready, 1, 100);
                dump_waited_ms += 100;
                continue;
            }
            return 0;
        }
        p += w;
        n -= (size_t)w;
    }
    return 1;
}

static int write_chunk(int fd, uint8_t tag, const uint8_t *payload, uint32_t length) {
    uint8_t header[CLTTNG_CHUNK_HEADER_SIZE] = {tag, 0, 0, 0};
    put32(header + 4, length);
    put32(header + 8, clttng_crc32(payload, length));
    return write_all(fd, header, sizeof header) && write_all(fd, payload, length);
}

/* Resolves a LabelTable reference without allocating. */
static void resolve(const struct dump_config *c, uint64_t ref, const uint8_t **bytes, uint32_t *length) {
    *bytes = NULL;
    *length = 0;
    if (ref == 0) return;
    if (ref & dynamic_tag) {
        uint64_t index = ref & ~dynamic_tag;
        const clttng_label_mirror *m = c->labels;
        if (m == NULL || index >= m->limit) return;
        const uint8_t *b = __atomic_load_n(&m->bytes[index], __ATOMIC_ACQUIRE);
        if (b == NULL) return;
        *bytes = b;
        *length = __atomic_load_n(&m->lengths[index], __ATOMIC_RELAXED);
        return;
    }
    *bytes = (const uint8_t *)(uintptr_t)(ref & (((uint64_t)1 << address_bits) - 1));
    *length = (uint32_t)(ref >> address_bits);
    if (*length > CLTTNG_MAX_STRING_BYTES) *length = CLTTNG_MAX_STRING_BYTES;
}

/* Writes a string chunk for `ref` (a fresh id each time: the handler keeps no table) and returns
 * its id, or 0 for the empty string. */
static int string_id(const struct dump_config *c, int fd, uint64_t ref, uint32_t *next_id, uint32_t *id) {
    const uint8_t *bytes;
    uint32_t length;
    resolve(c, ref, &bytes, &length);
    *id = 0;
    if (bytes == NULL || length == 0) return 1;
    *id = (*next_id)++;
    put32(c->out, *id);
    memcpy(c->out + 4, bytes, length);
    return write_chunk(fd, 1, c->out, 4 + length);
}

/* Reads lane `k`'s next event still whole into `held`, passing over tickets overwritten
 * meanwhile; `ready[k]` says whether there was one. */
static void advance(const struct dump_config *c, uint64_t k) {
    uint64_t lane_capacity = c->capacity / c->lanes;
    const uint64_t *lane = c->slots + k * lane_capacity * CLTTNG_SLOT_WORDS;
    c->ready[k] = 0;
    while (c->cursor[k] < c->end[k]) {
        uint64_t ticket = c->cursor[k]++;
        const uint64_t *slot = lane + (ticket & (lane_capacity - 1)) * CLTTNG_SLOT_WORDS;
        if (clttng_slot_read(slot, ticket, c->held + k * CLTTNG_PAYLOAD_WORDS) == 1) {
            c->ready[k] = 1;
            return;
        }
    }
}

static int64_t dump(const struct dump_config *c) {
    dump_waited_ms = 0;
    /* In place, a FIFO is opened without waiting: with no reader the dump is skipped (ENXIO), as
     * a handler must never block the process's ending. */
    int fd = c->direct ? open(c->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                       : open(c->temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    /* In place, the descriptor stays non-blocking: write_all waits on a slow reader for at most
     * DUMP_WAIT_MS in all, never on one that stopped reading. */
    uint8_t header[CLTTNG_FILE_HEADER_SIZE] = {0x89, 0x54, 0x44, 0x54, 0x52, 0x0D, 0x0A, 0x1A};
    put16(header + 8, CLTTNG_FILE_VERSION);
    int ok = write_all(fd, header, sizeof header) && write_chunk(fd, CLTTNG_CHUNK_PROCESS, c->process, c->process_length);
    /* A slot committed for ticket t holds sequence 2t + 2: each lane's window runs from the
     * oldest committed ticket it holds to the newest. */
    uint64_t lane_capacity = c->capacity / c->lanes;
    uint64_t newest = 0;
    for (uint64_t k = 0; k < c->lanes; k++) {
        uint64_t oldest = UINT64_MAX, last = 0;
        for (uint64_t i = 0; i < lane_capacity; i++) {
            uint64_t sequence = __atomic_load_n(&c->slots[(k * lane_capacity + i) * CLTTNG_SLOT_WORDS], __ATOMIC_ACQUIRE);
            if (sequence < 2 || (sequence & 1) != 0) continue;
            uint64_t ticket = sequence / 2 - 1;
            if (ticket < oldest) oldest = ticket;
            if (ticket + 1 > last) last = ticket + 1;
        }
        c->cursor[k] = oldest == UINT64_MAX ? 0 : oldest;
        c->end[k] = last;
        newest += last;
        advance(c, k);
    }
    /* Merged by time: the lane whose next event is oldest goes first. */
    uint32_t next_id = 1;
    uint64_t written = 0;
    for (;;) {
        uint32_t count = 0;
        while (ok && count < CLTTNG_EVENTS_PER_CHUNK) {
            uint64_t first = c->lanes;
            for (uint64_t k = 0; k < c->lanes; k++) {
                if (!c->ready[k]) continue;
                if (first == c->lanes || c->held[k * CLTTNG_PAYLOAD_WORDS + CLTTNG_WORD_TIME] <
                                             c->held[first * CLTTNG_PAYLOAD_WORDS + CLTTNG_WORD_TIME])
                    first = k;
            }
            if (first == c->lanes) break;
            const uint64_t *w = c->held + first * CLTTNG_PAYLOAD_WORDS;
            uint8_t kind = (uint8_t)w[CLTTNG_WORD_HEAD];
            uint32_t label = 0, label2 = 0;
            ok = string_id(c, fd, w[CLTTNG_WORD_LABEL], &next_id, &label);
            /* label2 is a label only for runtimeStart; otherwise a payload reference, which lives
             * in Swift memory a handler cannot read. */
            if (ok && kind == CLTTNG_KIND_RUNTIME_START) ok = string_id(c, fd, w[CLTTNG_WORD_LABEL2], &next_id, &label2);
            clttng_record_encode(w, label, label2, c->events + 4 + (size_t)count * CLTTNG_RECORD_SIZE);
            count++;
            advance(c, first);
        }
        if (count == 0) break;
        put32(c->events, count);
        ok = ok && write_chunk(fd, CLTTNG_CHUNK_EVENTS, c->events, 4 + count * CLTTNG_RECORD_SIZE);
        written += count;
        if (!ok) break;
    }
    uint8_t footer[CLTTNG_FOOTER_OCCASION_SIZE];
    struct timespec mono, real;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &real);
    put64(footer, written);
    put64(footer + 8, newest > written ? newest - written : 0); /* overwritten or unreadable */
    put64(footer + 16, 0);
    put64(footer + 24, 0);
    put64(footer + 32, (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec);
    put64(footer + 40, (uint64_t)real.tv_sec * 1000000000u + (uint64_t)real.tv_nsec);
    put64(footer + 48, 0); /* slow requests and dumps: the Swift side's, not readable here */
    put64(footer + 56, 0);
    put64(footer + 64, CLTTNG_OCCASION_TERMINATION);
    ok = ok && write_chunk(fd, CLTTNG_CHUNK_FOOTER, footer, sizeof footer);
    ok = close(fd) == 0 && ok;
    if (c->direct) return ok ? (int64_t)written : -1;
    if (!ok || rename(c->temporary, c->path) != 0) {
        unlink(c->temporary);
        return -1;
    }
    return (int64_t)written;
}

/* The temporary files writers of this process are writing now (clttng_temporary_begin). */
enum { TEMPORARY_SLOTS = 8 };
static char temporaries[TEMPORARY_SLOTS][4200];
static int temporary_taken[TEMPORARY_SLOTS];

int clttng_temporary_begin(const char *path) {
    for (int i = 0; i < TEMPORARY_SLOTS; i++) {
        int expected = 0;
        if (__atomic_compare_exchange_n(&temporary_taken[i], &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            strncpy(temporaries[i], path, sizeof temporaries[i] - 1);
            temporaries[i][sizeof temporaries[i] - 1] = 0;
            __atomic_store_n(&temporary_taken[i], 2, __ATOMIC_RELEASE); /* 2: the name is there */
            return i;
        }
    }
    return -1;
}

void clttng_temporary_done(int slot) {
    if (slot >= 0 && slot < TEMPORARY_SLOTS) __atomic_store_n(&temporary_taken[slot], 0, __ATOMIC_RELEASE);
}

/* From a crash handler: removes the temporary files being written (unlink is async-signal-safe). */
static void remove_temporaries(void) {
    for (int i = 0; i < TEMPORARY_SLOTS; i++) {
        if (__atomic_load_n(&temporary_taken[i], __ATOMIC_ACQUIRE) == 2) unlink(temporaries[i]);
    }
}

int64_t clttng_signal_dump_write(void) {
    const struct dump_config *c = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
    return c ? dump(c) : -1;
}

static const int termination_signals[] = {SIGINT, SIGTERM, SIGHUP};
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE};
static struct sigaction previous[65];

static void handler(int signo, siginfo_t *info, void *context) {
    int saved = errno;
    /* Once per process: a second signal (or a crash inside the dump) goes straight on. */
    if (!__atomic_exchange_n(&dumping, 1, __ATOMIC_ACQ_REL)) {
        /* The process is ending: a dump another thread was writing will never be renamed. */
        remove_temporaries();
        const struct dump_config *c = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
        if (c) {
            if (dump(c) < 0) {
                static const char message[] = "transduce: trace dump on signal failed\n";
                ssize_t ignored = write(2, message, sizeof message - 1);
                (void)ignored;
            }
        }
    }
    /* Hand the signal on to whatever was there before (the default action, or the Swift
     * runtime's backtracer), as if this handler had not been: a fault raised by an instruction
     * happens again when the handler returns; any other signal is raised again, pending until
     * the return unblocks it. So the process ends with the same signal. */
    sigaction(signo, &previous[signo], NULL);
    if (!(info != NULL && info->si_code > 0 && signo != SIGABRT && signo != SIGINT && signo != SIGTERM && signo != SIGHUP)) {
        raise(signo);
    }
    errno = saved;
}

static int install(int signo, int only_if_default) {
    struct sigaction old;
    if (sigaction(signo, NULL, &old) != 0) return 0;
    if (old.sa_handler == SIG_IGN && !(old.sa_flags & SA_SIGINFO)) return 0;
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
        /* nothing to chain to */
    } else if (only_if_default) {
        return 0;
    }
    if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == handler) return 1; /* already ours */
    previous[signo] = old;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigfillset(&sa.sa_mask);
    return sigaction(signo, &sa, NULL) == 0;
}

uint64_t clttng_signal_dump_install(int termination, int crashes) {
    uint64_t mask = 0;
    if (termination) {
        for (size_t i = 0; i < sizeof termination_signals / sizeof *termination_signals; i++) {
            if (install(termination_signals[i], 1)) mask |= (uint64_t)1 << termination_signals[i];
        }
    }
    if (crashes) {
        for (size_t i = 0; i < sizeof crash_signals / sizeof *crash_signals; i++) {
            if (install(crash_signals[i], 0)) mask |= (uint64_t)1 << crash_signals[i];
        }
    }
    return mask;
}

static int notify_fds[65];

static void notify_handler(int signo) {
    int saved = errno;
    int fd = __atomic_load_n(&notify_fds[signo], __ATOMIC_ACQUIRE);
    if (fd > 0) {
        char byte = 1;
        ssize_t ignored = write(fd, &byte, 1);
        (void)ignored;
    }
    errno = saved;
}

int clttng_signal_notify_install(int signo, int fd) {
    if (signo <= 0 || signo >= 65 || fd <= 0) return 0;
    __atomic_store_n(&notify_fds[signo], fd, __ATOMIC_RELEASE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = notify_handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(signo, &sa, NULL) == 0;
}

int clttng_die_with_parent(void) {
#if defined(__linux__)
    return prctl(PR_SET_PDEATHSIG, SIGKILL) == 0;
#else
    return 0;
#endif
}
