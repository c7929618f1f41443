/* The thread id read declared in include/clttng_ring.h. */
#define _GNU_SOURCE
#include "clttng_ring.h"

#include <unistd.h>
#include <sys/syscall.h>

static __thread uint32_t cached_tid;

uint32_t clttng_thread_id(void) {
    if (cached_tid == 0) {
#if defined(__linux__)
        cached_tid = (uint32_t)syscall(SYS_gettid);
#else
        cached_tid = (uint32_t)(uintptr_t)&cached_tid;
#endif
    }
    return cached_tid;
}
