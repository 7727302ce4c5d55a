/* server: what the rooms of the server may reach of the daemon they run
 * in, behind the opaque srv_server_t: its configuration, pool, metrics,
 * loop, store, shared store backend, HTTP host, WebSocket side and access
 * control, and whether it drains. The daemon object itself (creating,
 * listening, draining, freeing) is server.h's, which only the top and
 * main.c use. Loop thread only. */
#ifndef ANIMD_SERVER_SERVICES_H
#define ANIMD_SERVER_SERVICES_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "server/config.h"
#include "server/metrics.h"
#include "server/pool.h"

typedef struct srv_server_s srv_server_t;

const srv_config_t *srv_server_config(const srv_server_t *server);
srv_pool_t *srv_server_pool(srv_server_t *server);
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
