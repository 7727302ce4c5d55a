/* server/api: GET /v1/meshes/{id}/image, the base-color texture image a
 * mesh carries embedded (a glTF data: URI or bufferView image), answered
 * as its bytes with their mimeType. A mesh whose texture is an external
 * URI, or that has none, answers 404 not_found: its describe answer says
 * which (material.image.uri). The bytes are part of the asset, so the
 * ETag derives from its content id. */
#include <stdio.h>

#include "server/api/handlers.h"
#include "server/api/answer.h"
#include "server/api/etag.h"
#include "server/api/lookup.h"
#include "server/api/params.h"

void srv__handle_mesh_image(srv_request_t *req, const char *id) {
  store_asset_t *a;
  if (srv__check_query(req, SRV_EP_MESH_IMAGE) != 0 ||
      srv__lookup(req, STORE_MESH, "id", id, NULL, &a) != 0)
    return;
  const anim_mesh_material_t *m = &a->mesh->material;
  if (m->image == NULL || m->image_type == NULL) {
    srv__fail(req, SRV_ERR_NOT_FOUND, "id",
              "mesh %s has no embedded texture image", a->id);
    store_asset_release(a);
    return;
  }
  char parts[FMT_ID_LEN + 16], etag[40];
  int n = snprintf(parts, sizeof parts, "mesh-image:%s", a->id);
  srv__etag(etag, parts, (size_t)n);
  if (!srv__respond_if_not_modified(req, etag)) {
    char extra[128];
    snprintf(extra, sizeof extra,
             "ETag: %s\r\nX-Content-Type-Options: nosniff\r\n", etag);
    srv_respond(req, 200, m->image_type, extra, m->image, m->image_size);
  }
  store_asset_release(a);
}
