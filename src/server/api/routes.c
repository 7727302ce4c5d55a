/* server: the routes of API v1 (router.h), one row each, matched in
 * order. A path with an {id} has one non-empty segment there. A label
 * shared by several rows counts them together in /metrics. */
#include "server/api/handlers.h"
#include "server/api/openapi.h"
#include "server/api/router.h"

#define READ SRV_ACCESS_READ
#define WRITE SRV_ACCESS_WRITE
#define GH (SRV_M_GET | SRV_M_HEAD)

const srv_route_t srv_api_routes[] = {
    {GH, "/v1/pose", .handle = srv__handle_pose_get, .access = READ,
     .label = "pose"},
    {SRV_M_POST, "/v1/pose", .handle = srv__handle_pose_post, .access = READ,
     .label = "pose_blend"},
    {GH, "/v1/skin", .handle = srv__handle_skin, .access = READ,
     .label = "skin"},
    {GH, "/v1/assets", .handle = srv__handle_list, .access = READ,
     .label = "assets_list"},
    {SRV_M_POST, "/v1/assets", .handle = srv__handle_upload, .access = WRITE,
     .label = "assets_upload"},
    {SRV_M_POST, "/v1/solve", .body = &srv__solve_body, .query = SRV_EP_SOLVE,
     .access = READ, .label = "solve"},
    {SRV_M_POST, "/v1/test", .body = &srv__test_body, .query = SRV_EP_TEST,
     .access = READ, .label = "test"},
    {SRV_M_POST, "/v1/compare", .body = &srv__compare_body,
     .query = SRV_EP_COMPARE, .access = READ, .label = "compare"},
    {SRV_M_POST, "/v1/retarget", .body = &srv__retarget_body,
     .query = SRV_EP_RETARGET, .access = WRITE, .label = "retarget"},
    {SRV_M_GET, "/v1/stream", .handle = srv__handle_stream, .access = READ,
     .query_token = true, .label = "stream"},
    {GH, "/healthz", .handle = srv__handle_healthz, .access = SRV_ACCESS_OPEN,
     .label = "healthz"},
    {GH, "/metrics", .handle = srv__handle_metrics, .access = SRV_ACCESS_ADMIN,
     .label = "metrics"},
    {GH, "/v1/info", .handle = srv__handle_info, .access = READ,
     .label = "info"},
    {GH, "/v1/skeletons/", true, "", .handle_id = srv__handle_skeleton,
     .access = READ, .label = "skeleton"},
    {SRV_M_DELETE, "/v1/skeletons/", true, "",
     .handle_id = srv__handle_skeleton, .access = WRITE, .label = "skeleton"},
    {GH, "/v1/clips/", true, "", .handle_id = srv__handle_clip, .access = READ,
     .label = "clip"},
    {SRV_M_DELETE, "/v1/clips/", true, "", .handle_id = srv__handle_clip,
     .access = WRITE, .label = "clip"},
    {GH, "/v1/meshes/", true, "", .handle_id = srv__handle_mesh, .access = READ,
     .label = "mesh"},
    {SRV_M_DELETE, "/v1/meshes/", true, "", .handle_id = srv__handle_mesh,
     .access = WRITE, .label = "mesh"},
    {GH, "/v1/skeletons/", true, "/clips",
     .handle_id = srv__handle_skeleton_clips, .access = READ,
     .label = "skeleton"},
    {GH, "/v1/skeletons/", true, "/meshes",
     .handle_id = srv__handle_skeleton_meshes, .access = READ,
     .label = "skeleton"},
    {GH, "/v1/clips/", true, "/check", .handle_id = srv__handle_clip_check,
     .access = READ, .label = "clip_check"},
    {GH, "/v1/clips/", true, "/plot", .handle_id = srv__handle_clip_plot,
     .access = READ, .label = "clip_plot"},
    {GH, "/v1/meshes/", true, "/image", .handle_id = srv__handle_mesh_image,
     .access = READ, .label = "mesh"},
    {GH, "/v1/openapi.json", .handle = srv__handle_openapi, .access = READ,
     .label = "openapi"},
};

const size_t srv_api_route_count =
    sizeof srv_api_routes / sizeof srv_api_routes[0];
