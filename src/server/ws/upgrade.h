/* server/ws: WebSocket streaming as the server owns it: the stream loops
 * (started with the server), the upgrade of `GET /v1/stream`, the drain
 * and the streaming metrics.
 *
 * The API's router calls srv_ws_upgrade for `GET /v1/stream` with
 * `Upgrade: websocket`: the handshake is checked on the HTTP loop, then,
 * once every earlier answer on the connection is written, the socket is
 * handed to the least busy stream loop with the handshake answer still
 * to write (loops.h). Every streaming client lives on a stream loop.
 * srv_ws_upgrade and srv_ws_connections: from any HTTP loop; the rest
 * from the daemon's thread. */
#ifndef ANIMD_SERVER_WS_UPGRADE_H
#define ANIMD_SERVER_WS_UPGRADE_H

#include <stddef.h>

#include "server/access_log.h"
#include "server/http/http.h"
#include "server/pool.h"
#include "server/ws/stream.h"
#include "store/store.h"

typedef struct srv_ws_s srv_ws_t;

/* Starts threads stream loops (at least 1) over store and pool (neither
 * owned; both must outlive srv_ws_free, and so must log, which gets a
 * line per session) with limits lim. Returns 0 and
 * *out, or a negative errno. */
int srv_ws_new(unsigned threads, store_t *store, srv_pool_t *pool,
               const srv_ws_limits_t *lim, srv_access_log_t *log,
               srv_ws_t **out);

/* Takes over req (`GET /v1/stream`), admitted with cred (NULL: none):
 * answers a refused handshake (400, 426) or a drain (503), else hands the
 * connection to a stream loop once its earlier answers are written.
 * Returns 0 when req is taken care of, or a negative errno for the router
 * to answer (500). */
int srv_ws_upgrade(srv_ws_t *ws, srv_request_t *req,
                   const srv_ws_credential_t *cred);

/* Tokens were reloaded: every session whose credential valid no longer
 * accepts is closed with 1008 (on its loop, soon after). */
void srv_ws_revoke(srv_ws_t *ws, srv_ws_credential_valid_cb valid, void *arg);

/* Server shutdown: every streaming client gets a close frame 1001
 * ("going away"); later upgrades get 503. */
void srv_ws_drain(srv_ws_t *ws);

/* Drains if not yet drained, waits for the stream loops to end (their
 * clients gone) and frees: after the HTTP loop has ended, before the pool
 * and the store close. NULL does nothing. */
void srv_ws_free(srv_ws_t *ws);

/* Streaming connections open now (they count toward max_connections). */
unsigned srv_ws_connections(const srv_ws_t *ws);

/* Appends the streaming metrics (Prometheus text) to the malloc'd buffer
 * *text of *len bytes, reallocating it. Returns 0 or UV_ENOMEM (the
 * buffer is then unchanged). */
int srv_ws_metrics_render(srv_ws_t *ws, char **text, size_t *len);

#endif
