#ifndef CLTTNG_H
#define CLTTNG_H

/* Plain C wrappers over the LTTng-UST provider `transduce`: the one wrapper per kind is generated
 * from Vocabulary/events.json into clttng_events.h (included below). Every clttng_<event> function
 * checks its tracepoint's enabled state first and returns at once when no session enables it.
 * Without LTTng-UST (e.g. Apple platforms) every function is a no-op and clttng_available() is 0.
 * Text arguments are (pointer, length) pairs and need not be NUL-terminated. Enumerations are
 * passed as their raw codes (the order of the Swift enums in Transduce). */

#include <stddef.h>
#include <stdint.h>

#include "clttng_format.h"
#include "clttng_events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the package was built with LTTng-UST. */
int clttng_available(void);
/* Loads liblttng-ust (dlopen) and registers the probes of the provider `transduce`, which are
 * compiled into this module (clttng_probes.c). Idempotent. Returns 1 on success, else 0 with a
 * message in `error`. */
int clttng_load_lttng(char *error, size_t error_size);
/* 1 when any transduce tracepoint is enabled by a session (a few loads). */
int clttng_any_enabled(void);

#ifdef __cplusplus
}
#endif

#endif /* CLTTNG_H */
