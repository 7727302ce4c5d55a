/* animd core: building skinned meshes from their raw form.
 *
 * Owns anim_mesh_build / anim_mesh_free. Every check runs before anything
 * is allocated, so a failed build leaves nothing behind. The built mesh is
 * one allocation (header, name and 64-byte aligned streams) freed in one
 * call. Key design choice: the influences of each vertex are stored so
 * that adding their weights in slot order in float gives exactly 1 (the
 * largest weight goes last and absorbs the rounding), which makes skinning
 * with identity matrices return the bind pose bit for bit. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animd/skinning.h"
#include "builder.h"

#define MESH_ALIGN 64u

/* Rounds n up to a multiple of MESH_ALIGN. */
static size_t align_up(size_t n) {
  return (n + MESH_ALIGN - 1) & ~(size_t)(MESH_ALIGN - 1);
}

static anim_result fail(anim_build_error_t *err, anim_result code,
                        const char *field, int64_t key, int32_t component,
                        int64_t joint, const char *message) {
  if (err) {
    err->code = code;
    err->joint = joint >= 0 && joint <= INT32_MAX ? (int32_t)joint : -1;
    err->track = -1;
    err->key = key >= 0 && key <= INT32_MAX ? (int32_t)key : -1;
    err->component = component;
    err->field = field;
    if (key >= 0)
      snprintf(err->message, sizeof err->message, "%s %lld: %s", field,
               (long long)key, message);
    else
      snprintf(err->message, sizeof err->message, "%s: %s", field, message);
  }
  return code;
}

/* ---- validation ---------------------------------------------------------- */

/* Morph targets: a count within bounds, position deltas given, normal
 * deltas only beside normals, every number finite (key = target). */
static anim_result check_targets(const anim_raw_mesh_t *raw,
                                 anim_build_error_t *err) {
  const uint32_t t = raw->target_count;
  if (t == 0) return ANIM_OK;
  if (t > ANIM_MAX_MORPH_TARGETS)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "targets", -1, -1, -1,
                "a mesh may have 1 to 256 morph targets");
  if (!raw->target_positions)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "targets", -1, -1, -1,
                "morph target positions are missing");
  if (raw->target_normals && !raw->normals)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "targets", -1, -1, -1,
                "morph target normals on a mesh without normals");
  const size_t per = 3 * raw->vertex_count;
  for (uint32_t i = 0; i < t; i++)
    for (size_t e = 0; e < per; e++)
      if (!isfinite(raw->target_positions[i * per + e]) ||
          (raw->target_normals && !isfinite(raw->target_normals[i * per + e])))
        return fail(err, ANIM_ERR_NOT_FINITE, "targets", (int64_t)i,
                    (int32_t)(e % 3), -1, "morph target delta is not finite");
  if (raw->default_weights)
    for (uint32_t i = 0; i < t; i++)
      if (!isfinite(raw->default_weights[i]))
        return fail(err, ANIM_ERR_NOT_FINITE, "weights_default", (int64_t)i, -1,
                    -1, "default morph weight is not finite");
  return ANIM_OK;
}

static anim_result check_raw(const anim_raw_mesh_t *raw,
                             const anim_skeleton_t *skel, uint32_t k,
                             anim_build_error_t *err) {
  const size_t n = raw->vertex_count;
  for (size_t v = 0; v < n; v++) {
    for (int c = 0; c < 3; c++)
      if (!isfinite(raw->positions[3 * v + c]))
        return fail(err, ANIM_ERR_NOT_FINITE, "positions", (int64_t)v, c, -1,
                    "position is not a finite number");
    if (raw->normals)
      for (int c = 0; c < 3; c++)
        if (!isfinite(raw->normals[3 * v + c]))
          return fail(err, ANIM_ERR_NOT_FINITE, "normals", (int64_t)v, c, -1,
                      "normal is not a finite number");
    float sum = 0.0f;
    for (uint32_t i = 0; i < k; i++) {
      uint32_t j = raw->joints[(size_t)k * v + i];
      float w = raw->weights[(size_t)k * v + i];
      if (j >= skel->joint_count)
        return fail(err, ANIM_ERR_JOINT_RANGE, "joints", (int64_t)v, (int32_t)i,
                    j, "joint index is not in the skeleton");
      if (!isfinite(w))
        return fail(err, ANIM_ERR_NOT_FINITE, "weights", (int64_t)v, (int32_t)i,
                    -1, "weight is not a finite number");
      if (w < 0.0f)
        return fail(err, ANIM_ERR_WEIGHT, "weights", (int64_t)v, (int32_t)i, -1,
                    "weight is negative");
      sum += w;
    }
    if (!(sum > 0.0f) || !isfinite(sum))
      return fail(err, ANIM_ERR_WEIGHT, "weights", (int64_t)v, -1, -1,
                  "weights do not have a positive finite sum");
  }
  if (raw->index_count % 3 != 0)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "indices", -1, -1, -1,
                "index count is not a multiple of 3");
  if (raw->index_count > UINT32_MAX)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "indices", -1, -1, -1,
                "too many indices");
  for (size_t i = 0; i < raw->index_count; i++)
    if (raw->indices[i] >= n)
      return fail(err, ANIM_ERR_INVALID_ARGUMENT, "indices", (int64_t)i, -1, -1,
                  "index is not a vertex of the mesh");
  if (raw->texcoords)
    for (size_t v = 0; v < n; v++)
      for (int c = 0; c < 2; c++)
        if (!isfinite(raw->texcoords[2 * v + c]))
          return fail(err, ANIM_ERR_NOT_FINITE, "texcoords", (int64_t)v, c, -1,
                      "texture coordinate is not a finite number");
  if (raw->material.image_size > 0 && !raw->material.image)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "material", -1, -1, -1,
                "image bytes are missing");
  return check_targets(raw, err);
}

