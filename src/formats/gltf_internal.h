/* formats: private interface between the glTF importer's files.
 *
 * gltf_data.c reads the container and the bytes (GLB chunks, base64 data:
 * URIs, buffer views and accessors of every component type, with strides,
 * normalization and sparse substitution), gltf.c builds skeletons and
 * clips from the node tree, gltf_mesh.c builds skinned meshes. They share
 * one decoding context and the JSON helpers below, which report errors at
 * glTF paths ("accessors[5].byteOffset"). */
#ifndef ANIMD_FORMATS_GLTF_INTERNAL_H
#define ANIMD_FORMATS_GLTF_INTERNAL_H

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/import_common.h"

#define GLB_MAGIC 0x46546C67u
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u
/* Accessors without a bufferView are zero-filled: bound their size. */
#define GL_MAX_ZERO_ELEMENTS ((size_t)1 << 24)
#define GL_MAX_MESHES 4096
/* Joints over all skeletons, and parent-link steps spent assembling them:
 * bounds on memory and time for hostile node trees. */
#define GL_MAX_TOTAL_JOINTS ((size_t)1 << 20)
#define GL_MAX_WALK_STEPS ((size_t)1 << 24)
/* Accessor data decoded over a whole file, in bytes: at most this many
 * times the body plus the allowance. One accessor may be read by many
 * samplers or primitives, and one without a bufferView is zeros of any
 * count, so reads, not the body, bound what a file costs. */
#define GL_READ_AMPLIFICATION 16
#define GL_READ_ALLOWANCE ((size_t)64 << 20)

enum {
  CT_I8 = 5120,
  CT_U8 = 5121,
  CT_I16 = 5122,
  CT_U16 = 5123,
  CT_U32 = 5125,
  CT_F32 = 5126
};

typedef struct gl_buf_s {
  const uint8_t *data;
  size_t len;
  uint8_t *owned;
} gl_buf_t;

/* A folded ancestor transform: similarity T(p) R(q) S(k). */
typedef struct gl_fold_s {
  bool on;
  anim_vec3_t p;
  anim_quat_t q;
  float k;
} gl_fold_t;

/* One skeleton as it is being assembled. */
typedef struct gl_skel_s {
  size_t count; /* Joints (skin joints first, then ancestors). */
  size_t skin_joints;
  uint32_t *node;  /* joint -> node */
  int32_t *parent; /* joint -> parent joint */
  gl_fold_t *fold; /* joint -> fold */
} gl_skel_t;

/* A mesh with morph targets: the node that instances it, the bundle mesh
 * built from one of its primitives, and that mesh's skeleton. */
typedef struct gl_morph_s {
  uint32_t node, mesh, skel;
} gl_morph_t;

/* (node, skeleton, joint): which joints a node is, sorted by node. */
typedef struct gl_nj_s {
  uint32_t node, skel, joint;
} gl_nj_t;

typedef struct gl_ctx_s {
  json_t *root;
  const fmt_decode_options_t *opts;
  fmt_bundle_t *out;
  fmt_error_t *err;
  const uint8_t *bin;
  size_t bin_len;
  bool has_bin;
  gl_buf_t *bufs;
  size_t nbufs;
  json_t *views, *accessors, *nodes, *skins, *anims, *meshes;
  size_t nviews, naccessors, nnodes, nskins, nanims, nmeshes;
  int32_t *parent;         /* node -> parent node, -1 for roots */
  anim_transform_t *local; /* node -> local TRS */
  bool *animated;          /* node has a T/R/S channel somewhere */
  char **names;            /* node -> name (owned) */
  gl_skel_t *skels;
  size_t nskels;
  gl_nj_t *nj;
  size_t nnj;
  gl_morph_t *morphs; /* Meshes with targets, in build order. */
  size_t nmorphs;
  size_t total_keys, total_vertices, total_joints, walk_steps;
  size_t read_bytes, read_max; /* Accessor data decoded, and its bound. */
  char at[256];                /* Scratch for error paths. */
} gl_ctx_t;

#define TM_FLOAT (1u << (CT_F32 - CT_I8))
#define TM_UINT                                                                \
  ((1u << (CT_U8 - CT_I8)) | (1u << (CT_U16 - CT_I8)) |                        \
   (1u << (CT_U32 - CT_I8)))
#define TM_NORM                                                                \
  ((1u << (CT_I8 - CT_I8)) | (1u << (CT_U8 - CT_I8)) |                         \
   (1u << (CT_I16 - CT_I8)) | (1u << (CT_U16 - CT_I8)))
#define TM_ANY 0xffffffffu

typedef enum { GP_T = 0, GP_R = 1, GP_S = 2, GP_W = 3, GP_NONE = 4 } gl_path;

/* ---- small JSON helpers -------------------------------------------------- */

static inline const char *atf(gl_ctx_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline const char *atf(gl_ctx_t *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->at, sizeof c->at, fmt, ap);
  va_end(ap);
  return c->at;
}

static inline int bad(gl_ctx_t *c, fmt_error_code code, const char *at,
                      const char *msg) {
  char copy[256];
  snprintf(copy, sizeof copy, "%s", at);
  return fmt_fail(c->err, code, copy, "%s: %s", copy, msg);
}

