/* server: placeholder for the WebSocket endpoint until it is built: every
 * upgrade is refused as not implemented (501). */
#include "server/ws.h"

int srv_ws_upgrade(srv_conn_t *conn, const srv_request_t *req) {
  (void)conn;
  (void)req;
  return UV_ENOSYS;
}
