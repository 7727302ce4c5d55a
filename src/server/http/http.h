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

#include <uv.h>

#include "server/errors.h"
#include "server/kv.h"
#include "server/net/conn.h"

typedef struct srv_server_s srv_server_t;
typedef struct srv_http_s srv_http_t;

#define SRV_MAX_HEADERS 64
#define SRV_MAX_QUERY 32

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
  srv_method method;
  const char *method_name;
  const char *target; /* As sent: path and query. */
  const char *path;   /* Percent-decoded path, without the query. */
  const char *query;  /* Raw query after '?', "" when none. */
  srv_kv_t headers[SRV_MAX_HEADERS];
  unsigned header_count;
  srv_kv_t params[SRV_MAX_QUERY]; /* Decoded query parameters. */
  unsigned param_count;
  const char *body; /* NUL-terminated copy, body_len bytes. */
  size_t body_len;
  int http_minor; /* HTTP/1.x */
  bool keep_alive;
  bool upgrade;      /* Upgrade requested (Connection: upgrade). */
  uint64_t start_ns; /* uv_hrtime() at the first byte. */
  /* Filled by the router (api/router.h) from the matched route: its
   * label for metrics and logs (NULL: none), whether a ?token= parameter
   * is a credential there, the route itself, and how many times its
   * handler has run again after a load (api/shared_store.h). */
  const char *route;
  bool query_token;
  const struct srv_route_s *matched;
  unsigned resumes;
  /* private */
  srv_http_t *_http;
  int _status;
  uint64_t _bytes_out;
} srv_request_t;

/* The server the request came to (its store, configuration, pool and
 * metrics through server.h's accessors). */
srv_server_t *srv_request_server(const srv_request_t *req);

/* The configuration, and the scheduling policy work for this request
 * runs under (schedule.h). */
const struct srv_config_s *srv_request_config(const srv_request_t *req);
struct srv_schedule_s *srv_request_schedule(const srv_request_t *req);

/* Whether the request's Host names this server (hosts.h: loopback, the
 * listen address, allowed_hosts); true without Host. */
bool srv_request_host_allowed(const srv_request_t *req);
/* The request's Host when it names this server, else NULL: what makes an
 * Origin the server's own (cors.h). */
const char *srv_request_own_host(const srv_request_t *req);

/* "ip:port" of the client, for logs. Never NULL. */
const char *srv_request_peer(const srv_request_t *req);

/* Keeps the request (and its strings) valid for work that answers later:
 * every hold needs one release. While held, srv_request_gone tells
 * whether the client has left (then nothing may be answered). */
void srv_request_hold(srv_request_t *req);
void srv_request_release(srv_request_t *req);
bool srv_request_gone(const srv_request_t *req);

/* Bytes of answers queued to the client and not yet written: what a
 * streamed answer compares against its high-water mark. */
size_t srv_request_queued(const srv_request_t *req);

/* For a protocol upgrade: once every answer before this request is
 * written, cb runs (at once when they already are); the request stays
 * dispatched until srv_request_hand_off or an answer. */
void srv_request_when_flushed(srv_request_t *req,
                              void (*cb)(srv_request_t *req, void *arg),
                              void *arg);

/* Hands the client's socket to another loop: *fd is a duplicate the
 * caller owns, in/in_len the bytes the client sent after this request
 * (valid during the call to consume, which must copy them). On success
 * this side lets go of the connection without writing anything more.
 * Returns 0, UV_ENOTSUP when the transport is not a socket, or a
 * negative errno. */
int srv_request_hand_off(srv_request_t *req,
                         int (*consume)(uv_os_sock_t fd, const char *in,
                                        size_t in_len, void *arg),
                         void *arg);
/* Case-insensitive header lookup; NULL when absent. */
const char *srv_request_header(const srv_request_t *req, const char *name);
/* Decoded query parameter; NULL when absent (the last one wins). */
const char *srv_request_param(const srv_request_t *req, const char *name);
/* The one decoding of a query parameter's name or value: n bytes of s,
 * percent escapes decoded and '+' a space, into out (n + 1 bytes at most,
 * NUL-terminated). Returns the end of out. A request's parameters are
 * decoded by it, and the access log's redaction of their values. */
char *srv_query_decode(const char *s, size_t n, char *out);
/* Whether a decoded parameter name of n bytes holds a control character
 * (NUL included): such a name is refused (400 bad_parameter). */
bool srv_query_name_has_control(const char *name, size_t n);

/* ---- answers --------------------------------------------------------------
 * Each answer finishes the request: the connection then goes on with the
 * next pipelined request (or closes when keep-alive is off). extra_headers
 * is NULL or complete "Name: value\r\n" lines. For HEAD the body is not
 * sent but Content-Length is. A JSON answer of 1 KiB up to
 * SRV_GZIP_WHOLE_MAX to a client that accepts gzip goes out gzip-coded
 * (Content-Encoding, Vary, a strong ETag made weak); a larger one goes
 * out as it is (api/large_answer.h streams those, gzip-coded a slice at a
 * time). A chunked JSON stream goes out gzip-coded, each chunk compressed
 * as it is sent (gzip.h). */
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

/* The error answer of code (server/errors.h): the table's status and wire
 * string, at NULL for none, fmt NULL for the code's default message. */
void srv_respond_fail(srv_request_t *req, srv_error_code code, const char *at,
                      const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void srv_respond_fail_h(srv_request_t *req, srv_error_code code,
                        const char *extra_headers, const char *at,
                        const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A chunked answer streamed as it is produced. start queues the head;
 * each chunk is queued with cb run when it is written (backpressure:
 * compare srv_request_queued against a high-water mark before producing
 * more); end queues the last chunk and finishes the request. A chunk of
 * length 0 is skipped. Return 0 or a negative errno (the connection is
 * closing: stop producing, but still call srv_respond_end or
 * srv_respond_abort). */
int srv_respond_start(srv_request_t *req, int status, const char *content_type,
                      const char *extra_headers);
int srv_respond_chunk(srv_request_t *req, const void *data, size_t len,
                      srv_write_cb cb, void *arg);
void srv_respond_end(srv_request_t *req);
/* Whether an answer to req of content_type would be gzip-coded (the
 * client accepts gzip and the type is compressed). */
bool srv_respond_gzips(const srv_request_t *req, const char *content_type);
/* After srv_respond_start: takes the stream's deflate state over (NULL
 * when the answer is not gzip-coded). The chunks then go out as they are
 * given, already compressed by the caller with it (on any one thread at a
 * time), who also compresses the end of the member (srv_gzip_deflate with
 * finish) before srv_respond_end, and frees it. */
struct srv_gzip_s *srv_respond_take_gzip(srv_request_t *req);
/* Ends a stream that cannot be completed: the connection closes so the
 * client sees a truncated chunked body, never a complete-looking one. */
void srv_respond_abort(srv_request_t *req);

const char *srv_status_text(int status);

#endif
