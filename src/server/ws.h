/* server: the WebSocket endpoint's single entry point from the router.
 *
 * The router calls srv_ws_upgrade for `GET /v1/stream` when the request
 * asks for `Upgrade: websocket`. The WebSocket code then owns the
 * connection (srv_conn_set_proto, conn.h). */
#ifndef ANIMD_SERVER_WS_H
#define ANIMD_SERVER_WS_H

#include "server/conn.h"
#include "server/http.h"

/* Takes over conn for the upgrade request req (valid during the call only).
 * Returns 0 when the connection is taken: the handshake answer is written
 * and the protocol installed, or an error answer is written and the
 * connection will close. Otherwise the router answers: UV_ENOSYS gives
 * 501, UV_EINVAL 400, any other negative errno 500. */
int srv_ws_upgrade(srv_conn_t *conn, const srv_request_t *req);

#endif
