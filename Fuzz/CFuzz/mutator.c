/* A libFuzzer custom mutator for the binary trace format: libFuzzer's own mutation, then, for
 * half of the mutants, every chunk's CRC-32 recomputed so the mutant gets past the checksum into
 * the record decoding and the analyses (else almost every mutant stops at the CRC). Linked into
 * the binary-reader target only; see scripts/fuzz.sh. */
#include <stddef.h>
#include <stdint.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static uint32_t crc32(const uint8_t *p, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
    return ~crc;
}

static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    size = LLVMFuzzerMutate(data, size, max_size);
    if ((seed & 1) == 0) return size;
    size_t offset = 16; /* the file header */
    while (offset + 12 <= size) {
        size_t length = get32(data + offset + 4);
        if (length > size - offset - 12) break;
        put32(data + offset + 8, crc32(data + offset + 12, length));
        offset += 12 + length;
    }
    return size;
}