/* ---- influences ---------------------------------------------------------- */

/* Renormalizes one vertex's k raw influences into `slots` stored slots
 * (k <= slots; the rest are padding), remapped to storage order, with the
 * largest weight in the last slot set to 1 minus the float sum of the
 * others. 1 - a rounds so that a + (1 - a) is exactly 1 for any a in
 * [0, 1], so the slot-order float sum is exactly 1. A last slot within
 * rounding of the largest weight stays where it is, so building again from
 * a built mesh's own streams leaves them unchanged (ties such as 0.5/0.5
 * would otherwise swap on every rebuild). */
static void store_influences(const uint32_t *rj, const float *rw, uint32_t k,
                             uint32_t slots, const anim_skeleton_t *skel,
                             uint16_t *oj, float *ow) {
  float sum = 0.0f;
  for (uint32_t i = 0; i < k; i++) sum += rw[i];
  uint32_t big = 0;
  for (uint32_t i = 0; i < slots; i++) {
    if (i < k) {
      oj[i] = (uint16_t)skel->from_caller[rj[i]];
      ow[i] = rw[i] / sum;
    } else {
      oj[i] = 0;
      ow[i] = 0.0f;
    }
    if (ow[i] > ow[big]) big = i;
  }
  const uint32_t last = slots - 1;
  if (ow[last] >= ow[big] * (1.0f - 4.0f * FLT_EPSILON)) big = last;
  uint16_t tj = oj[big];
  float tw = ow[big];
  oj[big] = oj[last];
  ow[big] = ow[last];
  oj[last] = tj;
  ow[last] = tw;
  float rest = 0.0f;
  for (uint32_t i = 0; i < last; i++) rest += ow[i];
  ow[last] = 1.0f - rest;
}

/* ---- material ------------------------------------------------------------ */

/* Bytes of a material string with its NUL (0 for none). */
static size_t text_size(const char *s) { return s ? strlen(s) + 1 : 0; }

/* The bytes the material's strings and image take in the block. */
static size_t material_size(const anim_mesh_material_t *m) {
  return text_size(m->name) + text_size(m->image_uri) +
         text_size(m->image_type) + m->image_size;
}

/* Copies string s to *at and returns the copy (NULL stays NULL). */
static const char *copy_text(unsigned char **at, const char *s) {
  if (!s) return NULL;
  size_t len = strlen(s) + 1;
  memcpy(*at, s, len);
  const char *copy = (const char *)*at;
  *at += len;
  return copy;
}

/* Copies the material into the block at `at`. */
static void copy_material(anim_mesh_material_t *d,
                          const anim_mesh_material_t *s, unsigned char *at) {
  d->has_texture = s->has_texture;
  d->texture = s->texture;
  d->name = copy_text(&at, s->name);
  d->image_uri = copy_text(&at, s->image_uri);
  d->image_type = copy_text(&at, s->image_type);
  if (s->image_size > 0) {
    memcpy(at, s->image, s->image_size);
    d->image = at;
    d->image_size = s->image_size;
  }
}

/* ---- build --------------------------------------------------------------- */

