#include "cbabeltrace.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#if __has_include(<babeltrace2/babeltrace.h>)
#include <babeltrace2/babeltrace.h>

#define MAX_FIELDS 32
#define TEXT_BUFFER 65536
#define LAYOUTS 256

/* How a payload member is read. MEMBER_SKIPPED: not read nor handed over (see layout_of). */
enum member_kind { MEMBER_UNSIGNED, MEMBER_SIGNED, MEMBER_STRING, MEMBER_ARRAY, MEMBER_OTHER, MEMBER_SKIPPED };

/* A payload class's members, worked out once: the first MAX_FIELDS of them. */
struct layout {
    const bt_field_class *class;
    uint64_t members;
    const char *names[MAX_FIELDS];
    enum member_kind kinds[MAX_FIELDS];
};

typedef struct reader {
    cbt_callback callback;
    void *context;
    cbt_losses *losses;
    /* Where losses go when the caller does not ask for them. */
    cbt_losses scratch;
    int stopped;
    cbt_field fields[MAX_FIELDS];
    char text[MAX_FIELDS][256];
    /* The common context class seen last and the places of vtid and vpid in it (-1: absent), and
       the trace seen last with its hostname: looked up by name when they change, not three
       times an event (string hashing and comparing was a tenth of a read). Forgotten at every
       stream's beginning and end, so a class or trace freed with its streams is never used. */
    const bt_field_class *context_class;
    int64_t vtid_index, vpid_index;
    enum member_kind vtid_kind, vpid_kind;
    const bt_trace *host_trace;
    const char *host_name;
    /* The clock class seen last and its offset and origin, read when it changes (forgotten with
       the context class above), not at every event. */
    const bt_clock_class *offset_clock;
    int64_t offset_ns;
    int offset_unix;
    uint64_t frequency;
    /* Payload classes worked out (their members' names and how each is read), by the class's
       address, in an open-addressed table of `layouts_used` (see layout_of): asking
       libbabeltrace2 each event for every member's name and type was a tenth of a read.
       Forgotten with the classes above. */
    struct layout *layouts[LAYOUTS];
    int layouts_used;
    /* How many times the classes were forgotten (cbt_event's `generation`). */
    uint64_t generation;
} reader;

int cbt_available(void) { return 1; }

/* The event's time in nanoseconds, from its clock's value at `frequency`. */
static uint64_t clock_ns(const bt_message *message, uint64_t frequency) {
    uint64_t value = bt_clock_snapshot_get_value(bt_message_event_borrow_default_clock_snapshot_const(message));
    if (frequency == 1000000000ull || frequency == 0) return value;
    return (uint64_t)((long double)value * 1e9L / (long double)frequency);
}

/* The clock's offset from its origin in nanoseconds (seconds and cycles, as the clock class
 * stores it). */
static int64_t clock_offset(const bt_clock_class *clock) {
    int64_t seconds = 0;
    uint64_t cycles = 0;
    bt_clock_class_get_offset(clock, &seconds, &cycles);
    uint64_t frequency = bt_clock_class_get_frequency(clock);
    long double ns = (long double)seconds * 1e9L;
    ns += frequency == 0 ? (long double)cycles : (long double)cycles * 1e9L / (long double)frequency;
    if (ns > 9.2e18L || ns < -9.2e18L) return 0; /* no offset an int64 of nanoseconds holds */
    return (int64_t)ns;
}

static enum member_kind member_kind_of(bt_field_class_type type) {
    if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) return MEMBER_UNSIGNED;
    if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) return MEMBER_SIGNED;
    if (type == BT_FIELD_CLASS_TYPE_STRING) return MEMBER_STRING;
    if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_ARRAY)) return MEMBER_ARRAY;
    return MEMBER_OTHER;
}

