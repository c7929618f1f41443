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
/* Makes standard output line-buffered even into a pipe, so a CI log shows how far a run got. */
void bench_line_buffered_stdout(void);
#endif
