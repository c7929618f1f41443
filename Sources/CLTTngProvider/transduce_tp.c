/* The probes of the LTTng-UST provider `transduce`, built as the shared object
 * libTransduceLTTngProvider.so. Loading it (TraceRecorder does, with dlopen) registers the
 * provider; until then the tracepoints in CLTTng cost one load each and the process does not
 * load liblttng-ust at all. */
#if defined(__linux__) && __has_include(<lttng/tracepoint.h>)
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "transduce_tp.h"
#else
/* No LTTng-UST: an empty provider. */
int clttng_provider_unavailable;
#endif