/* Fills `out` from a field of `kind`; returns 0 when the field's type is not representable. */
static int convert(reader *r, int index, enum member_kind kind, const bt_field *field, cbt_field *out) {
    out->is_text = 0;
    out->integer = 0;
    out->text = NULL;
    out->text_length = 0;
    switch (kind) {
    case MEMBER_UNSIGNED: out->integer = bt_field_integer_unsigned_get_value(field); return 1;
    case MEMBER_SIGNED: out->integer = (uint64_t)bt_field_integer_signed_get_value(field); return 1;
    case MEMBER_STRING:
        out->is_text = 1;
        out->text = bt_field_string_get_value(field);
        out->text_length = (uint32_t)bt_field_string_get_length(field);
        return 1;
    case MEMBER_ARRAY: {
        /* A text sequence that was not turned into a string: bytes as 8-bit integers. */
        uint64_t n = bt_field_array_get_length(field);
        if (n > 255) n = 255;
        for (uint64_t i = 0; i < n; i++) {
            const bt_field *element = bt_field_array_borrow_element_field_by_index_const(field, i);
            r->text[index][i] = (char)bt_field_integer_unsigned_get_value(element);
        }
        out->is_text = 1;
        out->text = r->text[index];
        out->text_length = (uint32_t)n;
        return 1;
    }
    case MEMBER_OTHER:
    case MEMBER_SKIPPED: return 0;
    }
    return 0;
}

/* The layout of payload class `class`, from the table or worked out now; NULL when out of memory.
 * The table is open-addressed (a multiplicative hash, linear probing) and forgotten whole when
 * three quarters full, so two classes in use never push each other out at every event. */
static const struct layout *layout_of(reader *r, const bt_field_class *class) {
    size_t i = (size_t)(((uint64_t)(uintptr_t)class * 0x9E3779B97F4A7C15ull) >> 56) % LAYOUTS;
    while (r->layouts[i] && r->layouts[i]->class) {
        if (r->layouts[i]->class == class) return r->layouts[i];
        i = (i + 1) % LAYOUTS;
    }
    if (r->layouts_used >= LAYOUTS * 3 / 4) {
        for (int j = 0; j < LAYOUTS; j++) {
            if (r->layouts[j]) r->layouts[j]->class = NULL;
        }
        r->layouts_used = 0;
        i = (size_t)(((uint64_t)(uintptr_t)class * 0x9E3779B97F4A7C15ull) >> 56) % LAYOUTS;
    }
    if (!r->layouts[i] && !(r->layouts[i] = malloc(sizeof(struct layout)))) return NULL;
    struct layout *layout = r->layouts[i];
    r->layouts_used++;
    layout->class = class;
    layout->members = bt_field_class_structure_get_member_count(class);
    if (layout->members > MAX_FIELDS) layout->members = MAX_FIELDS;
    for (uint64_t m = 0; m < layout->members; m++) {
        const bt_field_class_structure_member *member = bt_field_class_structure_borrow_member_by_index_const(class, m);
        layout->names[m] = bt_field_class_structure_member_get_name(member);
        /* A sequence's length (LTTng names it `_NAME_length`) is in the sequence itself: members
           whose names begin with an underscore are not handed over (a sixth of an event's). */
        layout->kinds[m] = layout->names[m][0] == '_' ? MEMBER_SKIPPED
                           : member_kind_of(bt_field_class_get_type(bt_field_class_structure_member_borrow_field_class_const(member)));
    }
    return layout;
}

/* Forgets every class worked out: at each stream's beginning and end, so that a class freed with
   its streams is never used. */
static void forget_classes(reader *r) {
    r->generation++;
    r->context_class = NULL;
    r->host_trace = NULL;
    r->offset_clock = NULL;
    for (int i = 0; i < LAYOUTS; i++) {
        if (r->layouts[i]) r->layouts[i]->class = NULL;
    }
    r->layouts_used = 0;
}

static int64_t member_index(const bt_field_class *structure, const char *name) {
    uint64_t members = bt_field_class_structure_get_member_count(structure);
    for (uint64_t i = 0; i < members; i++) {
        const bt_field_class_structure_member *member = bt_field_class_structure_borrow_member_by_index_const(structure, i);
        if (strcmp(bt_field_class_structure_member_get_name(member), name) == 0) return (int64_t)i;
    }
    return -1;
}

/* The kind of member `index` of `structure` (MEMBER_OTHER when it has none). */
static enum member_kind kind_of_member(const bt_field_class *structure, int64_t index) {
    if (index < 0) return MEMBER_OTHER;
    const bt_field_class_structure_member *member =
        bt_field_class_structure_borrow_member_by_index_const(structure, (uint64_t)index);
    return member_kind_of(bt_field_class_get_type(bt_field_class_structure_member_borrow_field_class_const(member)));
}

