#include "bench_floor.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clttng_ring.h"
#include "transduce_clock.h"

static uint64_t *slots;
static uint64_t mask;
static uint64_t head;
/* Slots of CLTTNG_SLOT_WORDS words for the claimed and single-writer loops. */
static uint64_t *ring_slots;
static uint64_t ring_head;

void bench_floor_init(uint64_t capacity) {
    free(slots);
    slots = aligned_alloc(64, capacity * 12 * sizeof(uint64_t));
    for (uint64_t i = 0; i < capacity * 12; i++) slots[i] = 0;
    mask = capacity - 1;
    head = 0;
    free(ring_slots);
    ring_slots = aligned_alloc(64, capacity * CLTTNG_SLOT_WORDS * sizeof(uint64_t));
    for (uint64_t i = 0; i < capacity * CLTTNG_SLOT_WORDS; i++) ring_slots[i] = 0;
    ring_head = 0;
}

void bench_floor_record(uint64_t a, uint64_t b) {
    uint64_t t = transduce_clock_now(); /* the recorder's clock */
    uint64_t ticket = __atomic_fetch_add(&head, 1, __ATOMIC_RELAXED);
    uint64_t *slot = slots + (ticket & mask) * 12;
    slot[1] = 2; slot[2] = t; slot[3] = 1; slot[4] = a; slot[5] = b; slot[6] = 0;
    slot[7] = 0; slot[8] = 0; slot[9] = 0; slot[10] = 0; slot[11] = 0;
    __atomic_store_n(&slot[0], ticket, __ATOMIC_RELEASE);
}

void bench_floor_loop(uint64_t count) {
    for (uint64_t i = 0; i < count; i++) bench_floor_record(i, i + 1);
}

static uint64_t *ring_slot(uint64_t ticket) { return ring_slots + (ticket & mask) * CLTTNG_SLOT_WORDS; }

static void claimed_record(uint64_t a, uint64_t b) {
    uint64_t t = transduce_clock_now();
    uint64_t ticket = __atomic_fetch_add(&ring_head, 1, __ATOMIC_RELAXED);
    uint64_t *slot = ring_slot(ticket);
    uint64_t claim = clttng_slot_claim(slot, ticket);
    if (claim == 0) return;
    clttng_slot_commit(slot, claim, 2, t, 1, a, b, 0, 0, 0, 0, 0, 0);
}

void bench_floor_claimed_loop(uint64_t count) {
    for (uint64_t i = 0; i < count; i++) claimed_record(i, i + 1);
}

static void single_record(uint64_t a, uint64_t b) {
    uint64_t t = transduce_clock_now();
    uint64_t ticket = ring_head++; /* one writer: no atomic increment */
    uint64_t *slot = ring_slot(ticket);
    /* The claim a plain store where the ring's is a compare-and-swap; the words and the commit
     * as the ring writes them. */
    uint64_t claim = 2 * ticket + 1;
    __atomic_store_n(&slot[0], claim, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    clttng_slot_commit(slot, claim, 2, t, 1, a, b, 0, 0, 0, 0, 0, 0);
}

void bench_floor_single_loop(uint64_t count) {
    for (uint64_t i = 0; i < count; i++) single_record(i, i + 1);
}

void bench_line_buffered_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }
