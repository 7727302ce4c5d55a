/* server/http: the HTTP/1.1 protocol of one client, over any transport.
 *
 * A session parses requests with llhttp from the bytes its transport has
 * read, hands each complete request to the host's route callback, and
 * writes the answers through the transport (http.h's srv_respond*). The
 * transport is a table of functions: a TCP connection (srv_http_serve,
 * over net/conn.h) in the daemon, an in-memory pipe in the unit tests and
 * the fuzzer, so the whole HTTP side runs without a socket. Loop thread
 * only. */
#ifndef ANIMD_SERVER_HTTP_SESSION_H
#define ANIMD_SERVER_HTTP_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "server/config.h"
#include "server/errors.h"
#include "server/http/http.h"
#include "server/metrics.h"
#include "server/net/conn.h"
#include "server/schedule.h"

/* What a session needs around it; shared by every session of a loop and
 * owned by the server (or a test). */
typedef struct srv_http_host_s {
  const srv_config_t *cfg;  /* Limits and timeouts. */
  srv_server_t *server;     /* srv_request_server's answer. */
  srv_schedule_t *schedule; /* Where requests' work runs. */
  uv_loop_t *loop;
  /* Answers a complete request (the API's router). */
  void (*route)(srv_request_t *req);
  /* Whether route would take req (method and path known, no body yet):
   * decides 100 Continue. NULL: every request. */
  bool (*accepts)(const srv_request_t *req);
  /* An answer is finished (metrics, access log); may be NULL. */
  void (*request_done)(srv_request_t *req, void *arg);
  /* A connection closed while a request on it had no whole answer (a
   * request begun, with its handler, or its answer cut short); may be
   * NULL. */
  void (*closed_unanswered)(srv_unanswered_reason reason, void *arg);
  void *arg;
  bool draining; /* Set by the server: answers close their connection. */
} srv_http_host_t;

/* The transport under a session. ctx is passed back to each function. */
typedef struct srv_http_io_s {
  int (*writev)(void *ctx, const uv_buf_t *bufs, unsigned nbufs,
                srv_write_cb cb, void *arg);
  size_t (*queued)(void *ctx);
  /* Bytes read and not yet consumed, and consuming n of them. */
  void (*unread)(void *ctx, const char **data, size_t *len);
  void (*consume)(void *ctx, size_t n);
  void (*close)(void *ctx);
  void (*close_after_writes)(void *ctx);
  const char *(*peer)(void *ctx);
  /* A duplicate of the socket (srv_request_hand_off); NULL when the
   * transport has none. */
  int (*dup_socket)(void *ctx, uv_os_sock_t *fd);
} srv_http_io_t;

/* A session on io (ctx) for host. Returns 0 and *out, or UV_ENOMEM. */
int srv_http_new(srv_http_host_t *host, const srv_http_io_t *io, void *ctx,
                 srv_http_t **out);

/* The transport's events: bytes were read (nread > 0) or the peer is gone
 * (UV_EOF: half-closed, answers still go out; another errno: reset);
 * queued writes completed; the transport closed (the session's last
 * event: it frees itself once no request is held). */
void srv_http_on_read(srv_http_t *http, ssize_t nread);
void srv_http_on_drain(srv_http_t *http);
void srv_http_on_close(srv_http_t *http);

/* The server drains: an idle keep-alive session closes now; a busy one
 * closes after its answer. */
void srv_http_drain(srv_http_t *http);

/* Answers the JSON error of code (its status, message) and closes: for a
 * connection refused at accept (max_connections). */
void srv_http_reject(srv_http_t *http, srv_error_code code,
                     const char *message);

/* Serves HTTP on conn (net/conn.h): a session over the connection.
 * Returns 0, or a negative errno (the connection is closed). */
int srv_http_serve(srv_http_host_t *host, srv_conn_t *conn, srv_http_t **out);

/* True when conn carries an HTTP session (not yet upgraded). */
bool srv_http_is_conn_http(const srv_conn_t *conn);

#endif
