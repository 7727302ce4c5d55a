/* formats: the native JSON asset form, decoded (fmt_decode_native_json, in
 * bundle.h) and encoded back in one canonical text.
 *
 * The canonical encoding of one built asset is the smallest upload that
 * holds just that asset, printed with a fixed key order, no spaces, joints
 * and tracks named by joint name, and every float in its shortest
 * round-tripping form (buf.h):
 *
 *   skeleton: {"skeleton":{"name":N,"joints":[{"name":N,"parent":P,
 *               "translation":[3],"rotation":[4],"scale":[3]
 *               [,"orient":[4] only where not identity]},...],
 *               "inverseBindMatrices":[16 per joint]}}
 *   clip:     {"clips":[{"name":N,"skeleton":SKELETON_ID,"duration":D,
 *               "tracks":[{"joint":JOINT_NAME,"path":P,"interpolation":I,
 *               "times":[..],"values":[..][,"bezier":[..] for BEZIER]},
 *               ...][,"events":[{"t":T,"name":N},...] sorted by t, only
 *               when the clip has events, so the ids of clips without
 *               them are unchanged]}]}
 *   mesh:     {"meshes":[{"name":N,"skeleton":SKELETON_ID,"influences":K,
 *               "positions":[..][,"normals":[..]][,"texcoords":[..]],
 *               "joints":[..],"weights":[..][,"indices":[..]]
 *               [,"material":{["name":N][,"texture":I]
 *                 [,"image":{"uri":U} or {"mimeType":T,"data":BASE64}]}]}]}
 *             (texcoords and material only when the mesh has them, so
 *             the texts and ids of meshes without them are unchanged)
 *
 * Joints appear in the caller's order (parents and mesh joint indices are
 * caller indices); tracks in the built clip's order (by joint storage
 * index, then path). Every float is printed so that it reads back as the
 * same float, so decoding a canonical encoding (with the skeleton id
 * resolved) gives the built object's numbers back exactly (the builders
 * leave rotations that are already unit and influences already in their
 * built order as they are, so a rebuild is a fixed point).
 * The text is used for the content id, for the files of the data directory
 * and, with an "id" added, for GET /v1/{skeletons,clips,meshes}/{id}.
 *
 * The content id of an asset is the lowercase hex SHA-256 of its canonical
 * encoding (64 characters). A clip's and a mesh's encoding hold their
 * skeleton's id, so the same clip on another skeleton has another id. */
#ifndef ANIMD_FORMATS_NATIVE_JSON_H
#define ANIMD_FORMATS_NATIVE_JSON_H

#include "animd/animd.h"
#include "formats/bundle.h"
#include "formats/buf.h"

#define FMT_ID_LEN 64 /* Hex characters of a content id. */

/* Canonical encodings, appended to b. Return 0, or -1 when b failed (out of
 * memory) or an argument is NULL. skeleton_id is the 64-character id of the
 * skeleton the clip or mesh was built for. */
int fmt_encode_skeleton(fmt_buf_t *b, const anim_skeleton_t *skeleton);
int fmt_encode_clip(fmt_buf_t *b, const anim_clip_t *clip,
                    const anim_skeleton_t *skeleton, const char *skeleton_id);
int fmt_encode_mesh(fmt_buf_t *b, const anim_mesh_t *mesh,
                    const anim_skeleton_t *skeleton, const char *skeleton_id);

/* Describe answers (GET /v1/skeletons/{id}, /v1/clips/{id},
 * /v1/meshes/{id}): the inner object of the canonical encoding with "id"
 * first, e.g. {"id":ID,"name":N,"joints":[...],"inverseBindMatrices":[...]}.
 * A clip adds nothing else; a mesh adds "vertices" (the count) after
 * "skeleton", and an embedded image is described by "mimeType", "bytes"
 * (its size) and "href" (/v1/meshes/{id}/image, the route serving it)
 * instead of its data. */
int fmt_describe_skeleton(fmt_buf_t *b, const char *id,
                          const anim_skeleton_t *skeleton);
int fmt_describe_clip(fmt_buf_t *b, const char *id, const anim_clip_t *clip,
                      const anim_skeleton_t *skeleton, const char *skeleton_id);
int fmt_describe_mesh(fmt_buf_t *b, const char *id, const anim_mesh_t *mesh,
                      const anim_skeleton_t *skeleton, const char *skeleton_id);

/* Lowercase hex SHA-256 of data (libcrypto EVP) into out[65] (NUL
 * terminated). Returns 0, or -1 if libcrypto fails. */
int fmt_content_id(const void *data, size_t len, char out[FMT_ID_LEN + 1]);

/* True when s is 64 lowercase hex characters (the shape of an id). */
bool fmt_is_content_id(const char *s);

/* Names used in the native form ("translation", "LINEAR", ...). */
const char *fmt_path_name(anim_path path);
const char *fmt_interp_name(anim_interp interp);

#endif