static uint32_t integer_of(const bt_field *context, int64_t index, enum member_kind kind) {
    if (kind != MEMBER_SIGNED && kind != MEMBER_UNSIGNED) return 0;
    const bt_field *field = bt_field_structure_borrow_member_field_by_index_const(context, (uint64_t)index);
    if (kind == MEMBER_SIGNED) return (uint32_t)bt_field_integer_signed_get_value(field);
    return (uint32_t)bt_field_integer_unsigned_get_value(field);
}

/* The event's vtid and vpid from its common context (0 where it has none). The context's class
 * is worked out when it changes: which members they are, and how each is read. */
static void context_of(reader *r, const bt_event *event, uint32_t *vtid, uint32_t *vpid) {
    *vtid = 0;
    *vpid = 0;
    const bt_field *context = bt_event_borrow_common_context_field_const(event);
    if (!context) return;
    const bt_field_class *class = bt_field_borrow_class_const(context);
    if (class != r->context_class) {
        r->context_class = class;
        int structure = bt_field_class_get_type(class) == BT_FIELD_CLASS_TYPE_STRUCTURE;
        r->vtid_index = structure ? member_index(class, "vtid") : -1;
        r->vpid_index = structure ? member_index(class, "vpid") : -1;
        r->vtid_kind = structure ? kind_of_member(class, r->vtid_index) : MEMBER_OTHER;
        r->vpid_kind = structure ? kind_of_member(class, r->vpid_index) : MEMBER_OTHER;
    }
    *vtid = integer_of(context, r->vtid_index, r->vtid_kind);
    *vpid = integer_of(context, r->vpid_index, r->vpid_kind);
}

static const char *hostname_of(reader *r, const bt_event *event) {
    const bt_stream *stream = bt_event_borrow_stream_const(event);
    const bt_trace *trace = stream ? bt_stream_borrow_trace_const(stream) : NULL;
    if (!trace) return "";
    if (trace != r->host_trace) {
        r->host_trace = trace;
        const bt_value *host = bt_trace_borrow_environment_entry_value_by_name_const(trace, "hostname");
        r->host_name = host && bt_value_get_type(host) == BT_VALUE_TYPE_STRING ? bt_value_string_get(host) : "";
    }
    return r->host_name;
}

