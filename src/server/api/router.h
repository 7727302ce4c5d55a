/* server/api: the routing table of API v1, as data. One row per route:
 * its methods, its path pattern (a literal path, or a prefix, an {id}
 * segment and a suffix), its handler (handlers.h), its access class
 * (auth.h), the body parser run before the handler (none, or a
 * body_task.h parser whose `then` is the handler) and its label for
 * /metrics and the access log. Everything that needs to know about routes
 * reads the rows: dispatch (one lookup: match, row, handler; router.c
 * builds a hash table of the rows' path patterns once), access control
 * (the matched row's class), 405 and OPTIONS (Allow: the methods of the
 * rows that match the path) and the metrics labels. Adding an endpoint is
 * its handler and one row (routes.c). The server installs srv_api_route
 * as the HTTP side's request callback. Loop thread only. */
#ifndef ANIMD_SERVER_API_ROUTER_H
#define ANIMD_SERVER_API_ROUTER_H

#include <stdbool.h>
#include <stddef.h>

#include "server/api/body_task.h"
#include "server/auth/auth.h"
#include "server/http/http.h"
#include "server/request/requests.h"

/* Method bits of a row: 1u << srv_method. */
#define SRV_M(m) (1u << (m))
#define SRV_M_GET SRV_M(SRV_GET)
#define SRV_M_HEAD SRV_M(SRV_HEAD)
#define SRV_M_POST SRV_M(SRV_POST)
#define SRV_M_PUT SRV_M(SRV_PUT)
#define SRV_M_DELETE SRV_M(SRV_DELETE)
#define SRV_M_PATCH SRV_M(SRV_PATCH)

typedef struct srv_route_s {
  unsigned methods; /* SRV_M_* bits. */
  /* The path: with id false the whole path; with id true the path is
   * prefix, one non-empty segment without '/' (the {id}, at most 255
   * bytes) and suffix (maybe ""). */
  const char *prefix;
  bool id;
  const char *suffix;
  /* The handler: handle, or handle_id (given the {id} segment) for a
   * path with an id, or body->then after body (not NULL) parsed the
   * request body. Exactly one is set. */
  void (*handle)(srv_request_t *req);
  void (*handle_id)(srv_request_t *req, const char *id);
  const srv_body_parser_t *body;
  srv_endpoint query; /* With body: the parameters checked first. */
  srv_access access;
  /* A ?token= parameter is a credential (browsers cannot set headers on
   * a WebSocket). */
  bool query_token;
  const char *label; /* For /metrics and the access log. */
} srv_route_t;

/* The rows (routes.c), in match order. */
extern const srv_route_t srv_api_routes[];
extern const size_t srv_api_route_count;

/* Answers req: access control, then its row's handler; 405 with Allow
 * when rows match the path but none takes the method; OPTIONS from the
 * rows that match the path; else a static file or 404. */
void srv_api_route(srv_request_t *req);

/* Whether srv_api_route would hand req to a handler (its path exists and
 * takes its method), from the request line alone. */
bool srv_api_accepts(const srv_request_t *req);

/* Runs again the handler of the row req was routed to (req->matched),
 * on the same request: after a lookup that missed the node's store has
 * loaded the asset (shared_store.h). No second routing, access check or
 * rate-limit charge. */
void srv_api_resume(srv_request_t *req);

/* The row of method on path; or NULL, with in *allow the method bits of
 * every row whose pattern matches path (0: no such path). */
const srv_route_t *srv_api_match(srv_method method, const char *path,
                                 unsigned *allow);

/* "GET, HEAD, POST": the methods of bits, in a fixed order, into out. */
void srv_api_allow_text(unsigned bits, char *out, size_t cap);

#endif
