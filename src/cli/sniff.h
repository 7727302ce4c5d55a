/* cli: the Content-Type of an asset file from its first bytes, so that
 * `animd eval` decodes a file whatever its name (a .glb saved without its
 * extension is still glTF). */
#ifndef ANIMD_CLI_SNIFF_H
#define ANIMD_CLI_SNIFF_H

#include <stddef.h>

/* The upload Content-Type of data (len bytes): "model/gltf-binary" (the
 * magic "glTF"), "application/x-bvh" (HIERARCHY), "application/x-md5mesh"
 * or "application/x-md5anim" (MD5Version, then numMeshes or numFrames),
 * "model/gltf+json" (a JSON object with "asset") or "application/json"
 * (any other JSON object); NULL when it is none of these. */
const char *cli_sniff_type(const char *data, size_t len);

#endif