anim_result anim_mesh_build(const anim_raw_mesh_t *raw,
                            const anim_skeleton_t *skeleton,
                            const anim_allocator_t *alloc, anim_mesh_t **out,
                            anim_build_error_t *err) {
  if (out) *out = NULL;
  if (!raw || !skeleton || !out)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "mesh", -1, -1, -1,
                "missing mesh, skeleton or output");
  anim_allocator_t a;
  if (!builder_allocator(alloc, &a))
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "allocator", -1, -1, -1,
                BUILDER_ALLOCATOR_MESSAGE);
  if (skeleton->joint_count == 0 || skeleton->joint_count > ANIM_MAX_JOINTS ||
      !skeleton->from_caller)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "mesh", -1, -1, -1,
                "skeleton is empty or not built");
  if (raw->vertex_count == 0 || raw->vertex_count > INT32_MAX)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "positions", -1, -1, -1,
                "vertex count must be 1 to 2147483647");
  if (!raw->positions)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "positions", -1, -1, -1,
                "positions are missing");
  if (raw->influences > 8)
    return fail(err, ANIM_ERR_INFLUENCES, "influences", -1, -1, -1,
                "influences per vertex must be 1 to 8");
  if (!raw->joints)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "joints", -1, -1, -1,
                "joint indices are missing");
  if (!raw->weights)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "weights", -1, -1, -1,
                "weights are missing");
  if (raw->index_count > 0 && !raw->indices)
    return fail(err, ANIM_ERR_INVALID_ARGUMENT, "indices", -1, -1, -1,
                "indices are missing");
  const uint32_t k = raw->influences ? raw->influences : 4;
  anim_result r = check_raw(raw, skeleton, k, err);
  if (r != ANIM_OK) return r;

  const size_t n = raw->vertex_count;
  const uint32_t slots = k <= 4 ? 4 : 8;
  const char *name = raw->name ? raw->name : "";
  const size_t name_len = strlen(name) + 1;
  size_t off_name = align_up(sizeof(anim_mesh_t));
  size_t off_pos = align_up(off_name + name_len);
  size_t off_nrm = align_up(off_pos + n * 3 * sizeof(float));
  size_t off_w = align_up(off_nrm + (raw->normals ? n * 3 * sizeof(float) : 0));
  size_t off_j = align_up(off_w + n * slots * sizeof(float));
  size_t off_i = align_up(off_j + n * slots * sizeof(uint16_t));
  size_t end_i = off_i + raw->index_count * sizeof(uint32_t);
  size_t off_uv = raw->texcoords ? align_up(end_i) : end_i;
  size_t off_mat = off_uv + (raw->texcoords ? n * 2 * sizeof(float) : 0);
  const size_t nt = raw->target_count, tfloats = nt * n * 3;
  size_t off_tp = align_up(off_mat + material_size(&raw->material));
  size_t off_tn = off_tp + tfloats * sizeof(float);
  size_t off_tw = off_tn + (raw->target_normals ? tfloats * sizeof(float) : 0);
  size_t total = nt > 0 ? off_tw + nt * sizeof(float)
                        : off_mat + material_size(&raw->material);

  /* The streams sit on MESH_ALIGN boundaries whatever alignment the
   * allocator gives; the header sits at the aligned start and _block keeps
   * the real one. */
  void *block = NULL;
  unsigned char *base = builder_alloc_aligned(&a, total, MESH_ALIGN, &block);
  if (!base)
    return fail(err, ANIM_ERR_OUT_OF_MEMORY, "mesh", -1, -1, -1,
                "out of memory");
  anim_mesh_t *m = (anim_mesh_t *)base;
  memset(m, 0, sizeof *m);
  m->_alloc = a;
  m->_block = block;
  m->name = (char *)(base + off_name);
  memcpy(m->name, name, name_len);
  m->vertex_count = (uint32_t)n;
  m->influences = slots;
  m->joint_count = skeleton->joint_count;
  m->positions = (float *)(base + off_pos);
  memcpy(m->positions, raw->positions, n * 3 * sizeof(float));
  if (raw->normals) {
    m->normals = (float *)(base + off_nrm);
    for (size_t v = 0; v < n; v++) {
      const float *s = raw->normals + 3 * v;
      float *d = m->normals + 3 * v;
      double len =
          sqrt((double)s[0] * s[0] + (double)s[1] * s[1] + (double)s[2] * s[2]);
      double inv = len > 0.0 ? 1.0 / len : 0.0;
      for (int c = 0; c < 3; c++) d[c] = (float)(s[c] * inv);
    }
  }
  m->weights = (float *)(base + off_w);
  m->joints = (uint16_t *)(base + off_j);
  for (size_t v = 0; v < n; v++)
    store_influences(raw->joints + (size_t)k * v, raw->weights + (size_t)k * v,
                     k, slots, skeleton, m->joints + (size_t)slots * v,
                     m->weights + (size_t)slots * v);
  if (raw->index_count > 0) {
    m->indices = (uint32_t *)(base + off_i);
    memcpy(m->indices, raw->indices, raw->index_count * sizeof(uint32_t));
    m->index_count = (uint32_t)raw->index_count;
  }
  if (raw->texcoords) {
    m->texcoords = (float *)(base + off_uv);
    memcpy(m->texcoords, raw->texcoords, n * 2 * sizeof(float));
  }
  copy_material(&m->material, &raw->material, base + off_mat);
  if (nt > 0) {
    m->target_count = (uint32_t)nt;
    m->target_positions = (float *)(base + off_tp);
    memcpy(m->target_positions, raw->target_positions, tfloats * sizeof(float));
    if (raw->target_normals) {
      m->target_normals = (float *)(base + off_tn);
      memcpy(m->target_normals, raw->target_normals, tfloats * sizeof(float));
    }
    m->default_weights = (float *)(base + off_tw);
    for (size_t i = 0; i < nt; i++)
      m->default_weights[i] =
          raw->default_weights ? raw->default_weights[i] : 0.0f;
  }
  *out = m;
  return ANIM_OK;
}

void anim_mesh_free(anim_mesh_t *mesh) {
  if (!mesh) return;
  anim_allocator_t a = mesh->_alloc;
  builder_free(&a, mesh->_block);
}
