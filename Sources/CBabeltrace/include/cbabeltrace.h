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
    /* The event's class: the same address for every event of the class while `generation` stays
     * the same (it changes whenever a stream begins or ends, after which a class may be gone
     * and its address given to another), so a reader may key what it worked out for a class by
     * this address within a generation. */
    const void *event_class;
    uint64_t generation;
    /* The default clock's value converted to nanoseconds (CLOCK_MONOTONIC for LTTng-UST). */
    uint64_t clock_ns;
    /* The clock's offset from its origin in nanoseconds (the clock class's `offset`: for LTTng,
     * CLOCK_REALTIME minus CLOCK_MONOTONIC when the session started), and whether that origin is
     * the Unix epoch (babeltrace2's --clock-seconds adds the same offset). */
    int64_t clock_offset_ns;
    int clock_is_unix;
    /* The `vtid` and `vpid` context fields, or 0 when the trace lacks them. */
    uint32_t vtid;
    uint32_t vpid;
    /* The `hostname` entry of the trace's environment, or "" (never NULL). */
    const char *hostname;
    /* The payload's members that can be handed over (integers and texts), at most 32, except
     * those whose names begin with an underscore: LTTng's sequence lengths (`_NAME_length`),
     * which the sequence itself carries. */
    uint32_t field_count;
    const cbt_field *fields;
} cbt_event;

/* What the tracer said it lost: LTTng's discarded-events messages (with counts) and its
 * discarded-packets messages (whole packets, event counts unknown). */
typedef struct cbt_losses {
    uint64_t discarded_events;
    /* Discarded-events messages without a count. */
    uint64_t discarded_events_uncounted;
    uint64_t discarded_packets;
} cbt_losses;

/* Return 0 to go on, nonzero to stop reading. */
typedef int (*cbt_callback)(const cbt_event *event, void *context);

int cbt_available(void);

/* The most traces a directory may hold, and how deep below it they may be: an LTTng session's
 * output nests its traces as ust/uid/<uid>/<bits>/ or ust/pid/<name-pid-date>/<bits>/, and a relay
 * daemon's output puts <hostname>/<session-date>/ above that. */
#define CBT_MAX_TRACES 64
#define CBT_MAX_DEPTH 7

/* How many CTF traces (directories with a `metadata` file) are at or below `path`, within
 * CBT_MAX_DEPTH levels; CBT_MAX_TRACES + 1 means "more than allowed" (the search stops there). */
int cbt_count_traces(const char *path);

/* What the readers return besides 0 (success): each failure also writes its message. */
enum {
    CBT_FAILED = 1,          /* libbabeltrace2 or the connection failed, or the callback stopped it */
    CBT_NO_TRACE = 2,        /* no CTF trace (no metadata file) at or below the directory */
    CBT_TOO_MANY_TRACES = 3, /* more than CBT_MAX_TRACES traces below the directory */
    CBT_UNAVAILABLE = 4,     /* built without libbabeltrace2 */
};

/* Reads every event of the CTF trace(s) at or below `path` (an LTTng session output directory
 * works), in time order, and what the tracer lost into `losses`. Returns 0 on success, else
 * nonzero with a message in `error`. */
int cbt_read_ctf(const char *path, cbt_callback callback, void *context, cbt_losses *losses, char *error, size_t error_size);

/* Called while a live session has no new data: return 0 to go on waiting, nonzero to stop. */
typedef int (*cbt_idle_callback)(void *context);

/* Reads the LTTng live session at `url` (net://HOST[:PORT]/host/HOSTNAME/SESSION) from a relay
 * daemon, as its events arrive, until the session ends (it is destroyed), `callback` or `idle`
 * asks to stop, or the connection fails. Returns 0 on success, else nonzero with a message. */
int cbt_read_live(const char *url, cbt_callback callback, cbt_idle_callback idle, void *context, cbt_losses *losses,
                  char *error, size_t error_size);

/* One session a relay daemon offers for live reading. */
typedef struct cbt_session {
    const char *url;
    const char *hostname;
    const char *name;
    uint64_t streams;
    uint64_t clients;
} cbt_session;

/* Return 0 to go on, nonzero to stop listing. */
typedef int (*cbt_session_callback)(const cbt_session *session, void *context);

/* Lists the sessions of the relay daemon at `url` (net://HOST[:PORT]). Returns 0 on success. */
int cbt_list_live(const char *url, cbt_session_callback callback, void *context, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* CBABELTRACE_H */
