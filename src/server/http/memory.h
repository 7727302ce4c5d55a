/* server/http: an in-memory transport for HTTP sessions (session.h), so
 * the whole HTTP side (parser, router, handlers, ranges, scheduling) runs
 * without a socket: in the unit tests and the HTTP fuzzer.
 *
 * The client's bytes are fed with srv_http_memory_send; what the server
 * writes collects in an output buffer. Writes complete only when the
 * test says so (srv_http_memory_flush, bounded in bytes), so a client
 * that does not read is simulated exactly: queued bytes stay queued and
 * backpressure applies. Loop thread only. */
#ifndef ANIMD_SERVER_HTTP_MEMORY_H
#define ANIMD_SERVER_HTTP_MEMORY_H

#include <stdbool.h>
#include <stddef.h>

#include "server/http/session.h"

typedef struct srv_http_memory_s srv_http_memory_t;

/* A client connected to host over memory. Returns NULL on ENOMEM. */
srv_http_memory_t *srv_http_memory_new(srv_http_host_t *host);

/* The client sends len bytes (copied), or half-closes (len 0 and eof). */
void srv_http_memory_send(srv_http_memory_t *m, const void *data, size_t len);
void srv_http_memory_eof(srv_http_memory_t *m);

/* The client reads: completes queued writes in order until at least max
 * bytes have completed (SIZE_MAX: all), moving them to the output.
 * Returns the bytes completed. */
size_t srv_http_memory_flush(srv_http_memory_t *m, size_t max);

/* What the client has read so far (NUL-terminated; consumed with
 * srv_http_memory_take). */
const char *srv_http_memory_output(const srv_http_memory_t *m, size_t *len);
void srv_http_memory_take(srv_http_memory_t *m, size_t n);

/* Bytes the server has queued and the client not read; whether the server
 * has closed the connection (after its writes, or at once). */
size_t srv_http_memory_queued(const srv_http_memory_t *m);
bool srv_http_memory_closed(const srv_http_memory_t *m);

/* The client goes away (a reset): the session is told, queued writes are
 * cancelled. */
void srv_http_memory_reset(srv_http_memory_t *m);

/* Frees the client side (resets first when still open). */
void srv_http_memory_free(srv_http_memory_t *m);

#endif
