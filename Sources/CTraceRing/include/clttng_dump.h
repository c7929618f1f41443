#ifndef CLTTNG_DUMP_H
#define CLTTNG_DUMP_H

/* The async-signal-safe dump of a ring buffer: what a process writes when it is ended by a signal
 * (SIGINT, SIGTERM, SIGHUP) or crashes (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE), where
 * Swift code cannot run. It writes the binary trace format (TraceFileFormat.swift, version 1) with
 * nothing but open/write/rename and memory prepared beforehand: no allocation, no locks.
 * TraceDumps.swift configures it; CrashDumpTests checks that what it writes reads back as the
 * Swift writer's dump of the same ring does. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A copy of a LabelTable's dynamic strings that a signal handler can read (entries are published
 * with release stores and never freed while the process runs). */
typedef struct clttng_label_mirror clttng_label_mirror;

/* Creates a mirror for `limit` strings; NULL when memory is short (dynamic labels then dump as
 * empty). */
clttng_label_mirror *clttng_label_mirror_create(uint64_t limit);
/* Publishes a copy of string `index` (called once per string, under the table's lock). */
void clttng_label_mirror_publish(clttng_label_mirror *mirror, uint64_t index, const uint8_t *bytes, size_t length);

/* Makes `slots` (capacity × CLTTNG_SLOT_WORDS words, split into `lanes` rings of capacity / lanes
 * slots each, both powers of two) the rings that signal dumps write to `path`, merged by time.
 * With `direct` 0, `path` is a regular file or absent, written atomically (a temporary file
 * beside it, renamed over it); with `direct` 1 it is a FIFO or a device, written in place (a FIFO
 * without a reader is skipped, never waited for). Resolve a link first (FileDestination): the
 * handler renames onto `path` itself. Replaces an earlier configuration. Returns 0 when memory
 * for the dump is short. */
int clttng_signal_dump_configure(const uint64_t *slots, uint64_t capacity, uint64_t lanes, const clttng_label_mirror *labels,
                                 const char *path, int direct);

/* Notes that a writer of this process is writing the temporary file `path` (until it is renamed
 * or removed: call clttng_temporary_done with the slot returned). A crash meanwhile removes it,
 * so no empty temporary file is left beside a dump. Returns the slot, or -1 when all are taken
 * (nothing is noted then). */
int clttng_temporary_begin(const char *path);
void clttng_temporary_done(int slot);

/* Installs the handlers: for SIGINT, SIGTERM and SIGHUP only where the disposition is still the
 * default (an application's own handling wins), for the crash signals always, chaining to the
 * handler found (the Swift runtime's backtracer, for one). After the dump a termination signal
 * ends the process with that same signal. Returns a bit mask of the signals handled. */
uint64_t clttng_signal_dump_install(int termination, int crashes);

/* Installs a handler for `signo` that writes one byte to `fd` (the write end of a pipe, made
 * non-blocking: a full pipe already says "dump") and does nothing else, async-signal-safely: the
 * reader of the pipe dumps, off the handler. Works whatever threads exist and whatever they
 * block, unlike a signal ignored and read through signalfd, which a thread that does not block it
 * discards. Replaces the fd of an earlier call for the same signal. Returns 1, or 0 on failure. */
int clttng_signal_notify_install(int signo, int fd);

/* Writes the dump now, as the handler would (for tests). Returns the events written, or -1. */
int64_t clttng_signal_dump_write(void);

/* Asks the kernel to end this process with SIGKILL when its parent ends (Linux; elsewhere a
 * no-op returning 0): for helper children that must not outlive a killed parent. */
int clttng_die_with_parent(void);

#ifdef __cplusplus
}
#endif

#endif /* CLTTNG_DUMP_H */
