/* server/api: the binary answer of GET /v1/meshes/{id} (format=bin, or
 * Accept: application/octet-stream): the block of formats/mesh_bin.h that a
 * renderer uploads to the GPU as it is. Loop thread. */
#ifndef ANIMD_SERVER_API_MESH_BIN_H
#define ANIMD_SERVER_API_MESH_BIN_H

#include <stdbool.h>

#include "server/http/http.h"
#include "store/store.h"

/* When req asks for binary (or for a format that does not exist: 400),
 * answers it from the mesh asset a (retained by the caller) and returns
 * true; otherwise answers nothing and returns false. */
bool srv__respond_mesh_bin(srv_request_t *req, const store_asset_t *a);

#endif
