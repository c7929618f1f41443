#include "ccurl.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

static int ccurl_ready = 0;

void *ccurl_open(void) {
    if (!ccurl_ready) {
        /* Once, before any thread: trace-view calls this from its main thread only. */
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return NULL;
        ccurl_ready = 1;
    }
    return curl_easy_init();
}

void ccurl_close(void *handle) {
    if (handle) curl_easy_cleanup((CURL *)handle);
}

double ccurl_date(const char *text) {
    time_t t = curl_getdate(text, NULL);
    return t < 0 ? -1.0 : (double)t;
}

const char *ccurl_version(void) {
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    return info && info->version ? info->version : "";
}

typedef struct sink {
    ccurl_answer *answer;
    size_t max;
    size_t capacity;
} sink;

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    sink *s = (sink *)context;
    size_t n = size * count;
    ccurl_answer *a = s->answer;
    size_t room = s->max - a->body_length;
    size_t take = n < room ? n : room;
    if (take > 0) {
        if (a->body_length + take > s->capacity) {
            size_t want = s->capacity ? s->capacity * 2 : 4096;
            while (want < a->body_length + take) want *= 2;
            if (want > s->max) want = s->max;
            uint8_t *grown = realloc(a->body, want);
            if (!grown) return 0;
            a->body = grown;
            s->capacity = want;
        }
        memcpy(a->body + a->body_length, data, take);
        a->body_length += take;
    }
    if (take < n) {
        /* Past the limit: end the transfer (curl reports a write error, which `cut` explains). */
        a->cut = 1;
        return 0;
    }
    return n;
}

/* Copies the value of header `name` from the header line `line` into `into`. */
static void keep_header(const char *line, size_t n, const char *name, char *into, size_t room) {
    size_t name_length = strlen(name);
    if (n <= name_length || strncasecmp(line, name, name_length) != 0 || line[name_length] != ':') return;
    const char *value = line + name_length + 1;
    const char *end = line + n;
    while (value < end && (*value == ' ' || *value == '\t')) value++;
    while (end > value && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t')) end--;
    size_t length = (size_t)(end - value);
    if (length >= room) length = room - 1;
    memcpy(into, value, length);
    into[length] = 0;
}

static size_t on_header(char *data, size_t size, size_t count, void *context) {
    ccurl_answer *a = (ccurl_answer *)context;
    size_t n = size * count;
    /* A new status line (after a 100 Continue, say) starts the answer's headers afresh. */
    if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        a->retry_after[0] = 0;
        a->content_type[0] = 0;
    }
    keep_header(data, n, "retry-after", a->retry_after, sizeof a->retry_after);
    keep_header(data, n, "content-type", a->content_type, sizeof a->content_type);
    return n;
}

void ccurl_post(void *handle, const ccurl_request *request, ccurl_answer *answer) {
    memset(answer, 0, sizeof *answer);
    CURL *curl = (CURL *)handle;
    if (!curl) {
        answer->code = CURLE_FAILED_INIT;
        snprintf(answer->error, sizeof answer->error, "libcurl could not start");
        return;
    }
    struct curl_slist *headers = NULL;
    for (size_t i = 0; i < request->header_count; i++) {
        struct curl_slist *more = curl_slist_append(headers, request->headers[i]);
        if (!more) {
            curl_slist_free_all(headers);
            answer->code = CURLE_OUT_OF_MEMORY;
            snprintf(answer->error, sizeof answer->error, "out of memory");
            return;
        }
        headers = more;
    }
    char error[CURL_ERROR_SIZE] = {0};
    sink s = {answer, request->max_body, 0};
    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_URL, request->url);
    /* Only HTTP and HTTPS, never a redirect followed: a collector that redirects is answered
     * as an error, as the reference exporter does. */
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, (const char *)request->body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->body_length);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, request->timeout_ms > 0 ? request->timeout_ms : 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, answer);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    /* Answers compressed as the peer likes (gzip, deflate, whatever libcurl reads). */
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    if (request->ca_file && request->ca_file[0]) curl_easy_setopt(curl, CURLOPT_CAINFO, request->ca_file);
    if (request->client_certificate && request->client_certificate[0])
        curl_easy_setopt(curl, CURLOPT_SSLCERT, request->client_certificate);
    if (request->client_key && request->client_key[0]) curl_easy_setopt(curl, CURLOPT_SSLKEY, request->client_key);
    CURLcode code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer->status);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, NULL);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(headers);
    answer->code = (int)code;
    answer->timed_out = code == CURLE_OPERATION_TIMEDOUT;
    switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
        answer->connection_failed = answer->status == 0;
        break;
    default:
        break;
    }
    if (code != CURLE_OK) {
        const char *why = error[0] ? error : curl_easy_strerror(code);
        snprintf(answer->error, sizeof answer->error, "%s", why);
    }
}

void ccurl_answer_free(ccurl_answer *answer) {
    free(answer->body);
    answer->body = NULL;
    answer->body_length = 0;
}

int ccurl_gzip(const uint8_t *bytes, size_t length, uint8_t **out, size_t *out_length) {
    if (length > 0xFFFFFFFFu) return Z_BUF_ERROR; /* zlib counts in 32 bits; a batch is megabytes */
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 15 window bits + 16: a gzip header and trailer instead of zlib's. */
    int status = deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    if (status != Z_OK) return status;
    uLong bound = deflateBound(&z, (uLong)length);
    uint8_t *buffer = malloc(bound ? bound : 1);
    if (!buffer) {
        deflateEnd(&z);
        return Z_MEM_ERROR;
    }
    z.next_in = (Bytef *)bytes;
    z.avail_in = (uInt)length;
    z.next_out = buffer;
    z.avail_out = (uInt)bound;
    status = deflate(&z, Z_FINISH);
    size_t written = (size_t)z.total_out;
    deflateEnd(&z);
    if (status != Z_STREAM_END) {
        free(buffer);
        return status == Z_OK ? Z_BUF_ERROR : status;
    }
    *out = buffer;
    *out_length = written;
    return 0;
}
