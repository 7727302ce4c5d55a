/* server: HTTP/1.1 requests and answers on a connection (llhttp glue).
 *
 * A connection parses with llhttp; when a request is complete the parser
 * pauses and the request goes to the router. The handler answers inline or
 * later (after a pool job), with one srv_respond* call or a chunked stream;
 * only when the answer is fully queued does the parser resume, so pipelined
 * requests are answered in order. The request and its strings live until
 * the answer is finished. Loop thread only. */
#ifndef ANIMD_SERVER_HTTP_H
#define ANIMD_SERVER_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/net/conn.h"

#define SRV_MAX_HEADERS 64
#define SRV_MAX_QUERY 32

typedef struct srv_kv_s {
  const char *name;
  const char *value;
} srv_kv_t;

typedef enum srv_method {
  SRV_GET = 0,
  SRV_HEAD,
  SRV_POST,
  SRV_PUT,
  SRV_DELETE,
  SRV_OPTIONS,
  SRV_PATCH,
  SRV_OTHER
} srv_method;

typedef struct srv_request_s {
  srv_conn_t *conn;
  srv_method method;
  const char *method_name;
  const char *target;     /* As sent: path and query. */
  const char *path;       /* Percent-decoded path, without the query. */
  const char *query;      /* Raw query after '?', "" when none. */
  srv_kv_t headers[SRV_MAX_HEADERS];
  unsigned header_count;
  srv_kv_t params[SRV_MAX_QUERY]; /* Decoded query parameters. */
  unsigned param_count;
  const char *body;       /* NUL-terminated copy, body_len bytes. */
  size_t body_len;
  int http_minor;         /* HTTP/1.x */
  bool keep_alive;
  bool upgrade;           /* Upgrade requested (Connection: upgrade). */
  uint64_t start_ns;      /* uv_hrtime() at the first byte. */
  /* Filled by the router for metrics and logs. */
  int route;
  /* private */
  int _status;
  uint64_t _bytes_out;
} srv_request_t;

/* The server the request came to (its store, configuration, pool and
 * metrics through server.h's accessors). */
srv_server_t *srv_request_server(const srv_request_t *req);

/* Case-insensitive header lookup; NULL when absent. */
const char *srv_request_header(const srv_request_t *req, const char *name);
/* Decoded query parameter; NULL when absent (the last one wins). */
const char *srv_request_param(const srv_request_t *req, const char *name);

/* ---- answers --------------------------------------------------------------
 * Each answer finishes the request: the connection then goes on with the
 * next pipelined request (or closes when keep-alive is off). extra_headers
 * is NULL or complete "Name: value\r\n" lines. For HEAD the body is not
 * sent but Content-Length is. */
void srv_respond(srv_request_t *req, int status, const char *content_type,
                 const char *extra_headers, const void *body, size_t len);

/* {"error":{"code","message","at"}}; at may be NULL (then null). 405 adds
 * no Allow header by itself: pass it with srv_respond_error_h. */
void srv_respond_error(srv_request_t *req, int status, const char *code,
                       const char *at, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void srv_respond_error_h(srv_request_t *req, int status,
                         const char *extra_headers, const char *code,
                         const char *at, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* A chunked answer streamed as it is produced. start queues the head;
 * each chunk is queued with cb run when it is written (backpressure:
 * compare srv_conn_queued against a high-water mark before producing
 * more); end queues the last chunk and finishes the request. A chunk of
 * length 0 is skipped. Return 0 or a negative errno (the connection is
 * closing: stop producing, but still call srv_respond_end or
 * srv_respond_abort). */
int srv_respond_start(srv_request_t *req, int status,
                      const char *content_type, const char *extra_headers);
int srv_respond_chunk(srv_request_t *req, const void *data, size_t len,
                      srv_conn_write_cb cb, void *arg);
void srv_respond_end(srv_request_t *req);
/* Ends a stream that cannot be completed: the connection closes so the
 * client sees a truncated chunked body, never a complete-looking one. */
void srv_respond_abort(srv_request_t *req);

const char *srv_status_text(int status);

#endif
