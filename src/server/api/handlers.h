/* server: the route handlers, one function per endpoint of API v1 (the
 * rows of routes.c name them). Each takes the request (and the {id}
 * segment of its path when the route has one), answers it (inline or
 * after a pool job) and never returns an error: every outcome is an HTTP
 * answer. A handler may run again on the same request after a lookup
 * loaded a missing asset (shared_store.h): it starts from the request
 * alone. */
#ifndef ANIMD_SERVER_HANDLERS_H
#define ANIMD_SERVER_HANDLERS_H

#include "server/api/body_task.h"
#include "server/http/http.h"

void srv__handle_healthz(srv_request_t *req);
void srv__handle_info(srv_request_t *req);
void srv__handle_metrics(srv_request_t *req);

/* POST /v1/assets and GET /v1/assets. */
void srv__handle_upload(srv_request_t *req);
void srv__handle_list(srv_request_t *req);
/* GET, HEAD and DELETE of /v1/skeletons/{id}, /v1/clips/{id} and
 * /v1/meshes/{id}; id is the decoded path segment. */
void srv__handle_skeleton(srv_request_t *req, const char *id);
void srv__handle_clip(srv_request_t *req, const char *id);
void srv__handle_mesh(srv_request_t *req, const char *id);
/* GET /v1/skeletons/{id}/clips and /v1/skeletons/{id}/meshes. */
void srv__handle_skeleton_clips(srv_request_t *req, const char *id);
void srv__handle_skeleton_meshes(srv_request_t *req, const char *id);

/* GET /v1/meshes/{id}/image: the mesh's embedded texture image. */
void srv__handle_mesh_image(srv_request_t *req, const char *id);

/* GET /v1/clips/{id}/check (check.c) and /v1/clips/{id}/plot (plot.c). */
void srv__handle_clip_check(srv_request_t *req, const char *id);
void srv__handle_clip_plot(srv_request_t *req, const char *id);

void srv__handle_pose_get(srv_request_t *req);
void srv__handle_pose_post(srv_request_t *req);
void srv__handle_skin(srv_request_t *req);

/* POST /v1/solve: the body parser whose `then` looks the skeleton up and
 * solves (its query is checked first, SRV_EP_SOLVE). */
extern const srv_body_parser_t srv__solve_body;

/* POST /v1/test: the body parser whose `then` resolves the suite's names
 * and runs its cases on the pool (test.c). */
extern const srv_body_parser_t srv__test_body;

/* POST /v1/compare: the body parser whose `then` resolves both sources
 * and compares them on the pool (its query is checked first,
 * SRV_EP_COMPARE). */
extern const srv_body_parser_t srv__compare_body;

/* POST /v1/retarget: the body parser whose `then` looks the clip and the
 * target skeleton up and bakes and stores the clip on the pool. */
extern const srv_body_parser_t srv__retarget_body;

/* GET /v1/stream: the WebSocket upgrade. */
void srv__handle_stream(srv_request_t *req);

#endif
