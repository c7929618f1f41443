#ifndef CBABELTRACE_H
#define CBABELTRACE_H

/* A small reader of LTTng CTF trace directories over libbabeltrace2 (src.ctf.fs → flt.utils.muxer →
 * a simple sink), handing each event to a callback as plain C values. Without libbabeltrace2
 * cbt_available() is 0 and cbt_read_ctf() fails with a message. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cbt_field {
    const char *name;
    /* 1: `text`/`text_length` hold the value; 0: `integer` does (signed values are reinterpreted). */
    int is_text;
    uint64_t integer;
    const char *text;
    uint32_t text_length;
} cbt_field;

typedef struct cbt_event {
    /* Event class name, e.g. "transduce:dispatch". */
    const char *name;
    /* The default clock's value converted to nanoseconds (CLOCK_MONOTONIC for LTTng-UST). */
    uint64_t clock_ns;
    /* The `vtid` and `vpid` context fields, or 0 when the trace lacks them. */
    uint32_t vtid;
    uint32_t vpid;
    uint32_t field_count;
    const cbt_field *fields;
} cbt_event;

/* Return 0 to go on, nonzero to stop reading. */
typedef int (*cbt_callback)(const cbt_event *event, void *context);

int cbt_available(void);

/* 1 when `path` is, or contains, a CTF trace directory (one with a `metadata` file). */
int cbt_is_ctf(const char *path);

/* Reads every event of the CTF trace(s) at or below `path` (an LTTng session output directory
 * works), in time order. Returns 0 on success, else
 * nonzero with a message in `error`. */
int cbt_read_ctf(const char *path, cbt_callback callback, void *context, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* CBABELTRACE_H */
