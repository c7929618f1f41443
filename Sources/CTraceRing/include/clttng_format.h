#ifndef CLTTNG_FORMAT_H
#define CLTTNG_FORMAT_H

/* The one definition of the binary layouts that C and Swift share: the ring-buffer slot's
 * payload words (RawRecord.swift, clttng_dump.c), the trace file's record and chunk layout
 * (TraceFileFormat.swift, TraceRecordLayout.swift, clttng_dump.c), and the event kinds' codes
 * (TraceEvent.Kind's raw values, generated into clttng_kinds.h). Swift reads these constants; the tests check that Swift's
 * names and the C provider's agree. Change a layout here and bump CLTTNG_FORMAT_VERSION. */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Event kinds, in code order (TraceEvent.Kind's raw values), generated from Vocabulary/events.json. */
#include "clttng_kinds.h"

/* A ring-buffer slot's payload: CLTTNG_PAYLOAD_WORDS 64-bit words (after the sequence word).
 * Word HEAD packs kind | code << 8 | code2 << 16 | step << 32; COUNT_THREAD packs count | thread
 * << 32; LABEL and LABEL2 are label references (LabelTable.swift). */
enum {
    CLTTNG_WORD_HEAD = 0,
    CLTTNG_WORD_TIME = 1,
    CLTTNG_WORD_RUNTIME = 2,
    CLTTNG_WORD_DISPATCH = 3,
    CLTTNG_WORD_CYCLE = 4,
    CLTTNG_WORD_TASK = 5,
    CLTTNG_WORD_OTHER_TASK = 6,
    CLTTNG_WORD_NANOS = 7,
    CLTTNG_WORD_COUNT_THREAD = 8,
    CLTTNG_WORD_LABEL = 9,
    CLTTNG_WORD_LABEL2 = 10,
    CLTTNG_PAYLOAD_WORDS = 11,
    /* A whole slot: the sequence word, the payload, and the drop word, which marks the last
     * ticket dropped at this slot (ticket + 1; 0 for none). */
    CLTTNG_SLOT_WORDS = CLTTNG_PAYLOAD_WORDS + 2,
    CLTTNG_DROP_WORD = CLTTNG_PAYLOAD_WORDS + 1
};

/* The trace file (TraceFileFormat.swift documents it). */
enum {
    CLTTNG_FILE_VERSION = 2,
    CLTTNG_FILE_HEADER_SIZE = 16,
    CLTTNG_CHUNK_HEADER_SIZE = 12,
    CLTTNG_CHUNK_STRING = 1,
    CLTTNG_CHUNK_EVENTS = 2,
    CLTTNG_CHUNK_FOOTER = 3,
    CLTTNG_CHUNK_PROCESS = 4,
    CLTTNG_EVENTS_PER_CHUNK = 1024,
    CLTTNG_MAX_STRING_BYTES = 65536,
    CLTTNG_MAX_HOST_BYTES = 256,
    CLTTNG_FOOTER_SIZE = 48,
    /* The footer with the slow-request counts and the occasion of the dump (below). */
    CLTTNG_FOOTER_OCCASION_SIZE = 72
};

/* Why a dump was written (TraceCounts.Occasion): the footer's last u64. */
enum {
    CLTTNG_OCCASION_UNSAID = 0,      /* an older writer, or a writer that does not say */
    CLTTNG_OCCASION_BY_CODE = 1,     /* the app's own call, whenever it chose */
    CLTTNG_OCCASION_AT_EXIT = 2,     /* the process was exiting normally */
    CLTTNG_OCCASION_ON_SIGNAL = 3,   /* SIGUSR2: a snapshot while the process ran on */
    CLTTNG_OCCASION_SLOW_REQUEST = 4, /* the slow-request trigger: a snapshot while it ran on */
    CLTTNG_OCCASION_TERMINATION = 5  /* the process was ended by a signal or crashed */
};

/* One record of an events chunk: byte offsets of its little-endian fields. */
enum {
    CLTTNG_RECORD_KIND = 0,      /* u8 */
    CLTTNG_RECORD_CODE = 1,      /* u8 */
    CLTTNG_RECORD_CODE2 = 2,     /* u8; byte 3 is 0 */
    CLTTNG_RECORD_STEP = 4,      /* u32 */
    CLTTNG_RECORD_TIME = 8,      /* u64 */
    CLTTNG_RECORD_RUNTIME = 16,  /* u64 */
    CLTTNG_RECORD_DISPATCH = 24, /* u64 */
    CLTTNG_RECORD_CYCLE = 32,    /* u64 */
    CLTTNG_RECORD_TASK = 40,     /* u64 */
    CLTTNG_RECORD_OTHER_TASK = 48, /* u64 */
    CLTTNG_RECORD_NANOS = 56,    /* u64 */
    CLTTNG_RECORD_COUNT = 64,    /* u32 */
    CLTTNG_RECORD_THREAD = 68,   /* u32 */
    CLTTNG_RECORD_LABEL = 72,    /* u32 string id */
    CLTTNG_RECORD_LABEL2 = 76,   /* u32 string id (host for runtimeStart, else payload) */
    CLTTNG_RECORD_SIZE = 80
};

/* A record's first 72 bytes are the payload's words HEAD to COUNT_THREAD, little-endian, in
 * order (byte 3, which HEAD leaves 0, included): the encoders store them a word at a time. */
_Static_assert(CLTTNG_RECORD_TIME == 8 * CLTTNG_WORD_TIME && CLTTNG_RECORD_STEP == 4 &&
                   CLTTNG_RECORD_NANOS == 8 * CLTTNG_WORD_NANOS && CLTTNG_RECORD_COUNT == 8 * CLTTNG_WORD_COUNT_THREAD &&
                   CLTTNG_RECORD_THREAD == CLTTNG_RECORD_COUNT + 4 && CLTTNG_RECORD_LABEL == 8 * CLTTNG_WORD_LABEL,
               "file records start with the slot's words");

/* Writes the file record of a slot's payload `words` with string ids `label` and `label2` into
 * `out` (CLTTNG_RECORD_SIZE bytes). Async-signal-safe; the crash dump writes its records with it. */
void clttng_record_encode(const uint64_t *words, uint32_t label, uint32_t label2, uint8_t *out);

/* The name a code of `kind` has in LTTng traces (the `style`, `reason`, `outcome`, … fields), or
 * "unknown" for a code the kind does not define, or NULL when the kind has no code. */
const char *clttng_code_name(uint8_t kind, uint8_t code);
/* How many codes `kind` defines (0 when it has none). */
uint8_t clttng_code_count(uint8_t kind);
/* The same for a kind's second code (dispatchRejected's reason); the tables are generated into
 * clttng_codes.c from Vocabulary/events.json. */
const char *clttng_code2_name(uint8_t kind, uint8_t code);
uint8_t clttng_code2_count(uint8_t kind);

#ifdef __cplusplus
}
#endif

#endif /* CLTTNG_FORMAT_H */
