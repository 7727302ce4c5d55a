/* server: GET /v1/stream, the WebSocket upgrade (handlers.h). */
#include <string.h>
#include <strings.h>

#include "server/api/handlers.h"
#include "server/api/params.h"
#include "server/api/router.h"
#include "server/auth/auth.h"
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
  /* The token it was admitted with, if its stream needed one: revoking
   * it closes the session (srv_server_reload). */
  srv_server_t *server = srv_request_server(req);
  srv_ws_credential_t cred = {0};
  cred.set = srv_auth_session_token(
      srv_server_auth(server), req,
      req->matched != NULL ? req->matched->access : SRV_ACCESS_READ, cred.hash);
  int rc = srv_ws_upgrade(srv_server_ws(server), req, &cred);
  if (rc == 0) return;
  req->upgrade = true; /* This connection speaks no more HTTP. */
  srv_respond_fail(req, SRV_ERR_INTERNAL, NULL, "upgrade failed: %s",
                   uv_strerror(rc));
}
