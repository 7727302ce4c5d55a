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

#include "server/services.h"

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

#endif
