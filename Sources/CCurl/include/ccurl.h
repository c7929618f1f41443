#ifndef CCURL_H
#define CCURL_H

/* One POST over libcurl (HTTP/1.1 or HTTP/2, TLS with the system's CA store, keep-alive on a
 * reused handle, proxies from the environment), with plain C values in and out: Swift cannot
 * call curl_easy_setopt, which is variadic. And gzip over zlib, for request bodies (libcurl
 * decompresses answers but never compresses what it sends). */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What to send. */
typedef struct ccurl_request {
    const char *url;
    /* "Name: value" lines, without line ends. */
    const char *const *headers;
    size_t header_count;
    const uint8_t *body;
    size_t body_length;
    /* The whole transfer's limit: connecting, sending and the whole answer. */
    long timeout_ms;
    /* A PEM file of the CA certificates to trust instead of the system's, or NULL. */
    const char *ca_file;
    /* The client's certificate and key (PEM) for mutual TLS, or NULL. */
    const char *client_certificate;
    const char *client_key;
    /* The most of the answer's body kept; past it the transfer ends (`cut` says so). */
    size_t max_body;
} ccurl_request;

/* What came back. `body` is malloc'd (or NULL): free it with ccurl_answer_free. */
typedef struct ccurl_answer {
    /* curl's result: 0 when an answer came whole (whatever its status). */
    int code;
    /* 1 when nothing was answered because the connection failed: refused, reset or closed
     * before an answer, or a name that does not resolve (what OTLP/HTTP retries). */
    int connection_failed;
    /* 1 when the transfer hit its time limit. */
    int timed_out;
    long status;
    uint8_t *body;
    size_t body_length;
    /* 1 when the body was longer than `max_body` (only its start is kept). */
    int cut;
    /* The answer's Retry-After and Content-Type values ("" when absent), cut to fit. */
    char retry_after[128];
    char content_type[128];
    /* curl's words for a failure ("" on success). */
    char error[256];
} ccurl_answer;

/* A handle for POSTs to one collector, kept for its connections; NULL when libcurl fails. */
void *ccurl_open(void);
void ccurl_close(void *handle);
/* POSTs `request` on `handle`; fills `answer` (free it with ccurl_answer_free). */
void ccurl_post(void *handle, const ccurl_request *request, ccurl_answer *answer);
void ccurl_answer_free(ccurl_answer *answer);
/* An HTTP date (RFC 9110's IMF-fixdate and its obsolete forms) as seconds since 1970, or -1. */
double ccurl_date(const char *text);
/* libcurl's version ("8.5.0"). */
const char *ccurl_version(void);

/* `length` bytes as one gzip member (RFC 1952) into a malloc'd buffer: 0 on success (free
 * `*out`), else zlib's error code. */
int ccurl_gzip(const uint8_t *bytes, size_t length, uint8_t **out, size_t *out_length);

#ifdef __cplusplus
}
#endif

#endif
