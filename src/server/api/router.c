/* server: maps a request's method and path to its handler (API v1).
 *
 * A fixed table, matched in order: exact paths, then the three asset
 * collections with one id segment. A known path with a method it does not
 * take gets 405 with Allow (OPTIONS, a CORS preflight, is answered for
 * every known path); anything else 404. */
#include <string.h>

#include "server/api/router.h"

#include <stdio.h>
#include <strings.h>

#include "server/api/handlers.h"
#include "server/api/params.h"
#include "server/auth/auth.h"
#include "server/metrics.h"
#include "server/services.h"
#include "server/web/preflight.h"
#include "server/web/static.h"
#include "server/ws/upgrade.h"

enum { M_GET = 1, M_HEAD = 2, M_POST = 4, M_DELETE = 8 };

typedef struct route_s {
  const char *path;
  int route;
  unsigned methods;
  const char *allow;
} route_t;

static const route_t routes[] = {
    {"/v1/pose", SRV_ROUTE_POSE_GET, M_GET | M_HEAD | M_POST,
     "GET, HEAD, POST"},
    {"/v1/skin", SRV_ROUTE_SKIN, M_GET | M_HEAD, "GET, HEAD"},
    {"/v1/assets", SRV_ROUTE_ASSETS_LIST, M_GET | M_HEAD | M_POST,
     "GET, HEAD, POST"},
    {"/v1/solve", SRV_ROUTE_SOLVE, M_POST, "POST"},
    {"/v1/stream", SRV_ROUTE_STREAM, M_GET, "GET"},
    {"/healthz", SRV_ROUTE_HEALTHZ, M_GET | M_HEAD, "GET, HEAD"},
    {"/metrics", SRV_ROUTE_METRICS, M_GET | M_HEAD, "GET, HEAD"},
    {"/v1/info", SRV_ROUTE_INFO, M_GET | M_HEAD, "GET, HEAD"},
};

static unsigned method_bit(srv_method m) {
  switch (m) {
  case SRV_GET: return M_GET;
  case SRV_HEAD: return M_HEAD;
  case SRV_POST: return M_POST;
  case SRV_DELETE: return M_DELETE;
  default: return 0;
  }
}

static void not_allowed(srv_request_t *req, const char *allow) {
  char extra[128];
  snprintf(extra, sizeof extra, "Allow: %s\r\n", allow);
  srv_respond_error_h(req, srv_error_status(SRV_ERR_METHOD_NOT_ALLOWED), extra,
                      srv_error_name(SRV_ERR_METHOD_NOT_ALLOWED), NULL,
                      "%s is not allowed here (allowed: %s)", req->method_name,
                      allow);
}

static void stream(srv_request_t *req) {
  if (srv__check_query(req, SRV_EP_STREAM) != 0) return;
  const char *up = srv_request_header(req, "Upgrade");
  if (up == NULL || strcasecmp(up, "websocket") != 0) {
    srv_respond_error(req, 400, "upgrade_required", "Upgrade",
                      "/v1/stream speaks WebSocket: send Upgrade: "
                      "websocket");
    return;
  }
  int rc = srv_ws_upgrade(srv_server_ws(srv_request_server(req)), req);
  if (rc == 0) return;
  req->upgrade = true; /* This connection speaks no more HTTP. */
  srv_respond_error(req, 500, "internal", NULL, "upgrade failed: %s",
                    uv_strerror(rc));
}

/* Matches "/v1/<collection>/<id>" with exactly one non-empty segment. */
static const char *asset_id(const char *path, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(path, prefix, n) != 0) return NULL;
  const char *id = path + n;
  if (*id == '\0' || strchr(id, '/') != NULL) return NULL;
  return id;
}

/* Matches "<prefix><id><suffix>" (one non-empty id segment), copying the
 * id into buf (cap bytes); suffix NULL matches as asset_id does. */
static const char *route_id(const char *path, const char *prefix,
                            const char *suffix, char *buf, size_t cap) {
  if (suffix == NULL) return asset_id(path, prefix);
  size_t n = strlen(prefix), len = strlen(path), sl = strlen(suffix);
  if (strncmp(path, prefix, n) != 0 || len < n + sl + 1 ||
      strcmp(path + len - sl, suffix) != 0)
    return NULL;
  size_t idl = len - n - sl;
  if (idl >= cap || memchr(path + n, '/', idl) != NULL) return NULL;
  memcpy(buf, path + n, idl);
  buf[idl] = '\0';
  return buf;
}

#define COLLECTIONS (sizeof collections / sizeof collections[0])

