/* server: the WebSocket endpoint's entry points from the rest of the
 * daemon.
 *
 * The router calls srv_ws_upgrade for `GET /v1/stream` when the request
 * asks for `Upgrade: websocket`. The WebSocket code then owns the
 * connection (srv_conn_set_proto, conn.h). The drain sequence calls
 * srv_ws_drain so every stream gets a close frame (1001) before the
 * connections close, and /metrics appends srv_ws_metrics_render's lines.
 * Loop thread only. */
#ifndef ANIMD_SERVER_WS_H
#define ANIMD_SERVER_WS_H

#include <stddef.h>

#include "server/net/conn.h"
#include "server/http/http.h"

/* Takes over conn for the upgrade request req (valid during the call only).
 * Returns 0 when the connection is taken: the handshake answer is written
 * and the protocol installed, or an error answer is written and the
 * connection will close. Otherwise the router answers: UV_ENOSYS gives
 * 501, UV_EINVAL 400, any other negative errno 500. */
int srv_ws_upgrade(srv_conn_t *conn, const srv_request_t *req);

/* Server shutdown: every WebSocket connection of server gets a close frame
 * 1001 ("going away") and closes once it is written; the streaming timers
 * close when the last connection is gone, so the loop can end. */
void srv_ws_drain(srv_server_t *server);

/* After the server loop has ended: waits for the stream loops to finish
 * (drained first if they were not) and frees them, so the store can
 * close. */
void srv_ws_release(srv_server_t *server);

/* Connections handed over to the stream loops and still open (they count
 * toward max_connections). */
unsigned srv_ws_moved_connections(void);

/* Appends the streaming metrics (Prometheus text) to the malloc'd buffer
 * *text of *len bytes, reallocating it. Returns 0 or UV_ENOMEM (the
 * buffer is then unchanged). */
int srv_ws_metrics_render(char **text, size_t *len);

#endif
