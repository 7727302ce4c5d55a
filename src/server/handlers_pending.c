/* server: asset, pose, skin and solve endpoints answer 503 until the
 * store is linked in. */
#include "server/handlers.h"

#define PENDING(fn)                                                        \
  void fn(srv_request_t *req) {                                            \
    srv_respond_error(req, 503, "unavailable", NULL,                       \
                      "the asset store is not available");                 \
  }
PENDING(srv__handle_upload)
PENDING(srv__handle_list)
PENDING(srv__handle_pose_get)
PENDING(srv__handle_pose_post)
PENDING(srv__handle_skin)
PENDING(srv__handle_solve)
void srv__handle_asset(srv_request_t *req, char kind, const char *id) {
  (void)kind;
  (void)id;
  srv_respond_error(req, 503, "unavailable", NULL,
                    "the asset store is not available");
}