static const struct {
  const char *prefix;
  char kind;
  int route;
  const char *suffix; /* NULL: the asset itself (GET, HEAD, DELETE). */
} collections[] = {{"/v1/skeletons/", 's', SRV_ROUTE_SKELETON, NULL},
                   {"/v1/clips/", 'c', SRV_ROUTE_CLIP, NULL},
                   {"/v1/meshes/", 'm', SRV_ROUTE_MESH, NULL},
                   /* What belongs to a skeleton: <prefix><id>/<suffix>. */
                   {"/v1/skeletons/", 'c', SRV_ROUTE_SKELETON, "/clips"},
                   {"/v1/skeletons/", 'm', SRV_ROUTE_SKELETON, "/meshes"},
                   {"/v1/meshes/", 'i', SRV_ROUTE_MESH, "/image"}};

/* The route of req's path (SRV_ROUTE_NONE: none), and whether it takes
 * req's method. */
static int match(const srv_request_t *req, bool *takes) {
  unsigned bit = method_bit(req->method);
  bool post = req->method == SRV_POST;
  for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
    if (strcmp(req->path, routes[i].path) != 0) continue;
    *takes = (routes[i].methods & bit) != 0;
    int r = routes[i].route;
    if (post && r == SRV_ROUTE_POSE_GET) return SRV_ROUTE_POSE_POST;
    if (post && r == SRV_ROUTE_ASSETS_LIST) return SRV_ROUTE_ASSETS_POST;
    return r;
  }
  char buf[256];
  for (size_t i = 0; i < COLLECTIONS; i++) {
    if (route_id(req->path, collections[i].prefix, collections[i].suffix, buf,
                 sizeof buf) == NULL)
      continue;
    *takes = (bit & (collections[i].suffix ? M_GET | M_HEAD
                                           : M_GET | M_HEAD | M_DELETE)) != 0;
    return collections[i].route;
  }
  *takes = false;
  return SRV_ROUTE_NONE;
}

bool srv_api_accepts(const srv_request_t *req) {
  bool takes;
  match(req, &takes);
  return takes;
}

void srv_api_route(srv_request_t *req) {
  /* Access control first (a request the router refuses anyway, 404 or
   * 405, is answered as such). */
  bool takes;
  req->route = match(req, &takes);
  if (takes && !srv_auth_admit(srv_server_auth(srv_request_server(req)), req))
    return;
  const char *path = req->path;
  unsigned bit = method_bit(req->method);
  for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
    const route_t *rt = &routes[i];
    if (strcmp(path, rt->path) != 0) continue;
    req->route = rt->route;
    if (req->method == SRV_OPTIONS) {
      srv_web_preflight(req, rt->allow);
      return;
    }
    if ((rt->methods & bit) == 0) {
      not_allowed(req, rt->allow);
      return;
    }
    switch (rt->route) {
    case SRV_ROUTE_POSE_GET:
      if (req->method == SRV_POST) {
        req->route = SRV_ROUTE_POSE_POST;
        srv__handle_pose_post(req);
      } else {
        srv__handle_pose_get(req);
      }
      return;
    case SRV_ROUTE_SKIN: srv__handle_skin(req); return;
    case SRV_ROUTE_ASSETS_LIST:
      if (req->method == SRV_POST) {
        req->route = SRV_ROUTE_ASSETS_POST;
        srv__handle_upload(req);
      } else {
        srv__handle_list(req);
      }
      return;
    case SRV_ROUTE_SOLVE: srv__handle_solve(req); return;
    case SRV_ROUTE_STREAM: stream(req); return;
    case SRV_ROUTE_HEALTHZ: srv__handle_healthz(req); return;
    case SRV_ROUTE_METRICS: srv__handle_metrics(req); return;
    case SRV_ROUTE_INFO: srv__handle_info(req); return;
    default: break;
    }
  }
  char buf[256];
  for (size_t i = 0; i < COLLECTIONS; i++) {
    const char *id = route_id(path, collections[i].prefix,
                              collections[i].suffix, buf, sizeof buf);
    if (id == NULL) continue;
    req->route = collections[i].route;
    bool member = collections[i].suffix != NULL;
    const char *allow = member ? "GET, HEAD" : "GET, HEAD, DELETE";
    if (req->method == SRV_OPTIONS) {
      srv_web_preflight(req, allow);
      return;
    }
    if ((bit & (member ? M_GET | M_HEAD : M_GET | M_HEAD | M_DELETE)) == 0) {
      not_allowed(req, allow);
      return;
    }
    if (member && collections[i].kind == 'i')
      srv__handle_mesh_image(req, id);
    else if (member)
      srv__handle_skeleton_children(req, id, collections[i].kind);
    else
      srv__handle_asset(req, collections[i].kind, id);
    return;
  }
  req->route = SRV_ROUTE_NONE;
  if (srv_web_static(req)) return;
  srv__fail(req, SRV_ERR_NOT_FOUND, NULL, "no such endpoint: %s", path);
}
