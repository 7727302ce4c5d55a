/* server: the daemon object: listener, connections, pool, store, metrics,
 * access log and the shutdown sequence.
 *
 * main.c creates one server on its loop, calls srv_server_listen, runs the
 * loop, and on SIGTERM calls srv_server_drain: the listener closes, idle
 * connections close, in-flight requests finish (bounded by
 * drain_timeout), then the pool and everything else close so uv_run
 * returns. Loop thread only. */
#ifndef ANIMD_SERVER_SERVER_H
#define ANIMD_SERVER_SERVER_H

#include <stdbool.h>
#include <stdio.h>

#include <uv.h>

#include "server/config.h"

typedef struct srv_server_s srv_server_t;
#include "server/metrics.h"
#include "server/pool.h"

/* Creates a server from cfg (copied) on loop: starts the pool and opens
 * the store (loading data_dir and the demo when asked). Returns 0 or a
 * negative errno with a message in err. Never runs loop: on failure, the
 * handles it made on loop are closing, and what is left is freed when
 * loop runs next (uv_run(loop, UV_RUN_DEFAULT) before uv_loop_close). */
int srv_server_new(uv_loop_t *loop, const srv_config_t *cfg, srv_server_t **out,
                   char *err, size_t err_len);

/* Binds and listens on cfg.listen; writes cfg.ready_file. Returns 0 or a
 * negative errno. */
int srv_server_listen(srv_server_t *server);

/* The bound "host:port" once listening ("[v6]:port" for IPv6; several
 * addresses, space-separated, when the listen host resolved to several). */
const char *srv_server_address(const srv_server_t *server);

/* One line for the start-up log: version, the addresses listened on, the
 * store (data dir, assets loaded and skipped, memory limit), the worker
 * and stream threads. */
void srv_server_describe(srv_server_t *server, char *out, size_t cap);

/* Starts the graceful stop (idempotent). done runs when every connection
 * is closed (or drain_timeout passed and the rest were closed) and the
 * pool is stopped; after it, srv_server_free may be called once uv_run
 * returns. */
void srv_server_drain(srv_server_t *server, void (*done)(srv_server_t *));

/* Reopens the access log (SIGHUP). Returns 0 or a negative errno. */
int srv_server_reopen_log(srv_server_t *server);

/* SIGHUP: reopens the access log and re-reads the tokens file (a bad file
 * keeps the tokens in force); says what happened on stderr. Returns 0, or
 * a negative errno when either failed. */
int srv_server_reload(srv_server_t *server);

/* Frees the server after the loop has finished its handles. */
void srv_server_free(srv_server_t *server);

const srv_config_t *srv_server_config(const srv_server_t *server);
srv_pool_t *srv_server_pool(srv_server_t *server);
srv_metrics_t *srv_server_metrics(srv_server_t *server);
uv_loop_t *srv_server_loop(const srv_server_t *server);
/* The asset store (struct store_s, store/store.h). */
struct store_s *srv_server_store(srv_server_t *server);
/* The shared store backend (backend.h) the store caches, or NULL when the
 * store is the node's own (store = file). */
const struct srv_backend_s *srv_server_backend(srv_server_t *server);

/* What the server's HTTP sessions share (http/session.h): a session made
 * with it on any transport (srv_http_new; the in-memory one of
 * http/memory.h in tests) is served like an accepted connection. */
struct srv_http_host_s *srv_server_http_host(srv_server_t *server);

/* WebSocket streaming (struct srv_ws_s, ws/upgrade.h). */
struct srv_ws_s *srv_server_ws(srv_server_t *server);

/* Access rules and rate limits (struct srv_auth_s, auth/auth.h). */
struct srv_auth_s *srv_server_auth(srv_server_t *server);

/* True once srv_server_drain has been called. */
bool srv_server_draining(const srv_server_t *server);

/* The whole /metrics text (Prometheus exposition format): request
 * counters and latencies, connections, pool, store and streaming figures.
 * *text is malloc'd (the caller frees it). Returns 0 or UV_ENOMEM. */
int srv_server_metrics_text(srv_server_t *server, char **text, size_t *len);

#endif
