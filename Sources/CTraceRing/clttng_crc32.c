#include "clttng_crc32.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

/* -1 unknown, 0 no, 1 yes: cpuid traps to the hypervisor in a VM, so it is asked once. */
static int pclmul_state = -1;

static int has_pclmul(void) {
    int known = __atomic_load_n(&pclmul_state, __ATOMIC_RELAXED);
    if (known >= 0) return known;
    unsigned a, b, c, d;
    int yes = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_PCLMUL) && (c & bit_SSE4_1);
    __atomic_store_n(&pclmul_state, yes, __ATOMIC_RELAXED);
    return yes;
}

/* The folding constants of the reflected polynomial 0xEDB88320: x^(4*128+32), x^(4*128-32),
 * x^(128+32), x^(128-32), x^64 mod P (bit-reflected, shifted left by one), P' and the Barrett
 * constant u' (floor(x^64 / P), reflected). */
#define K1 0x154442bd4ULL
#define K2 0x1c6e41596ULL
#define K3 0x1751997d0ULL
#define K4 0x0ccaa009eULL
#define K5 0x163cd6124ULL
#define POLY 0x1db710641ULL
#define MU 0x1f7011641ULL

static inline __m128i fold128(__m128i x, __m128i k, __m128i next) __attribute__((target("pclmul,sse4.1")));
static inline __m128i fold128(__m128i x, __m128i k, __m128i next) {
    __m128i low = _mm_clmulepi64_si128(x, k, 0x00);
    __m128i high = _mm_clmulepi64_si128(x, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

__attribute__((target("pclmul,sse4.1"))) static uint32_t fold(uint32_t state, const uint8_t *p, size_t n) {
    /* n >= 64, a multiple of 16. */
    __m128i x1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)state));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i x4 = _mm_loadu_si128((const __m128i *)(p + 48));
    p += 64;
    n -= 64;
    __m128i k = _mm_set_epi64x((long long)K2, (long long)K1);
    while (n >= 64) {
        x1 = fold128(x1, k, _mm_loadu_si128((const __m128i *)p));
        x2 = fold128(x2, k, _mm_loadu_si128((const __m128i *)(p + 16)));
        x3 = fold128(x3, k, _mm_loadu_si128((const __m128i *)(p + 32)));
        x4 = fold128(x4, k, _mm_loadu_si128((const __m128i *)(p + 48)));
        p += 64;
        n -= 64;
    }
    /* Four lanes into one, then the 16-byte blocks left. */
    k = _mm_set_epi64x((long long)K4, (long long)K3);
    x1 = fold128(x1, k, x2);
    x1 = fold128(x1, k, x3);
    x1 = fold128(x1, k, x4);
    while (n >= 16) {
        x1 = fold128(x1, k, _mm_loadu_si128((const __m128i *)p));
        p += 16;
        n -= 16;
    }
    /* 128 bits to 64, 64 to 32, then Barrett's reduction to the remainder. */
    __m128i mask = _mm_setr_epi32(-1, 0, -1, 0);
    x2 = _mm_clmulepi64_si128(x1, k, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, mask), _mm_set_epi64x(0, (long long)K5), 0x00);
    x1 = _mm_xor_si128(x1, x2);
    __m128i poly = _mm_set_epi64x((long long)MU, (long long)POLY);
    x2 = _mm_clmulepi64_si128(_mm_and_si128(x1, mask), poly, 0x10);
    x2 = _mm_clmulepi64_si128(_mm_and_si128(x2, mask), poly, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}
#endif

uint32_t clttng_crc32_fold(uint32_t state, const uint8_t *bytes, size_t count, size_t *done) {
    *done = 0;
#if defined(__x86_64__)
    if (count >= 64 && has_pclmul()) {
        size_t folded = count & ~(size_t)15;
        *done = folded;
        return fold(state, bytes, folded);
    }
#endif
    return state;
}

uint32_t clttng_crc32(const uint8_t *bytes, size_t count) {
    size_t done;
    uint32_t crc = clttng_crc32_fold(0xFFFFFFFFu, bytes, count, &done);
    for (size_t i = done; i < count; i++) {
        crc ^= bytes[i];
        for (int k = 0; k < 8; k++) crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
    return ~crc;
}
