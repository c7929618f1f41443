/* The probes of the LTTng-UST provider `transduce`, compiled into every program that uses
 * TransduceTrace — so an application that depends on this package has them with no extra step
 * (SwiftPM does not build a dependency's dynamic-library products) — while liblttng-ust stays out
 * of the process until TraceRecorder asks for it.
 *
 * The generated probe code calls exactly two functions of liblttng-ust: lttng_ust_probe_register
 * from a constructor at start-up, and lttng_ust_probe_unregister from a destructor at exit. They
 * are renamed here to the shims below: at start-up the shim only keeps the probe description (and
 * returns a placeholder, since the generated constructor aborts on NULL); clttng_load_lttng()
 * later loads liblttng-ust with dlopen and registers the kept description for real. Everything
 * else the probes use is reached through function pointers in LTTng's own structures. */
#define _GNU_SOURCE
#include "clttng.h"

#if defined(__linux__) && __has_include(<lttng/tracepoint.h>)
#include <dlfcn.h>
#include <stdio.h>

struct lttng_ust_probe_desc;
struct lttng_ust_registered_probe;

struct lttng_ust_registered_probe *clttng_probe_register_shim(const struct lttng_ust_probe_desc *desc);
void clttng_probe_unregister_shim(struct lttng_ust_registered_probe *probe);

#define lttng_ust_probe_register clttng_probe_register_shim
#define lttng_ust_probe_unregister clttng_probe_unregister_shim
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "transduce_tp.h"
#undef lttng_ust_probe_register
#undef lttng_ust_probe_unregister

static const struct lttng_ust_probe_desc *kept_desc;
static struct lttng_ust_registered_probe *registered;
static void (*real_unregister)(struct lttng_ust_registered_probe *);
static char placeholder;

struct lttng_ust_registered_probe *clttng_probe_register_shim(const struct lttng_ust_probe_desc *desc) {
    kept_desc = desc;
    return (struct lttng_ust_registered_probe *)&placeholder;
}

void clttng_probe_unregister_shim(struct lttng_ust_registered_probe *probe) {
    (void)probe;
    if (registered != NULL && real_unregister != NULL) real_unregister(registered);
    registered = NULL;
}

int clttng_load_lttng(char *error, size_t error_size) {
    if (registered != NULL) return 1;
    if (kept_desc == NULL) {
        snprintf(error, error_size, "the transduce probes were not initialized");
        return 0;
    }
    /* RTLD_GLOBAL as an LD_PRELOAD of liblttng-ust would be; its constructor starts its
     * listener threads and connects to the session daemon. */
    void *library = dlopen("liblttng-ust.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (library == NULL) {
        const char *message = dlerror();
        snprintf(error, error_size, "%s (install the liblttng-ust1 package)", message ? message : "dlopen failed");
        return 0;
    }
    struct lttng_ust_registered_probe *(*real_register)(const struct lttng_ust_probe_desc *) =
        (struct lttng_ust_registered_probe * (*)(const struct lttng_ust_probe_desc *)) dlsym(library, "lttng_ust_probe_register");
    real_unregister = (void (*)(struct lttng_ust_registered_probe *))dlsym(library, "lttng_ust_probe_unregister");
    if (real_register == NULL || real_unregister == NULL) {
        snprintf(error, error_size, "liblttng-ust.so.1 has no lttng_ust_probe_register (not LTTng-UST 2.13 or later)");
        return 0;
    }
    registered = real_register(kept_desc);
    if (registered == NULL) {
        snprintf(error, error_size, "LTTng-UST refused the transduce probes (another copy already registered?)");
        return 0;
    }
    return 1;
}
#else
int clttng_load_lttng(char *error, size_t error_size) {
    if (error_size > 0) error[0] = 0;
    (void)error;
    (void)error_size;
    return 0;
}
#endif