static void deliver(reader *r, const bt_message *message) {
    const bt_event *event = bt_message_event_borrow_event_const(message);
    const bt_event_class *class = bt_event_borrow_class_const(event);
    cbt_event out;
    out.name = bt_event_class_get_name(class);
    out.event_class = class;
    out.generation = r->generation;
    const bt_clock_class *clock = bt_message_event_borrow_stream_class_default_clock_class_const(message);
    if (clock != r->offset_clock) {
        r->offset_clock = clock;
        r->offset_ns = clock ? clock_offset(clock) : 0;
        r->offset_unix = clock ? (int)bt_clock_class_origin_is_unix_epoch(clock) : 0;
        r->frequency = clock ? bt_clock_class_get_frequency(clock) : 0;
    }
    out.clock_ns = clock ? clock_ns(message, r->frequency) : 0;
    out.clock_offset_ns = r->offset_ns;
    out.clock_is_unix = r->offset_unix;
    context_of(r, event, &out.vtid, &out.vpid);
    out.hostname = hostname_of(r, event);
    out.field_count = 0;
    out.fields = r->fields;
    const bt_field *payload = bt_event_borrow_payload_field_const(event);
    const struct layout *layout = payload ? layout_of(r, bt_field_borrow_class_const(payload)) : NULL;
    if (layout) {
        for (uint64_t i = 0; i < layout->members; i++) {
            if (layout->kinds[i] == MEMBER_SKIPPED) continue;
            const bt_field *field = bt_field_structure_borrow_member_field_by_index_const(payload, i);
            cbt_field *f = &r->fields[out.field_count];
            if (convert(r, (int)out.field_count, layout->kinds[i], field, f)) {
                f->name = layout->names[i];
                out.field_count++;
            }
        }
    }
    if (r->callback(&out, r->context) != 0) r->stopped = 1;
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *iterator, void *user_data) {
    reader *r = user_data;
    bt_message_array_const messages;
    uint64_t count;
    switch (bt_message_iterator_next(iterator, &messages, &count)) {
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_END: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_ERROR: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
    default: break;
    }
    for (uint64_t i = 0; i < count; i++) {
        bt_message_type type = bt_message_get_type(messages[i]);
        if (!r->stopped && type == BT_MESSAGE_TYPE_EVENT) {
            deliver(r, messages[i]);
        } else if (type == BT_MESSAGE_TYPE_STREAM_BEGINNING || type == BT_MESSAGE_TYPE_STREAM_END) {
            forget_classes(r);
        } else if (type == BT_MESSAGE_TYPE_DISCARDED_EVENTS) {
            uint64_t lost = 0;
            if (bt_message_discarded_events_get_count(messages[i], &lost) == BT_PROPERTY_AVAILABILITY_AVAILABLE) {
                r->losses->discarded_events += lost;
            } else {
                r->losses->discarded_events_uncounted += 1;
            }
        } else if (type == BT_MESSAGE_TYPE_DISCARDED_PACKETS) {
            uint64_t lost = 0;
            if (bt_message_discarded_packets_get_count(messages[i], &lost) == BT_PROPERTY_AVAILABILITY_AVAILABLE) {
                r->losses->discarded_packets += lost;
            } else {
                r->losses->discarded_packets += 1;
            }
        }
        bt_message_put_ref(messages[i]);
    }
    return r->stopped ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END
                      : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

static void fail(char *error, size_t size, const char *what) {
    const bt_error *current = bt_current_thread_take_error();
    if (current && bt_error_get_cause_count(current) > 0) {
        const bt_error_cause *cause = bt_error_borrow_cause_by_index(current, 0);
        snprintf(error, size, "%s: %s", what, bt_error_cause_get_message(cause));
    } else {
        snprintf(error, size, "%s", what);
    }
    if (current) bt_error_release(current);
}

/* Appends to `inputs` (when not NULL) every directory at or below `path`, at most CBT_MAX_DEPTH
 * levels down, that holds a `metadata` file; stops after CBT_MAX_TRACES + 1. Links are not
 * followed (lstat), so no cycle and no tree outside `path` is searched. */
static int collect_traces(const char *path, bt_value *inputs, int depth, int found) {
    char candidate[4096];
    struct stat st;
    snprintf(candidate, sizeof candidate, "%s/metadata", path);
    if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode)) {
        if (inputs && bt_value_array_append_string_element(inputs, path) != BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK) return found;
        return found + 1;
    }
    if (depth >= CBT_MAX_DEPTH) return found;
    DIR *dir = opendir(path);
    if (!dir) return found;
    struct dirent *entry;
    int entries = 0;
    while (found <= CBT_MAX_TRACES && (entry = readdir(dir)) != NULL && ++entries <= 4096) {
        if (entry->d_name[0] == '.') continue;
        snprintf(candidate, sizeof candidate, "%s/%s", path, entry->d_name);
        if (lstat(candidate, &st) == 0 && S_ISDIR(st.st_mode)) found = collect_traces(candidate, inputs, depth + 1, found);
    }
    closedir(dir);
    return found;
}

int cbt_count_traces(const char *path) { return collect_traces(path, NULL, 0, 0); }

/* Builds source → muxer → sink with `source_name`'s class of the ctf plugin and `params`, and runs
 * it to its end. A live source answers "again" while it waits for data: `idle` is called then
 * (nonzero stops the reading), and the graph is run again after a short sleep. */
