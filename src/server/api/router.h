/* server/api: the routing table of API v1: maps a request's method and
 * path to its handler (handlers.h). The server installs srv_api_route as
 * the HTTP side's request callback. */
#ifndef ANIMD_SERVER_API_ROUTER_H
#define ANIMD_SERVER_API_ROUTER_H

#include <stdbool.h>

#include "server/http/http.h"

/* Answers req: its handler, 405 with Allow, or 404. */
void srv_api_route(srv_request_t *req);

/* Whether srv_api_route would hand req to a handler (its path exists and
 * takes its method), from the request line alone. */
bool srv_api_accepts(const srv_request_t *req);

#endif
