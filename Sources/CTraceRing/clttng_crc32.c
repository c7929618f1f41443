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

__attribute__((target("pclmul,sse4.1"))) static uint32_t reduce(__m128i x1, const uint8_t *p, size_t n);

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
    return reduce(x1, p, n);
}

/* Folds the 16-byte blocks of `p[0..<n]` (n a multiple of 16) into `x1`, then reduces it to the
 * CRC register. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t reduce(__m128i x1, const uint8_t *p, size_t n) {
    __m128i x2;
    __m128i k = _mm_set_epi64x((long long)K4, (long long)K3);
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

/* -1 unknown, 0 no, 1 yes: 256-bit carry-less multiplication (VPCLMULQDQ with AVX2, and the
 * system saving the YMM registers). */
static int vpclmul_state = -1;

static int has_vpclmul(void) {
    int known = __atomic_load_n(&vpclmul_state, __ATOMIC_RELAXED);
    if (known >= 0) return known;
    unsigned a, b, c, d;
    int yes = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_AVX)) {
        unsigned xcr0_low, xcr0_high;
        __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
        yes = (xcr0_low & 6) == 6 && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2) &&
              (c & bit_VPCLMULQDQ);
    }
    __atomic_store_n(&vpclmul_state, yes, __ATOMIC_RELAXED);
    return yes;
}

/* x^(8*128+32) and x^(8*128-32) mod P, as K1 and K2: folds across 128 bytes. */
#define K1_256 0x1e88ef372ULL
#define K2_256 0x14a7fe880ULL

static inline __m256i fold256(__m256i x, __m256i k, __m256i next) __attribute__((target("vpclmulqdq,avx2")));
static inline __m256i fold256(__m256i x, __m256i k, __m256i next) {
    __m256i low = _mm256_clmulepi64_epi128(x, k, 0x00);
    __m256i high = _mm256_clmulepi64_epi128(x, k, 0x11);
    return _mm256_xor_si256(_mm256_xor_si256(low, high), next);
}

/* Folds 128-byte blocks four 256-bit lanes at a time while at least 256 bytes are left, then
 * hands the 128 bytes it holds folded and the rest to `reduce`. n >= 256, a multiple of 16. */
__attribute__((target("vpclmulqdq,avx2,pclmul,sse4.1"))) static uint32_t fold_wide(uint32_t state, const uint8_t *p,
                                                                                   size_t n) {
    __m256i x1 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)p),
                                  _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)state)));
    __m256i x2 = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i x3 = _mm256_loadu_si256((const __m256i *)(p + 64));
    __m256i x4 = _mm256_loadu_si256((const __m256i *)(p + 96));
    p += 128;
    n -= 128;
    __m256i k = _mm256_set_epi64x((long long)K2_256, (long long)K1_256, (long long)K2_256, (long long)K1_256);
    while (n >= 128) {
        x1 = fold256(x1, k, _mm256_loadu_si256((const __m256i *)p));
        x2 = fold256(x2, k, _mm256_loadu_si256((const __m256i *)(p + 32)));
        x3 = fold256(x3, k, _mm256_loadu_si256((const __m256i *)(p + 64)));
        x4 = fold256(x4, k, _mm256_loadu_si256((const __m256i *)(p + 96)));
        p += 128;
        n -= 128;
    }
    /* The eight 16-byte blocks held, in order, folded into one, then the blocks left. */
    __m128i k128 = _mm_set_epi64x((long long)K4, (long long)K3);
    __m128i y = _mm256_castsi256_si128(x1);
    y = fold128(y, k128, _mm256_extracti128_si256(x1, 1));
    y = fold128(y, k128, _mm256_castsi256_si128(x2));
    y = fold128(y, k128, _mm256_extracti128_si256(x2, 1));
    y = fold128(y, k128, _mm256_castsi256_si128(x3));
    y = fold128(y, k128, _mm256_extracti128_si256(x3, 1));
    y = fold128(y, k128, _mm256_castsi256_si128(x4));
    y = fold128(y, k128, _mm256_extracti128_si256(x4, 1));
    return reduce(y, p, n);
}
#endif

uint32_t clttng_crc32_fold(uint32_t state, const uint8_t *bytes, size_t count, size_t *done) {
    *done = 0;
#if defined(__x86_64__)
    if (count >= 64 && has_pclmul()) {
        size_t folded = count & ~(size_t)15;
        *done = folded;
        if (folded >= 256 && has_vpclmul()) return fold_wide(state, bytes, folded);
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