/* The array member key of obj (absent: NULL and count 0). */
static inline int get_array(gl_ctx_t *c, json_t *obj, const char *key,
                            json_t **arr, size_t *n, const char *at) {
  json_t *v = json_object_get(obj, key);
  *arr = NULL;
  *n = 0;
  if (v == NULL) return 0;
  if (!json_is_array(v))
    return bad(c, FMT_ERR_BAD_TYPE, at, "must be an array");
  *arr = v;
  *n = json_array_size(v);
  return 0;
}

/* An index member: required or optional (-1 when absent), < limit. */
static inline int get_index(gl_ctx_t *c, json_t *obj, const char *key,
                            size_t limit, bool required, int64_t *out,
                            const char *at) {
  json_t *v = json_object_get(obj, key);
  *out = -1;
  if (v == NULL) {
    if (required) return bad(c, FMT_ERR_MISSING, at, "is required");
    return 0;
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0 ||
      (uint64_t)json_integer_value(v) >= limit)
    return bad(c, FMT_ERR_INDEX_RANGE, at, "is not a valid index");
  *out = json_integer_value(v);
  return 0;
}

/* A non-negative integer member with a default. */
static inline int get_size(gl_ctx_t *c, json_t *obj, const char *key,
                           size_t dflt, bool required, size_t *out,
                           const char *at) {
  json_t *v = json_object_get(obj, key);
  *out = dflt;
  if (v == NULL) {
    if (required) return bad(c, FMT_ERR_MISSING, at, "is required");
    return 0;
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0)
    return bad(c, FMT_ERR_BAD_VALUE, at, "must be a non-negative integer");
  *out = (size_t)json_integer_value(v);
  return 0;
}

/* n finite numbers from an array member (absent: left as they are). */
static inline int get_floats(gl_ctx_t *c, json_t *obj, const char *key,
                             float *out, size_t n, const char *at) {
  json_t *v = json_object_get(obj, key);
  if (v == NULL) return 0;
  if (!json_is_array(v) || json_array_size(v) != n)
    return bad(c, FMT_ERR_BAD_VALUE, at, "has the wrong number of elements");
  for (size_t i = 0; i < n; i++) {
    json_t *e = json_array_get(v, i);
    if (!json_is_number(e) || !isfinite(json_number_value(e)) ||
        fabs(json_number_value(e)) > 3.0e38)
      return bad(c, FMT_ERR_BAD_VALUE, at, "must hold finite numbers");
    out[i] = (float)json_number_value(e);
  }
  return 0;
}

/* ---- gltf_data.c --------------------------------------------------------- */

/* Checks the GLB header and chunks; sets *json and the BIN chunk. */
int fmt__gl_parse_glb(gl_ctx_t *c, const uint8_t *p, size_t len,
                      const uint8_t **json, size_t *json_len);
/* Decodes a base64 data: URI (reported at `at`) into b->owned. */
int fmt__gl_data_uri(gl_ctx_t *c, const char *uri, gl_buf_t *b, const char *at);
/* The bytes of bufferView view, checked against its buffer. */
int fmt__gl_view_bytes(gl_ctx_t *c, size_t view, const uint8_t **out,
                       size_t *len, const char *at);
/* Resolves every buffer (BIN chunk or base64 data: URI; others refused). */
int fmt__gl_load_buffers(gl_ctx_t *c, bool binary);
/* Reads accessor index, referenced at use, as finite floats (count *
 * components, malloc'd). want_comps (0: any) and type_mask (a bit per
 * component type - 5120) restrict what that spot accepts. */
int fmt__gl_acc_floats(gl_ctx_t *c, size_t index, const char *use,
                       int want_comps, unsigned type_mask, float **out,
                       size_t *count);
/* The same for integer accessors (indices, joints), never normalized. */
int fmt__gl_acc_uints(gl_ctx_t *c, size_t index, const char *use,
                      int want_comps, unsigned type_mask, uint32_t **out,
                      size_t *count);

/* ---- gltf_material.c ----------------------------------------------------- */

/* A primitive's material as a mesh keeps it; image bytes decoded from a
 * data: URI and its mimeType are owned here (fmt__gl_material_free). */
typedef struct gl_material_s {
  anim_mesh_material_t m;
  gl_buf_t image;
  char *mime;
} gl_material_t;

/* Reads prim.material: its name, and its base-color texture's index and
 * image (an external URI kept as a reference, a data: URI or a bufferView
 * kept as bytes with their mimeType). No material: all zero. */
int fmt__gl_material(gl_ctx_t *c, json_t *prim, const char *pat,
                     gl_material_t *out);
void fmt__gl_material_free(gl_material_t *m);

/* ---- gltf_mesh.c --------------------------------------------------------- */

/* One mesh per primitive of every node with both a mesh and a skin, and
 * of every node with a mesh with morph targets and no skin that is a
 * joint with an identity inverse bind matrix (bound to it rigidly).
 * Meshes with targets are listed in c->morphs. */
int fmt__gl_load_meshes(gl_ctx_t *c);

#endif
