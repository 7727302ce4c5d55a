/* formats: the decoded-asset bundle every decoder produces, and the error
 * every decoder reports.
 *
 * A decoder (native JSON, glTF, BVH, MD5) turns one upload body into built
 * core objects: skeletons, clips and meshes, each clip and mesh tied to a
 * skeleton of the same bundle or to an existing one given in the options.
 * Decoders never touch the store, sockets or the event loop; the store
 * ingests a bundle whole or not at all. */
#ifndef ANIMD_FORMATS_BUNDLE_H
#define ANIMD_FORMATS_BUNDLE_H

#include "animd/animd.h"
#include "formats/error.h"

/* Bundle members. skeleton is an index into bundle.skeletons, or
 * FMT_EXTERNAL_SKELETON for the skeleton passed in the options. */
#define FMT_EXTERNAL_SKELETON UINT32_MAX

typedef struct fmt_clip_s {
  anim_clip_t *clip;
  uint32_t skeleton;
} fmt_clip_t;

typedef struct fmt_mesh_s {
  anim_mesh_t *mesh;
  uint32_t skeleton;
} fmt_mesh_t;

typedef struct fmt_bundle_s {
  anim_skeleton_t **skeletons;
  size_t skeleton_count;
  fmt_clip_t *clips;
  size_t clip_count;
  fmt_mesh_t *meshes;
  size_t mesh_count;
  /* Non-fatal remarks for the uploader (e.g. "mesh 0: 12 vertices had more
   * than 4 MD5 weights; the 4 largest were kept"), NUL-separated. */
  char *warnings;
  size_t warnings_len;
  /* Heap bytes of the objects built so far (formats/asset_bytes.h). */
  size_t bytes;
} fmt_bundle_t;

/* Frees every object the bundle still owns and zeroes it. Objects moved out
 * (pointer set to NULL by the taker) are skipped. */
void fmt_bundle_free(fmt_bundle_t *bundle);

/* Appends a warning line (printf-style). Returns 0 or -1 on ENOMEM. */
int fmt_bundle_warn(fmt_bundle_t *bundle, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Resolves a skeleton named in an upload (by id or by name) to an existing
 * one; NULL when there is none. Called on the decoding thread. */
typedef const anim_skeleton_t *(*fmt_skeleton_resolver)(const char *id_or_name,
                                                        void *user_data);

typedef struct fmt_decode_options_s {
  /* The skeleton of ?skeleton=ID (md5anim, BVH motion onto an existing
   * rig), or NULL. */
  const anim_skeleton_t *skeleton;
  /* For native JSON clips and meshes that name a skeleton not in the
   * upload. May be NULL. */
  fmt_skeleton_resolver resolve;
  void *resolve_user_data;
  /* BVH: multiply offsets and positions by this (0 means 1); convert a
   * Z-up file to Y-up. */
  float unit_scale;
  bool z_up;
  /* Upper bounds, zero meaning the decoder's defaults. */
  size_t max_joints;
  size_t max_keys;
  size_t max_vertices;
  /* The bytes the decoded objects may hold (formats/asset_bytes.h), checked
   * before each object is built: beyond it the decode fails with
   * FMT_ERR_INSUFFICIENT_STORAGE. 0: no bound. The store
   * gives its room (store_decode_room). */
  size_t max_bytes;
} fmt_decode_options_t;

/* Decoder entry points: 0 on success (bundle filled, caller frees), -1 on
 * failure (err filled, bundle left empty). body need not be NUL-terminated. */
int fmt_decode_native_json(const void *body, size_t len,
                           const fmt_decode_options_t *opts, fmt_bundle_t *out,
                           fmt_error_t *err);
int fmt_decode_gltf(const void *body, size_t len, bool binary,
                    const fmt_decode_options_t *opts, fmt_bundle_t *out,
                    fmt_error_t *err);
int fmt_decode_bvh(const void *body, size_t len,
                   const fmt_decode_options_t *opts, fmt_bundle_t *out,
                   fmt_error_t *err);
int fmt_decode_md5mesh(const void *body, size_t len,
                       const fmt_decode_options_t *opts, fmt_bundle_t *out,
                       fmt_error_t *err);
int fmt_decode_md5anim(const void *body, size_t len,
                       const fmt_decode_options_t *opts, fmt_bundle_t *out,
                       fmt_error_t *err);

/* Picks the decoder by Content-Type (parameters such as "; charset=" are
 * ignored): application/json, model/gltf-binary, model/gltf+json,
 * application/x-bvh, application/x-md5mesh, application/x-md5anim. An
 * unknown type fails with FMT_ERR_UNSUPPORTED_MEDIA_TYPE. */
/* After a large body, freed memory is handed back to the system
 * (formats/release_memory.h). */
int fmt_decode(const char *content_type, const void *body, size_t len,
               const fmt_decode_options_t *opts, fmt_bundle_t *out,
               fmt_error_t *err);

#endif
