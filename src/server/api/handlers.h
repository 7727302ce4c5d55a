/* server: the route handlers, one function per endpoint of API v1. Each
 * takes the request, answers it (inline or after a pool job) and never
 * returns an error: every outcome is an HTTP answer. */
#ifndef ANIMD_SERVER_HANDLERS_H
#define ANIMD_SERVER_HANDLERS_H

#include "server/http/http.h"

void srv__handle_healthz(srv_request_t *req);
void srv__handle_info(srv_request_t *req);
void srv__handle_metrics(srv_request_t *req);

void srv__handle_upload(srv_request_t *req);
void srv__handle_list(srv_request_t *req);
/* kind: 's'keleton, 'c'lip or 'm'esh; id is the decoded path segment. */
void srv__handle_asset(srv_request_t *req, char kind, const char *id);
/* GET /v1/skeletons/{id}/clips ('c') or /meshes ('m'). */
void srv__handle_skeleton_children(srv_request_t *req, const char *id,
                                   char kind);

/* GET /v1/meshes/{id}/image: the mesh's embedded texture image. */
void srv__handle_mesh_image(srv_request_t *req, const char *id);

void srv__handle_pose_get(srv_request_t *req);
void srv__handle_pose_post(srv_request_t *req);
void srv__handle_skin(srv_request_t *req);
void srv__handle_solve(srv_request_t *req);

#endif
