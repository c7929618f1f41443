/* Creates the probes of the provider `transduce` (the one translation unit that does). */
#if defined(__linux__) && __has_include(<lttng/tracepoint.h>)
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "transduce_tp.h"
#endif
