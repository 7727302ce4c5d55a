/* server: dispatch by the routing table (router.h): one walk over the
 * rows finds the row of the request's method and path, and the methods
 * of every row of that path for Allow; access control asks the row's
 * class; the row's handler answers. */
#include "server/api/router.h"

#include <stdio.h>
#include <string.h>

#include "server/api/answer.h"
#include "server/api/params.h"
#include "server/errors.h"
#include "server/services.h"
#include "server/web/preflight.h"
#include "server/web/static.h"

/* The longest {id} segment (bytes). */
#define ID_MAX 255

/* Whether path matches r's pattern; the {id} segment is copied into id
 * (ID_MAX + 1 bytes) when r has one. */
static bool matches(const srv_route_t *r, const char *path, char *id) {
  if (!r->id) return strcmp(path, r->prefix) == 0;
  size_t n = strlen(r->prefix);
  if (strncmp(path, r->prefix, n) != 0) return false;
  const char *seg = path + n;
  size_t len = strlen(seg), sl = strlen(r->suffix);
  if (len < sl + 1 || strcmp(seg + len - sl, r->suffix) != 0) return false;
  size_t idl = len - sl;
  if (idl > ID_MAX || memchr(seg, '/', idl) != NULL) return false;
  memcpy(id, seg, idl);
  id[idl] = '\0';
  return true;
}

/* The walk: the first row of method on path, with its {id} in id (the
 * walk stops there: every request that has a row pays for the rows
 * before it only); or NULL, with in *allow the methods of every row
 * matching path and in *first the first of those rows (NULL: none). */
static const srv_route_t *walk(srv_method method, const char *path,
                               unsigned *allow, char *id,
                               const srv_route_t **first) {
  *allow = 0;
  *first = NULL;
  for (size_t i = 0; i < srv_api_route_count; i++) {
    const srv_route_t *r = &srv_api_routes[i];
    if (!matches(r, path, id)) continue;
    if ((r->methods & SRV_M(method)) != 0) return r;
    if (*first == NULL) *first = r;
    *allow |= r->methods;
  }
  return NULL;
}

const srv_route_t *srv_api_match(srv_method method, const char *path,
                                 unsigned *allow) {
  char id[ID_MAX + 1];
  const srv_route_t *first;
  return walk(method, path, allow, id, &first);
}

void srv_api_allow_text(unsigned bits, char *out, size_t cap) {
  static const srv_method order[] = {SRV_GET, SRV_HEAD,   SRV_POST,
                                     SRV_PUT, SRV_DELETE, SRV_PATCH};
  static const char *const names[] = {"GET", "HEAD",   "POST",
                                      "PUT", "DELETE", "PATCH"};
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    if ((bits & SRV_M(order[i])) == 0) continue;
    int n = snprintf(out + len, cap - len, "%s%s", len ? ", " : "", names[i]);
    if (n < 0 || (size_t)n >= cap - len) return;
    len += (size_t)n;
  }
}

bool srv_api_accepts(const srv_request_t *req) {
  unsigned allow;
  return srv_request_host_allowed(req) &&
         srv_api_match(req->method, req->path, &allow) != NULL;
}

static void not_allowed(srv_request_t *req, const char *allow) {
  char extra[128];
  snprintf(extra, sizeof extra, "Allow: %s\r\n", allow);
  srv_respond_error_h(req, srv_error_status(SRV_ERR_METHOD_NOT_ALLOWED), extra,
                      srv_error_name(SRV_ERR_METHOD_NOT_ALLOWED), NULL,
                      "%s is not allowed here (allowed: %s)", req->method_name,
                      allow);
}

/* Runs r's handler on req. */
static void run(const srv_route_t *r, srv_request_t *req, const char *id) {
  if (r->body != NULL) {
    if (srv__check_query(req, r->query) != 0) return;
    srv__parse_body(req, r->body);
  } else if (r->handle_id != NULL) {
    r->handle_id(req, id);
  } else {
    r->handle(req);
  }
}

void srv_api_route(srv_request_t *req) {
  /* Before anything: a Host that does not name this server is a page of
   * another site that resolves to it (DNS rebinding), whatever its path. */
  if (!srv_request_host_allowed(req)) {
    req->route = NULL;
    srv__fail(req, SRV_ERR_MISDIRECTED_REQUEST, "Host",
              "the Host is not a name of this server (see allowed_hosts)");
    return;
  }
  unsigned allow;
  char id[ID_MAX + 1];
  const srv_route_t *first;
  const srv_route_t *r = walk(req->method, req->path, &allow, id, &first);
  if (r == NULL && first == NULL) {
    req->route = NULL;
    if (srv_web_static(req)) return;
    srv__fail(req, SRV_ERR_NOT_FOUND, NULL, "no such endpoint: %s", req->path);
    return;
  }
  if (r == NULL) {
    /* A path of the API without this method: counted under its first
     * row's label. OPTIONS (a CORS preflight) is open to all. */
    req->route = first->label;
    req->query_token = first->query_token;
    char text[64];
    srv_api_allow_text(allow, text, sizeof text);
    if (req->method == SRV_OPTIONS)
      srv_web_preflight(req, text);
    else
      not_allowed(req, text);
    return;
  }
  req->route = r->label;
  req->query_token = r->query_token;
  req->matched = r;
  /* Access control first; a request refused anyway (404, 405) is
   * answered as such. */
  if (!srv_auth_admit(srv_server_auth(srv_request_server(req)), req, r->access))
    return;
  run(r, req, id);
}

void srv_api_resume(srv_request_t *req) {
  const srv_route_t *r = req->matched;
  char id[ID_MAX + 1] = "";
  if (r->id && !matches(r, req->path, id)) {
    srv__fail(req, SRV_ERR_INTERNAL, NULL, "the route no longer matches");
    return;
  }
  run(r, req, id);
}
