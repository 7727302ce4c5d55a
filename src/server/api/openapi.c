/* server/api: the embedded OpenAPI document and its route (openapi.h). */
#include "server/api/openapi.h"

/* openapi_doc.S */
extern const char srv_openapi_json_start[], srv_openapi_json_end[];

const char *srv_openapi_json(size_t *len) {
  *len = (size_t)(srv_openapi_json_end - srv_openapi_json_start);
  return srv_openapi_json_start;
}

void srv__handle_openapi(srv_request_t *req) {
  size_t len;
  const char *doc = srv_openapi_json(&len);
  srv_respond(req, 200, "application/json", "Cache-Control: no-cache\r\n", doc,
              len);
}
