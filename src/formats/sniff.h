/* formats: the Content-Type of asset bytes from their first bytes, so that
 * `animd eval` decodes a file whatever its name (a .glb saved without its
 * extension is still glTF), and an upload whose bytes say another type
 * than its Content-Type gets a hint naming the right one (fmt_decode). */
#ifndef ANIMD_FORMATS_SNIFF_H
#define ANIMD_FORMATS_SNIFF_H

#include <stddef.h>

/* The upload Content-Type of data (len bytes): "model/gltf-binary" (the
 * magic "glTF"), "application/x-bvh" (HIERARCHY), "application/x-md5mesh"
 * or "application/x-md5anim" (MD5Version, then numMeshes or numFrames),
 * "model/gltf+json" (a JSON object with "asset") or "application/json"
 * (any other JSON object); NULL when it is none of these. */
const char *fmt_sniff_type(const char *data, size_t len);

/* What a person calls the type of fmt_sniff_type ("binary glTF (.glb)"),
 * or NULL for another string. */
const char *fmt_sniff_describe(const char *type);

#endif
