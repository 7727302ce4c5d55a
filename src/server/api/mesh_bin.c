/* server/api: GET /v1/meshes/{id}?format=bin (mesh_bin.h). The block is
 * encoded on the loop thread: it is a copy of the mesh's arrays, as cheap
 * as the JSON describe answer is not. The ETag names the content id and
 * the layout version, so a cached block is never taken for the JSON. */
#include "server/api/mesh_bin.h"

#include <stdio.h>
#include <string.h>

#include "formats/mesh_bin.h"
#include "server/api/answer.h"
#include "server/api/etag.h"
#include "server/api/params.h"

bool srv__respond_mesh_bin(srv_request_t *req, const store_asset_t *a) {
  bool binary = false;
  srv_error_t err;
  srv_query_t q = srv__query(req);
  if (srv_mesh_query_parse(&q, &binary, &err) != 0) {
    srv__respond_err(req, &err);
    return true;
  }
  if (!binary) return false;
  char parts[FMT_ID_LEN + 32], etag[40];
  int n = snprintf(parts, sizeof parts, "mesh-bin-v%u:%s",
                   fmt_mesh_bin_version(a->mesh), a->id);
  srv__etag(etag, parts, (size_t)n);
  if (srv__respond_if_not_modified(req, etag)) return true;
  fmt_buf_t b = FMT_BUF_INIT;
  if (fmt_mesh_bin(&b, a->mesh, a->skeleton_asset->skeleton,
                   a->mesh->texcoords) != 0) {
    fmt_buf_free(&b);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return true;
  }
  char extra[160];
  snprintf(extra, sizeof extra,
           "ETag: %s\r\nX-Animd-Vertices: %u\r\nX-Animd-Layout: mesh\r\n", etag,
           a->mesh->vertex_count);
  srv_respond(req, 200, "application/octet-stream", extra, b.data, b.len);
  fmt_buf_free(&b);
  return true;
}
