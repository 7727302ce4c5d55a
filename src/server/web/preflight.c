/* server/web: answers to OPTIONS (preflight.h). */
#include "server/web/preflight.h"

#include <stdio.h>

#include "server/config.h"
#include "server/cors.h"

void srv_web_preflight(srv_request_t *req, const char *allow) {
  const char *origin = srv_request_header(req, "Origin");
  char extra[512];
  if (origin == NULL ||
      srv_request_header(req, "Access-Control-Request-Method") == NULL) {
    snprintf(extra, sizeof extra, "Allow: %s, OPTIONS\r\n", allow);
    srv_respond(req, 204, NULL, extra, NULL, 0);
    return;
  }
  if (!srv_cors_allowed(srv_request_config(req)->allowed_origins, origin,
                        srv_request_own_host(req))) {
    srv_respond_fail(req, SRV_ERR_ORIGIN_NOT_ALLOWED, "Origin",
                     "pages from this origin may not use this server "
                     "(see allowed_origins)");
    return;
  }
  snprintf(extra, sizeof extra,
           "Access-Control-Allow-Methods: %s\r\n"
           "Access-Control-Allow-Headers: %s\r\n"
           "Access-Control-Max-Age: %d\r\n",
           allow, SRV_CORS_ALLOW_HEADERS, SRV_CORS_MAX_AGE);
  srv_respond(req, 204, NULL, extra, NULL, 0);
}