static int run_graph(const char *source_name, bt_value *params, reader *r, cbt_idle_callback idle, char *error,
                     size_t error_size) {
    int result = 1;
    const bt_plugin *ctf = NULL, *utils = NULL;
    bt_graph *graph = NULL;
    if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf) != BT_PLUGIN_FIND_STATUS_OK ||
        bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &utils) != BT_PLUGIN_FIND_STATUS_OK) {
        fail(error, error_size, "babeltrace2's ctf and utils plugins were not found");
        goto done;
    }
    graph = bt_graph_create(0);
    if (!graph) {
        fail(error, error_size, "out of memory");
        goto done;
    }
    const bt_component_source *source = NULL;
    const bt_component_filter *muxer = NULL;
    const bt_component_sink *sink = NULL;
    const bt_component_class_source *source_class = bt_plugin_borrow_source_component_class_by_name_const(ctf, source_name);
    if (!source_class || bt_graph_add_source_component(graph, source_class, "source", params, BT_LOGGING_LEVEL_NONE,
                                                       &source) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
        fail(error, error_size, idle ? "cannot connect to the LTTng relay daemon, or it has no such session"
                                     : "not a readable CTF trace");
        goto done;
    }
    if (bt_graph_add_filter_component(graph, bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"),
                                      "muxer", NULL, BT_LOGGING_LEVEL_NONE, &muxer) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
        bt_graph_add_simple_sink_component(graph, "sink", NULL, consume, NULL, r, &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
        fail(error, error_size, "cannot build the reading graph");
        goto done;
    }
    uint64_t outputs = bt_component_source_get_output_port_count(source);
    for (uint64_t i = 0; i < outputs; i++) {
        const bt_port_output *out = bt_component_source_borrow_output_port_by_index_const(source, i);
        const bt_port_input *in = bt_component_filter_borrow_input_port_by_index_const(muxer, i);
        if (!in || bt_graph_connect_ports(graph, out, in, NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
            fail(error, error_size, "cannot connect the trace's streams");
            goto done;
        }
    }
    if (bt_graph_connect_ports(graph, bt_component_filter_borrow_output_port_by_index_const(muxer, 0),
                               bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL) !=
        BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
        fail(error, error_size, "cannot connect the sink");
        goto done;
    }
    for (;;) {
        bt_graph_run_status status = bt_graph_run(graph);
        if (status == BT_GRAPH_RUN_STATUS_OK) break;
        if (status == BT_GRAPH_RUN_STATUS_AGAIN) {
            if (r->stopped) break;
            if (idle) {
                if (idle(r->context) != 0) break;
                struct timespec pause = {0, 20 * 1000 * 1000};
                nanosleep(&pause, NULL);
            }
            continue;
        }
        fail(error, error_size, idle ? "reading the live session failed (the relay daemon went away?)"
                                     : "reading the CTF trace failed");
        goto done;
    }
    result = 0;
done:
    bt_graph_put_ref(graph);
    bt_plugin_put_ref(ctf);
    bt_plugin_put_ref(utils);
    return result;
}

static void free_reader(reader *r) {
    if (!r) return;
    for (int i = 0; i < LAYOUTS; i++) free(r->layouts[i]);
    free(r);
}

/* What both readers start from: a reader counting into `losses` (zeroed first; into a scratch
 * of its own when the caller passes NULL) and the source's parameters with an empty "inputs"
 * array. NULL when out of memory, with nothing left allocated. */
static reader *make_reader(cbt_callback callback, void *context, cbt_losses *losses, bt_value **params,
                           bt_value **inputs) {
    if (losses) memset(losses, 0, sizeof *losses);
    reader *r = calloc(1, sizeof(reader));
    *params = bt_value_map_create();
    if (!r || !*params || bt_value_map_insert_empty_array_entry(*params, "inputs", inputs) != BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
        free(r);
        bt_value_put_ref(*params);
        *params = NULL;
        return NULL;
    }
    r->callback = callback;
    r->context = context;
    r->losses = losses ? losses : &r->scratch;
    return r;
}

int cbt_read_ctf(const char *path, cbt_callback callback, void *context, cbt_losses *losses, char *error, size_t error_size) {
    bt_value *params = NULL;
    bt_value *inputs = NULL;
    reader *r = make_reader(callback, context, losses, &params, &inputs);
    int result = 1;
    if (!r) {
        fail(error, error_size, "out of memory");
        return result;
    }
    int traces = collect_traces(path, inputs, 0, 0);
    if (traces == 0) {
        snprintf(error, error_size, "no CTF trace (no metadata file) at or below this directory");
        result = CBT_NO_TRACE;
        goto done;
    }
    if (traces > CBT_MAX_TRACES) {
        snprintf(error, error_size, "more than %d CTF traces below this directory; name one LTTng session's output", CBT_MAX_TRACES);
        result = CBT_TOO_MANY_TRACES;
        goto done;
    }
    result = run_graph("fs", params, r, NULL, error, error_size);
done:
    bt_value_put_ref(params);
    free_reader(r);
    return result;
}

int cbt_read_live(const char *url, cbt_callback callback, cbt_idle_callback idle, void *context, cbt_losses *losses,
                  char *error, size_t error_size) {
    bt_value *params = NULL;
    bt_value *inputs = NULL;
    reader *r = make_reader(callback, context, losses, &params, &inputs);
    int result = 1;
    if (!r || bt_value_array_append_string_element(inputs, url) != BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK ||
        bt_value_map_insert_string_entry(params, "session-not-found-action", "fail") != BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
        fail(error, error_size, "out of memory");
        goto done;
    }
    result = run_graph("lttng-live", params, r, idle, error, error_size);
done:
    bt_value_put_ref(params);
    free_reader(r);
    return result;
}

static const char *map_string(const bt_value *map, const char *key) {
    const bt_value *value = bt_value_map_borrow_entry_value_const(map, key);
    return value && bt_value_get_type(value) == BT_VALUE_TYPE_STRING ? bt_value_string_get(value) : "";
}

static uint64_t map_integer(const bt_value *map, const char *key) {
    const bt_value *value = bt_value_map_borrow_entry_value_const(map, key);
    if (!value) return 0;
    if (bt_value_get_type(value) == BT_VALUE_TYPE_UNSIGNED_INTEGER) return bt_value_integer_unsigned_get(value);
    if (bt_value_get_type(value) == BT_VALUE_TYPE_SIGNED_INTEGER) return (uint64_t)bt_value_integer_signed_get(value);
    return 0;
}

int cbt_list_live(const char *url, cbt_session_callback callback, void *context, char *error, size_t error_size) {
    int result = 1;
    const bt_plugin *ctf = NULL;
    bt_value *params = bt_value_map_create();
    bt_query_executor *query = NULL;
    const bt_value *sessions = NULL;
    if (!params || bt_value_map_insert_string_entry(params, "url", url) != BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
        fail(error, error_size, "out of memory");
        goto done;
    }
    if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf) != BT_PLUGIN_FIND_STATUS_OK) {
        fail(error, error_size, "babeltrace2's ctf plugin was not found");
        goto done;
    }
    const bt_component_class_source *live = bt_plugin_borrow_source_component_class_by_name_const(ctf, "lttng-live");
    query = live ? bt_query_executor_create(bt_component_class_source_as_component_class_const(live), "sessions", params)
                 : NULL;
    if (!query) {
        fail(error, error_size, "cannot ask babeltrace2's lttng-live source");
        goto done;
    }
    for (int attempts = 0;; attempts++) {
        bt_query_executor_query_status status = bt_query_executor_query(query, &sessions);
        if (status == BT_QUERY_EXECUTOR_QUERY_STATUS_OK) break;
        if (status == BT_QUERY_EXECUTOR_QUERY_STATUS_AGAIN && attempts < 250) {
            struct timespec pause = {0, 20 * 1000 * 1000};
            nanosleep(&pause, NULL);
            continue;
        }
        fail(error, error_size, "cannot list the sessions (is an LTTng relay daemon listening there?)");
        goto done;
    }
    if (!sessions || bt_value_get_type(sessions) != BT_VALUE_TYPE_ARRAY) {
        fail(error, error_size, "the relay daemon's answer is not a list of sessions");
        goto done;
    }
    uint64_t count = bt_value_array_get_length(sessions);
    for (uint64_t i = 0; i < count; i++) {
        const bt_value *session = bt_value_array_borrow_element_by_index_const(sessions, i);
        if (bt_value_get_type(session) != BT_VALUE_TYPE_MAP) continue;
        cbt_session out = {map_string(session, "url"), map_string(session, "target-hostname"),
                           map_string(session, "session-name"), map_integer(session, "stream-count"),
                           map_integer(session, "client-count")};
        if (callback(&out, context) != 0) break;
    }
    result = 0;
