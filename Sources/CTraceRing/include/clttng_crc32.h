#ifndef CLTTNG_CRC32_H
#define CLTTNG_CRC32_H

/* CRC-32 (IEEE 802.3, reflected, as zlib) of the binary trace format's chunks, over every byte a
 * reader reads and a writer writes. Where the processor multiplies carry-less (x86-64 with
 * PCLMULQDQ and SSE4.1, checked once), 64-byte blocks are folded with it (Intel's "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ"), and 128-byte blocks with its 256-bit
 * form where there is one (VPCLMULQDQ with AVX2: twice the bytes a cycle); elsewhere, and for
 * what is left of a buffer, the caller's byte loop does the rest. Async-signal-safe: no
 * allocation, no locks. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Folds as much of `bytes[0..<count]` into `state` (the CRC register: ~0 to start, complemented
 * at the end) as this processor can fold fast, and stores how many bytes that was in `*done`
 * (0 when it cannot, or when `count` is under 64; otherwise a multiple of 16). Returns the new
 * state; the caller folds `bytes[*done..<count]` bytewise. */
uint32_t clttng_crc32_fold(uint32_t state, const uint8_t *bytes, size_t count, size_t *done);

/* The whole CRC-32 of `bytes[0..<count]` (folded, then bitwise for the rest). */
uint32_t clttng_crc32(const uint8_t *bytes, size_t count);

#ifdef __cplusplus
}
#endif

#endif
