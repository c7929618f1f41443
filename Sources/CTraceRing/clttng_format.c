/* The code names declared in include/clttng_format.h, shared by the LTTng provider (its
 * fields' texts) and the Swift readers (TraceNames.swift checks its tables against them). */
#include "clttng_format.h"

#include <stddef.h>

/* The names LTTng traces carry for codes, by kind: the case names of the Swift enums in raw-value
 * order (TraceNames.swift derives its tables from those enums; the tests compare the two). */
static const char *const lifecycle_names[] = {"active", "cancelled", "deallocated", "failed"};
static const char *const style_names[] = {"post", "send", "request", "uniqueRequest", "initial", "taskRequest", "taskResponse"};
static const char *const rejection_names[] = {"cancelled", "deallocated", "systemError", "queueFull", "reentrant"};
static const char *const effect_names[] = {"none", "event", "action", "asyncAction", "task", "cancel", "sequence"};
static const char *const cycle_outcome_names[] = {"settled", "handedOff", "aborted"};
static const char *const policy_names[] = {"switchToLatest", "shareable", "unique"};
static const char *const cancel_names[] = {"replaced", "cancelEffect", "uniqueRequest", "runtimeStop"};
static const char *const task_outcome_names[] = {"settle", "request", "response", "cancelled", "failed"};
static const char *const resume_names[] = {"response", "nil", "error"};
static const char *const drop_names[] = {"sequenceIntermediate", "discardedOnStop"};

#define CLTTNG_TABLE(names) {names, (uint8_t)(sizeof names / sizeof names[0])}
static const struct {
    const char *const *names;
    uint8_t count;
} code_tables[CLTTNG_KIND_COUNT] = {
    [CLTTNG_KIND_RUNTIME_STOP] = CLTTNG_TABLE(lifecycle_names),
    [CLTTNG_KIND_DISPATCH] = CLTTNG_TABLE(style_names),
    [CLTTNG_KIND_DISPATCH_REJECTED] = CLTTNG_TABLE(style_names),
    [CLTTNG_KIND_EFFECT] = CLTTNG_TABLE(effect_names),
    [CLTTNG_KIND_CYCLE_LEAVE] = CLTTNG_TABLE(cycle_outcome_names),
    [CLTTNG_KIND_TASK_SPAWN] = CLTTNG_TABLE(policy_names),
    [CLTTNG_KIND_TASK_CANCEL] = CLTTNG_TABLE(cancel_names),
    [CLTTNG_KIND_TASK_SETTLE] = CLTTNG_TABLE(task_outcome_names),
    [CLTTNG_KIND_REQUEST_RESUME] = CLTTNG_TABLE(resume_names),
    [CLTTNG_KIND_EVENT_DROPPED] = CLTTNG_TABLE(drop_names),
};

uint8_t clttng_code_count(uint8_t kind) { return kind < CLTTNG_KIND_COUNT ? code_tables[kind].count : 0; }

const char *clttng_code_name(uint8_t kind, uint8_t code) {
    if (kind >= CLTTNG_KIND_COUNT || code_tables[kind].count == 0) return NULL;
    return code < code_tables[kind].count ? code_tables[kind].names[code] : "unknown";
}

/* Only dispatchRejected has a second code, its reason. */
uint8_t clttng_code2_count(uint8_t kind) {
    return kind == CLTTNG_KIND_DISPATCH_REJECTED ? (uint8_t)(sizeof rejection_names / sizeof rejection_names[0]) : 0;
}

const char *clttng_code2_name(uint8_t kind, uint8_t code) {
    if (clttng_code2_count(kind) == 0) return NULL;
    return code < clttng_code2_count(kind) ? rejection_names[code] : "unknown";
}