done:
    bt_value_put_ref(sessions);
    bt_query_executor_put_ref(query);
    bt_value_put_ref(params);
    bt_plugin_put_ref(ctf);
    return result;
}

#else

int cbt_available(void) { return 0; }

int cbt_read_live(const char *url, cbt_callback callback, cbt_idle_callback idle, void *context, cbt_losses *losses,
                  char *error, size_t error_size) {
    (void)url; (void)callback; (void)idle; (void)context; (void)losses;
    snprintf(error, error_size, "trace-view was built without libbabeltrace2");
    return CBT_UNAVAILABLE;
}

int cbt_list_live(const char *url, cbt_session_callback callback, void *context, char *error, size_t error_size) {
    (void)url; (void)callback; (void)context;
    snprintf(error, error_size, "trace-view was built without libbabeltrace2");
    return CBT_UNAVAILABLE;
}

int cbt_count_traces(const char *path) {
    (void)path;
    return 0;
}

int cbt_read_ctf(const char *path, cbt_callback callback, void *context, cbt_losses *losses, char *error, size_t error_size) {
    (void)path; (void)callback; (void)context; (void)losses;
    snprintf(error, error_size, "this build has no libbabeltrace2; install libbabeltrace2-dev and rebuild");
    return CBT_UNAVAILABLE;
}

#endif
