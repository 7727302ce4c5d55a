/* server/api: the OpenAPI 3.1 document of API v1 (docs/openapi.yaml), as
 * the JSON text embedded in the binary (openapi_doc.S), and the handler of
 * GET /v1/openapi.json that answers it. */
#ifndef ANIMD_SERVER_API_OPENAPI_H
#define ANIMD_SERVER_API_OPENAPI_H

#include <stddef.h>

#include "server/http/http.h"

/* The document's JSON text (not NUL-terminated within *len bytes; a NUL
 * follows it) and its length. */
const char *srv_openapi_json(size_t *len);

/* GET|HEAD /v1/openapi.json: the document, application/json. Like the
 * other operational endpoints it takes any query. */
void srv__handle_openapi(srv_request_t *req);

#endif
