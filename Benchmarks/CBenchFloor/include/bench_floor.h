#ifndef BENCH_FLOOR_H
#define BENCH_FLOOR_H
#include <stdint.h>

/* The floor of a ring-buffer record, in plain C: read CLOCK_MONOTONIC, bump a shared index
 * atomically, store an 11-word event into the slot. No sequence lock, no encoding. */
void bench_floor_init(uint64_t capacity);
void bench_floor_record(uint64_t a, uint64_t b);
/* Runs `count` floor records and returns nothing; the loop lives in C so the call overhead is
 * the same as a C producer's. */
void bench_floor_loop(uint64_t count);
/* The same loop with the ring's own slot protocol (clttng_ring.h): the ticket's atomic increment,
 * the slot's compare-and-swap claim, 11 stores, the release commit. What a record into a lane
 * shared by several threads cannot do without. */
void bench_floor_claimed_loop(uint64_t count);
/* The same loop for a lane only one thread writes: the head a plain increment, the slot's
 * sequence stored odd, the 11 words, the sequence stored even with release. No locked
 * instruction: the floor of a per-thread lane. */
void bench_floor_single_loop(uint64_t count);
/* Makes standard output line-buffered even into a pipe, so a CI log shows how far a run got. */
void bench_line_buffered_stdout(void);
#endif
