/* server: GET /v1/stream, the WebSocket upgrade (handlers.h). */
#include <string.h>
#include <strings.h>

#include "server/api/handlers.h"
#include "server/api/params.h"
#include "server/services.h"
#include "server/ws/upgrade.h"

void srv__handle_stream(srv_request_t *req) {
  if (srv__check_query(req, SRV_EP_STREAM) != 0) return;
  const char *up = srv_request_header(req, "Upgrade");
  if (up == NULL || strcasecmp(up, "websocket") != 0) {
    srv_respond_fail(req, SRV_ERR_UPGRADE_REQUIRED, "Upgrade",
                     "/v1/stream speaks WebSocket: send Upgrade: websocket");
    return;
  }
  int rc = srv_ws_upgrade(srv_server_ws(srv_request_server(req)), req);
  if (rc == 0) return;
  req->upgrade = true; /* This connection speaks no more HTTP. */
  srv_respond_fail(req, SRV_ERR_INTERNAL, NULL, "upgrade failed: %s",
                   uv_strerror(rc));
}
