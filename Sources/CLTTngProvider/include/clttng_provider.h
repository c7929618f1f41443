#ifndef CLTTNG_PROVIDER_H
#define CLTTNG_PROVIDER_H
/* The provider shared object exports only LTTng-UST's probe registration; nothing to call. */
#endif
