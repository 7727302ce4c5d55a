/* formats: the glTF 2.0 importer (.glb and .gltf with data: URIs).
 *
 * One pass over the document builds, in order: buffers (the GLB BIN chunk
 * or base64 data: URIs; any other URI is refused, nothing is read by
 * name), the node tree (single parents, no cycles, local TRS with matrices
 * decomposed), one skeleton per skin, one clip per (animation, skeleton it
 * touches) and one mesh per skinned primitive. A file without skins gets a
 * single skeleton of all its nodes so node animation still imports.
 *
 * Key design choice: model space must equal glTF scene space. Non-joint
 * nodes between a joint and its nearest joint ancestor (an armature node, a
 * Z-up root matrix) are folded into that joint's rest transform and its
 * animation keys when their product is static and a similarity (rotation,
 * translation, uniform scale: the per-path folding is then exact for every
 * interpolation); otherwise (animated or non-uniformly scaled ancestors)
 * they are appended to the skeleton as extra joints after the skin's own
 * joints, with identity inverse bind matrices, so their animation is kept.
 *
 * Every count, index, offset and stride of the document is checked before
 * use, with overflow-safe arithmetic; errors name the glTF path. */
#include "formats/import_common.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u
/* Accessors without a bufferView are zero-filled: bound their size. */
#define GL_MAX_ZERO_ELEMENTS ((size_t)1 << 24)
#define GL_MAX_MESHES 65536

enum { CT_I8 = 5120, CT_U8 = 5121, CT_I16 = 5122, CT_U16 = 5123,
       CT_U32 = 5125, CT_F32 = 5126 };

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
  size_t count;          /* Joints (skin joints first, then ancestors). */
  size_t skin_joints;
  uint32_t *node;        /* joint -> node */
  int32_t *parent;       /* joint -> parent joint */
  gl_fold_t *fold;       /* joint -> fold */
} gl_skel_t;

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
  size_t total_keys, total_vertices;
  char at[256];            /* Scratch for error paths. */
} gl_ctx_t;

/* ---- small JSON helpers ---------------------------------------------------- */

static const char *atf(gl_ctx_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static const char *atf(gl_ctx_t *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->at, sizeof c->at, fmt, ap);
  va_end(ap);
  return c->at;
}

static int bad(gl_ctx_t *c, const char *code, const char *at, const char *msg) {
  char copy[256];
  snprintf(copy, sizeof copy, "%s", at);
  return fmt_fail(c->err, 400, code, copy, "%s: %s", copy, msg);
}

/* The array member key of obj (absent: NULL and count 0). */
static int get_array(gl_ctx_t *c, json_t *obj, const char *key, json_t **arr,
                     size_t *n, const char *at) {
  json_t *v = json_object_get(obj, key);
  *arr = NULL;
  *n = 0;
  if (v == NULL) return 0;
  if (!json_is_array(v)) return bad(c, "bad_type", at, "must be an array");
  *arr = v;
  *n = json_array_size(v);
  return 0;
}

/* An index member: required or optional (-1 when absent), < limit. */
static int get_index(gl_ctx_t *c, json_t *obj, const char *key, size_t limit,
                     bool required, int64_t *out, const char *at) {
  json_t *v = json_object_get(obj, key);
  *out = -1;
  if (v == NULL) {
    if (required) return bad(c, "missing", at, "is required");
    return 0;
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0 ||
      (uint64_t)json_integer_value(v) >= limit)
    return bad(c, "index_range", at, "is not a valid index");
  *out = json_integer_value(v);
  return 0;
}

/* A non-negative integer member with a default. */
static int get_size(gl_ctx_t *c, json_t *obj, const char *key, size_t dflt,
                    bool required, size_t *out, const char *at) {
  json_t *v = json_object_get(obj, key);
  *out = dflt;
  if (v == NULL) {
    if (required) return bad(c, "missing", at, "is required");
    return 0;
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0)
    return bad(c, "bad_value", at, "must be a non-negative integer");
  *out = (size_t)json_integer_value(v);
  return 0;
}

/* n finite numbers from an array member (absent: left as they are). */
static int get_floats(gl_ctx_t *c, json_t *obj, const char *key, float *out,
                      size_t n, const char *at) {
  json_t *v = json_object_get(obj, key);
  if (v == NULL) return 0;
  if (!json_is_array(v) || json_array_size(v) != n)
    return bad(c, "bad_value", at, "has the wrong number of elements");
  for (size_t i = 0; i < n; i++) {
    json_t *e = json_array_get(v, i);
    if (!json_is_number(e) || !isfinite(json_number_value(e)) ||
        fabs(json_number_value(e)) > 3.0e38)
      return bad(c, "bad_value", at, "must hold finite numbers");
    out[i] = (float)json_number_value(e);
  }
  return 0;
}

/* ---- buffers ---------------------------------------------------------------- */

static int parse_glb(gl_ctx_t *c, const uint8_t *p, size_t len,
                     const uint8_t **json, size_t *json_len) {
  uint32_t h[3];
  if (len < 12) return bad(c, "truncated", "glb", "shorter than its header");
  memcpy(h, p, 12);
  if (h[0] != GLB_MAGIC) return bad(c, "bad_magic", "glb.magic", "not glTF");
  if (h[1] != 2)
    return bad(c, "unsupported_version", "glb.version", "must be 2");
  if (h[2] != len)
    return fmt_fail(c->err, 400, "length_mismatch", "glb.length",
                    "glb.length: header says %u bytes, body has %zu", h[2],
                    len);
  size_t off = 12;
  for (size_t i = 0; off < len; i++) {
    uint32_t ch[2];
    if (len - off < 8)
      return fmt_fail(c->err, 400, "truncated", atf(c, "glb.chunks[%zu]", i),
                      "%s: chunk header cut short", c->at);
    memcpy(ch, p + off, 8);
    off += 8;
    if (ch[0] > len - off)
      return fmt_fail(c->err, 400, "chunk_length",
                      atf(c, "glb.chunks[%zu].chunkLength", i),
                      "%s: %u bytes do not fit in the %zu left", c->at, ch[0],
                      len - off);
    if (i == 0) {
      if (ch[1] != GLB_JSON)
        return bad(c, "bad_chunk", "glb.chunks[0].chunkType",
                   "the first chunk must be JSON");
      *json = p + off;
      *json_len = ch[0];
    } else if (i == 1 && ch[1] == GLB_BIN) {
      c->bin = p + off;
      c->bin_len = ch[0];
      c->has_bin = true;
    }
    off += ch[0];
  }
  if (*json == NULL) return bad(c, "truncated", "glb", "no JSON chunk");
  return 0;
}

/* Decodes a base64 data: URI into b->owned. */
static int decode_data_uri(gl_ctx_t *c, const char *uri, gl_buf_t *b,
                           size_t i) {
  const char *comma = strchr(uri, ',');
  if (comma == NULL || comma - uri < 12 ||
      strncmp(comma - 7, ";base64", 7) != 0)
    return bad(c, "bad_uri", atf(c, "buffers[%zu].uri", i),
               "only base64 data: URIs are supported");
  const char *s = comma + 1;
  size_t n = strlen(s);
  if (n > (size_t)INT32_MAX || n % 4 != 0)
    return bad(c, "bad_base64", atf(c, "buffers[%zu].uri", i),
               "base64 length is not a multiple of 4");
  b->owned = malloc(n / 4 * 3 + 1);
  if (b->owned == NULL) return fmt__nomem(c->err, "buffers");
  int got = n ? EVP_DecodeBlock(b->owned, (const unsigned char *)s, (int)n) : 0;
  if (got < 0)
    return bad(c, "bad_base64", atf(c, "buffers[%zu].uri", i),
               "invalid base64");
  size_t pad = 0;
  if (n >= 1 && s[n - 1] == '=') pad++;
  if (n >= 2 && s[n - 2] == '=') pad++;
  b->data = b->owned;
  b->len = (size_t)got - pad;
  return 0;
}

static int load_buffers(gl_ctx_t *c, bool binary) {
  json_t *arr;
  if (get_array(c, c->root, "buffers", &arr, &c->nbufs, "buffers")) return -1;
  if (c->nbufs == 0) return 0;
  c->bufs = calloc(c->nbufs, sizeof *c->bufs);
  if (c->bufs == NULL) return fmt__nomem(c->err, "buffers");
  for (size_t i = 0; i < c->nbufs; i++) {
    json_t *b = json_array_get(arr, i);
    size_t blen;
    if (!json_is_object(b))
      return bad(c, "bad_type", atf(c, "buffers[%zu]", i), "not an object");
    if (get_size(c, b, "byteLength", 0, true, &blen,
                 atf(c, "buffers[%zu].byteLength", i)))
      return -1;
    json_t *uri = json_object_get(b, "uri");
    if (uri == NULL) {
      if (!binary || i != 0 || !c->has_bin)
        return bad(c, "missing", atf(c, "buffers[%zu].uri", i),
                   "a buffer without uri needs the GLB BIN chunk");
      c->bufs[i].data = c->bin;
      c->bufs[i].len = c->bin_len;
    } else {
      if (!json_is_string(uri))
        return bad(c, "bad_type", atf(c, "buffers[%zu].uri", i),
                   "must be a string");
      const char *u = json_string_value(uri);
      if (strncmp(u, "data:", 5) != 0)
        return bad(c, "external_uri", atf(c, "buffers[%zu].uri", i),
                   "external URIs are refused: embed the buffer as a "
                   "data: URI or upload a .glb");
      if (decode_data_uri(c, u, &c->bufs[i], i)) return -1;
    }
    if (blen > c->bufs[i].len)
      return fmt_fail(c->err, 400, "buffer_length",
                      atf(c, "buffers[%zu].byteLength", i),
                      "%s: %zu bytes declared, %zu present", c->at, blen,
                      c->bufs[i].len);
    c->bufs[i].len = blen;
  }
  return 0;
}

/* ---- accessors ---------------------------------------------------------------- */

typedef struct gl_acc_s {
  size_t count;
  int comps;
  int ctype;
  bool normalized;
  const uint8_t *base; /* NULL: zeros */
  size_t stride, elem;
  json_t *sparse;
} gl_acc_t;

static size_t ctype_size(int t) {
  switch (t) {
    case CT_I8: case CT_U8: return 1;
    case CT_I16: case CT_U16: return 2;
    case CT_U32: case CT_F32: return 4;
    default: return 0;
  }
}

static int type_comps(const char *t) {
  static const struct { const char *n; int c; } k[] = {
    {"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4},
    {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (strcmp(t, k[i].n) == 0) return k[i].c;
  return 0;
}

/* Resolves a bufferView range [off, off + need) to memory, checked. */
static int view_range(gl_ctx_t *c, size_t view, size_t off, size_t need,
                      size_t *stride, const uint8_t **out, const char *at) {
  json_t *v = json_array_get(c->views, view);
  if (!json_is_object(v))
    return bad(c, "bad_type", atf(c, "bufferViews[%zu]", view),
               "not an object");
  int64_t buf;
  size_t voff, vlen, vstride;
  char vat[64];
  snprintf(vat, sizeof vat, "bufferViews[%zu]", view);
  if (get_index(c, v, "buffer", c->nbufs, true, &buf,
                atf(c, "%s.buffer", vat)) ||
      get_size(c, v, "byteOffset", 0, false, &voff,
               atf(c, "%s.byteOffset", vat)) ||
      get_size(c, v, "byteLength", 0, true, &vlen,
               atf(c, "%s.byteLength", vat)) ||
      get_size(c, v, "byteStride", 0, false, &vstride,
               atf(c, "%s.byteStride", vat)))
    return -1;
  if (voff > c->bufs[buf].len || vlen > c->bufs[buf].len - voff)
    return fmt_fail(c->err, 400, "out_of_bounds", atf(c, "%s.byteLength", vat),
                    "%s: bytes %zu..%zu+%zu lie outside buffers[%lld] "
                    "(%zu bytes)", c->at, voff, voff, vlen, (long long)buf,
                    c->bufs[buf].len);
  if (vstride != 0 && (vstride < 4 || vstride > 252))
    return bad(c, "bad_stride", atf(c, "%s.byteStride", vat),
               "must be within 4..252");
  if (off > vlen || need > vlen - off)
    return fmt_fail(c->err, 400, "out_of_bounds", at,
                    "%s: %zu bytes at offset %zu do not fit in %s (%zu "
                    "bytes)", at, need, off, vat, vlen);
  if (stride != NULL) *stride = vstride;
  *out = c->bufs[buf].data + voff + off;
  return 0;
}

/* Opens accessor index for reading; use names the referring spot. */
static int acc_open(gl_ctx_t *c, size_t index, gl_acc_t *a) {
  char aat[48];
  snprintf(aat, sizeof aat, "accessors[%zu]", index);
  json_t *j = json_array_get(c->accessors, index);
  memset(a, 0, sizeof *a);
  if (!json_is_object(j)) return bad(c, "bad_type", aat, "not an object");
  json_t *ct = json_object_get(j, "componentType");
  json_t *ty = json_object_get(j, "type");
  if (!json_is_integer(ct) || ctype_size((int)json_integer_value(ct)) == 0 ||
      json_integer_value(ct) > CT_F32)
    return bad(c, "bad_component_type", atf(c, "%s.componentType", aat),
               "must be one of 5120, 5121, 5122, 5123, 5125, 5126");
  if (!json_is_string(ty) || type_comps(json_string_value(ty)) == 0)
    return bad(c, "bad_type", atf(c, "%s.type", aat), "unknown type");
  a->ctype = (int)json_integer_value(ct);
  a->comps = type_comps(json_string_value(ty));
  a->normalized = json_is_true(json_object_get(j, "normalized"));
  if (get_size(c, j, "count", 0, true, &a->count, atf(c, "%s.count", aat)))
    return -1;
  if (a->count == 0) return bad(c, "bad_value", c->at, "must be at least 1");
  a->elem = ctype_size(a->ctype) * (size_t)a->comps;
  int64_t view;
  size_t off;
  if (get_index(c, j, "bufferView", c->nviews, false, &view,
                atf(c, "%s.bufferView", aat)) ||
      get_size(c, j, "byteOffset", 0, false, &off,
               atf(c, "%s.byteOffset", aat)))
    return -1;
  if (view < 0) {
    if (a->count > GL_MAX_ZERO_ELEMENTS)
      return fmt_fail(c->err, 413, "too_large", atf(c, "%s.count", aat),
                      "%s: too many elements", c->at);
  } else {
    size_t stride, need;
    const uint8_t *dummy;
    /* First the view alone, to learn its stride. */
    if (view_range(c, (size_t)view, 0, 0, &stride, &dummy, aat)) return -1;
    if (stride == 0) stride = a->elem;
    if (stride < a->elem)
      return bad(c, "bad_stride", atf(c, "bufferViews[%lld].byteStride",
                                      (long long)view),
                 "is smaller than the element size");
    if (__builtin_mul_overflow(a->count - 1, stride, &need) ||
        __builtin_add_overflow(need, a->elem, &need))
      return bad(c, "out_of_bounds", atf(c, "%s.count", aat),
                 "overflows the buffer view");
    if (view_range(c, (size_t)view, off, need, NULL, &a->base,
                   atf(c, "%s.byteOffset", aat)))
      return -1;
    a->stride = stride;
  }
  a->sparse = json_object_get(j, "sparse");
  if (a->sparse != NULL && !json_is_object(a->sparse))
    return bad(c, "bad_type", atf(c, "%s.sparse", aat), "not an object");
  return 0;
}

static double comp_get(const uint8_t *p, int ctype, bool norm) {
  switch (ctype) {
    case CT_I8: {
      int8_t v; memcpy(&v, p, 1);
      return norm ? fmax(v / 127.0, -1.0) : v;
    }
    case CT_U8: return norm ? p[0] / 255.0 : p[0];
    case CT_I16: {
      int16_t v; memcpy(&v, p, 2);
      return norm ? fmax(v / 32767.0, -1.0) : v;
    }
    case CT_U16: {
      uint16_t v; memcpy(&v, p, 2);
      return norm ? v / 65535.0 : v;
    }
    case CT_U32: {
      uint32_t v; memcpy(&v, p, 4);
      return norm ? v / 4294967295.0 : v;
    }
    default: {
      float v; memcpy(&v, p, 4);
      return v;
    }
  }
}

/* Reads all elements of an opened accessor as doubles into out
 * (count * comps), applying sparse substitution. */
static int acc_fill(gl_ctx_t *c, size_t index, const gl_acc_t *a, double *out) {
  size_t cs = ctype_size(a->ctype), n = a->count * (size_t)a->comps;
  if (a->base == NULL) {
    for (size_t i = 0; i < n; i++) out[i] = 0;
  } else {
    for (size_t e = 0; e < a->count; e++) {
      const uint8_t *p = a->base + e * a->stride;
      for (int k = 0; k < a->comps; k++)
        out[e * (size_t)a->comps + (size_t)k] =
            comp_get(p + (size_t)k * cs, a->ctype, a->normalized);
    }
  }
  if (a->sparse == NULL) return 0;
  char sat[64];
  snprintf(sat, sizeof sat, "accessors[%zu].sparse", index);
  size_t scount, ioff, voff;
  int64_t iview, vview;
  json_t *ind = json_object_get(a->sparse, "indices");
  json_t *val = json_object_get(a->sparse, "values");
  if (get_size(c, a->sparse, "count", 0, true, &scount,
               atf(c, "%s.count", sat)))
    return -1;
  if (scount == 0 || scount > a->count)
    return bad(c, "bad_value", atf(c, "%s.count", sat),
               "must be within 1..accessor count");
  if (!json_is_object(ind) || !json_is_object(val))
    return bad(c, "missing", sat, "needs indices and values");
  if (get_index(c, ind, "bufferView", c->nviews, true, &iview,
                atf(c, "%s.indices.bufferView", sat)) ||
      get_size(c, ind, "byteOffset", 0, false, &ioff,
               atf(c, "%s.indices.byteOffset", sat)) ||
      get_index(c, val, "bufferView", c->nviews, true, &vview,
                atf(c, "%s.values.bufferView", sat)) ||
      get_size(c, val, "byteOffset", 0, false, &voff,
               atf(c, "%s.values.byteOffset", sat)))
    return -1;
  json_t *ict = json_object_get(ind, "componentType");
  int it = json_is_integer(ict) ? (int)json_integer_value(ict) : 0;
  if (it != CT_U8 && it != CT_U16 && it != CT_U32)
    return bad(c, "bad_component_type",
               atf(c, "%s.indices.componentType", sat),
               "must be 5121, 5123 or 5125");
  const uint8_t *ip, *vp;
  if (view_range(c, (size_t)iview, ioff, scount * ctype_size(it), NULL, &ip,
                 atf(c, "%s.indices.byteOffset", sat)) ||
      view_range(c, (size_t)vview, voff, scount * a->elem, NULL, &vp,
                 atf(c, "%s.values.byteOffset", sat)))
    return -1;
  double prev = -1;
  for (size_t s = 0; s < scount; s++) {
    double ix = comp_get(ip + s * ctype_size(it), it, false);
    if (ix <= prev || ix >= (double)a->count)
      return fmt_fail(c->err, 400, "index_range",
                      atf(c, "%s.indices", sat),
                      "%s: index %zu (%.0f) is out of range or not "
                      "increasing", c->at, s, ix);
    prev = ix;
    for (int k = 0; k < a->comps; k++)
      out[(size_t)ix * (size_t)a->comps + (size_t)k] =
          comp_get(vp + s * a->elem + (size_t)k * cs, a->ctype, a->normalized);
  }
  return 0;
}

/* Reads accessor index (referenced at `use`) as floats. want_comps and
 * type_mask (bit per component type - 5120) restrict what is accepted.
 * Values must be finite. *out is malloc'd. */
static int acc_floats(gl_ctx_t *c, size_t index, const char *use,
                      int want_comps, unsigned type_mask, float **out,
                      size_t *count) {
  gl_acc_t a;
  char u[200];
  snprintf(u, sizeof u, "%s", use);
  if (acc_open(c, index, &a)) return -1;
  if (want_comps != 0 && a.comps != want_comps)
    return fmt_fail(c->err, 400, "bad_type", u,
                    "%s: accessors[%zu] has %d components, %d expected", u,
                    index, a.comps, want_comps);
  if (!(type_mask & (1u << (a.ctype - CT_I8))))
    return fmt_fail(c->err, 400, "bad_component_type", u,
                    "%s: accessors[%zu] has a component type (%d) not "
                    "allowed here", u, index, a.ctype);
  size_t n = a.count * (size_t)a.comps;
  double *tmp = malloc(n * sizeof *tmp);
  float *f = malloc(n * sizeof *f);
  if (tmp == NULL || f == NULL) {
    free(tmp);
    free(f);
    return fmt__nomem(c->err, u);
  }
  if (acc_fill(c, index, &a, tmp)) {
    free(tmp);
    free(f);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(tmp[i]) || fabs(tmp[i]) > 3.0e38) {
      fmt_fail(c->err, 400, "not_finite", u,
               "%s: accessors[%zu] element %zu component %zu is not a "
               "finite number", u, index, i / (size_t)a.comps,
               i % (size_t)a.comps);
      free(tmp);
      free(f);
      return -1;
    }
    f[i] = (float)tmp[i];
  }
  free(tmp);
  *out = f;
  *count = a.count;
  return 0;
}

#define TM_FLOAT (1u << (CT_F32 - CT_I8))
#define TM_UINT ((1u << (CT_U8 - CT_I8)) | (1u << (CT_U16 - CT_I8)) | \
                 (1u << (CT_U32 - CT_I8)))
#define TM_NORM ((1u << (CT_I8 - CT_I8)) | (1u << (CT_U8 - CT_I8)) | \
                 (1u << (CT_I16 - CT_I8)) | (1u << (CT_U16 - CT_I8)))
#define TM_ANY 0xffffffffu

/* Integer accessors (indices, joints): no normalization allowed. */
static int acc_uints(gl_ctx_t *c, size_t index, const char *use,
                     int want_comps, unsigned type_mask, uint32_t **out,
                     size_t *count) {
  float *f;
  char u[200];
  snprintf(u, sizeof u, "%s", use);
  json_t *j = json_array_get(c->accessors, index);
  if (json_is_true(json_object_get(j, "normalized")))
    return fmt_fail(c->err, 400, "bad_value", u,
                    "%s: accessors[%zu] must not be normalized", u, index);
  /* u32 values above 2^24 lose precision as floats: read them as doubles
   * through the float path only when they are small, which indices and
   * joints are checked to be anyway (against counts below 2^24). */
  if (acc_floats(c, index, u, want_comps, type_mask, &f, count)) return -1;
  size_t n = *count * (size_t)want_comps;
  uint32_t *v = malloc((n ? n : 1) * sizeof *v);
  if (v == NULL) {
    free(f);
    return fmt__nomem(c->err, u);
  }
  for (size_t i = 0; i < n; i++) v[i] = f[i] >= 4294967295.0f ? UINT32_MAX
                                                               : (uint32_t)f[i];
  free(f);
  *out = v;
  return 0;
}

/* ---- nodes -------------------------------------------------------------------- */

static int load_nodes(gl_ctx_t *c) {
  size_t n = c->nnodes;
  c->parent = malloc((n ? n : 1) * sizeof *c->parent);
  c->local = malloc((n ? n : 1) * sizeof *c->local);
  c->animated = calloc(n ? n : 1, sizeof *c->animated);
  c->names = calloc(n ? n : 1, sizeof *c->names);
  if (!c->parent || !c->local || !c->animated || !c->names)
    return fmt__nomem(c->err, "nodes");
  for (size_t i = 0; i < n; i++) c->parent[i] = -1;
  for (size_t i = 0; i < n; i++) {
    json_t *nd = json_array_get(c->nodes, i);
    if (!json_is_object(nd))
      return bad(c, "bad_type", atf(c, "nodes[%zu]", i), "not an object");
    json_t *ch;
    size_t nch;
    if (get_array(c, nd, "children", &ch, &nch, atf(c, "nodes[%zu].children", i)))
      return -1;
    for (size_t k = 0; k < nch; k++) {
      json_t *e = json_array_get(ch, k);
      if (!json_is_integer(e) || json_integer_value(e) < 0 ||
          (uint64_t)json_integer_value(e) >= n)
        return bad(c, "index_range", atf(c, "nodes[%zu].children[%zu]", i, k),
                   "is not a valid node index");
      size_t cn = (size_t)json_integer_value(e);
      if (cn == i)
        return bad(c, "cycle", atf(c, "nodes[%zu].children[%zu]", i, k),
                   "a node cannot be its own child");
      if (c->parent[cn] >= 0)
        return fmt_fail(c->err, 400, "conflicting_parents",
                        atf(c, "nodes[%zu].children[%zu]", i, k),
                        "%s: nodes[%zu] already has parent nodes[%d]; a node "
                        "has at most one parent (in every skin)", c->at, cn,
                        c->parent[cn]);
      c->parent[cn] = (int32_t)i;
    }
    anim_transform_t *t = &c->local[i];
    *t = anim_transform_identity();
    json_t *mat = json_object_get(nd, "matrix");
    if (mat != NULL) {
      anim_mat4_t m;
      if (get_floats(c, nd, "matrix", m.m, 16, atf(c, "nodes[%zu].matrix", i)))
        return -1;
      if (m.m[3] != 0 || m.m[7] != 0 || m.m[11] != 0 || m.m[15] != 1 ||
          anim_mat4_decompose(&m, t) != ANIM_OK)
        return bad(c, "bad_matrix", atf(c, "nodes[%zu].matrix", i),
                   "must be an invertible affine TRS matrix");
    } else {
      float v[4];
      v[0] = v[1] = v[2] = 0;
      if (get_floats(c, nd, "translation", v, 3,
                     atf(c, "nodes[%zu].translation", i)))
        return -1;
      t->translation = anim_vec3(v[0], v[1], v[2]);
      v[0] = v[1] = v[2] = 0, v[3] = 1;
      if (get_floats(c, nd, "rotation", v, 4, atf(c, "nodes[%zu].rotation", i)))
        return -1;
      anim_quat_t q = anim_quat(v[0], v[1], v[2], v[3]);
      if (anim_quat_length(q) < 1e-6f)
        return bad(c, "zero_quaternion", atf(c, "nodes[%zu].rotation", i),
                   "is not a rotation");
      t->rotation = anim_quat_normalize(q);
      v[0] = v[1] = v[2] = 1;
      if (get_floats(c, nd, "scale", v, 3, atf(c, "nodes[%zu].scale", i)))
        return -1;
      t->scale = anim_vec3(v[0], v[1], v[2]);
    }
    json_t *nm = json_object_get(nd, "name");
    char buf[32];
    const char *name = json_is_string(nm) && json_string_value(nm)[0]
                           ? json_string_value(nm)
                           : (snprintf(buf, sizeof buf, "node_%zu", i), buf);
    c->names[i] = strdup(name);
    if (c->names[i] == NULL) return fmt__nomem(c->err, "nodes");
  }
  /* Cycles: with single parents, a cycle is a loop of parent links. Mark
   * each walk; meeting the current walk's mark again is a cycle. */
  uint32_t *mark = calloc(n ? n : 1, sizeof *mark);
  if (mark == NULL) return fmt__nomem(c->err, "nodes");
  for (size_t i = 0; i < n; i++) {
    if (mark[i]) continue;
    uint32_t id = (uint32_t)i + 1;
    for (size_t j = i;;) {
      mark[j] = id;
      int32_t p = c->parent[j];
      if (p < 0 || (mark[p] != 0 && mark[p] != id)) break;
      if (mark[p] == id) {
        free(mark);
        return bad(c, "cycle", atf(c, "nodes[%d].children", p),
                   "the node hierarchy has a cycle");
      }
      j = (size_t)p;
    }
  }
  free(mark);
  return 0;
}

/* ---- animation pre-pass ---------------------------------------------------------- */

typedef enum { GP_T = 0, GP_R = 1, GP_S = 2, GP_W = 3, GP_NONE = 4 } gl_path;

/* Validates the structure of every animation and marks animated nodes. */
static int scan_animations(gl_ctx_t *c) {
  for (size_t a = 0; a < c->nanims; a++) {
    json_t *an = json_array_get(c->anims, a), *chs, *sms;
    size_t nch, nsm;
    if (!json_is_object(an))
      return bad(c, "bad_type", atf(c, "animations[%zu]", a), "not an object");
    if (get_array(c, an, "channels", &chs, &nch,
                  atf(c, "animations[%zu].channels", a)) ||
        get_array(c, an, "samplers", &sms, &nsm,
                  atf(c, "animations[%zu].samplers", a)))
      return -1;
    for (size_t s = 0; s < nsm; s++) {
      json_t *sm = json_array_get(sms, s);
      int64_t in, outp;
      if (!json_is_object(sm))
        return bad(c, "bad_type", atf(c, "animations[%zu].samplers[%zu]", a, s),
                   "not an object");
      if (get_index(c, sm, "input", c->naccessors, true, &in,
                    atf(c, "animations[%zu].samplers[%zu].input", a, s)) ||
          get_index(c, sm, "output", c->naccessors, true, &outp,
                    atf(c, "animations[%zu].samplers[%zu].output", a, s)))
        return -1;
      json_t *ip = json_object_get(sm, "interpolation");
      if (ip != NULL &&
          (!json_is_string(ip) ||
           (strcmp(json_string_value(ip), "LINEAR") &&
            strcmp(json_string_value(ip), "STEP") &&
            strcmp(json_string_value(ip), "CUBICSPLINE"))))
        return bad(c, "bad_interpolation",
                   atf(c, "animations[%zu].samplers[%zu].interpolation", a, s),
                   "must be LINEAR, STEP or CUBICSPLINE");
    }
    for (size_t k = 0; k < nch; k++) {
      json_t *ch = json_array_get(chs, k);
      int64_t sm, node;
      if (!json_is_object(ch))
        return bad(c, "bad_type", atf(c, "animations[%zu].channels[%zu]", a, k),
                   "not an object");
      if (get_index(c, ch, "sampler", nsm, true, &sm,
                    atf(c, "animations[%zu].channels[%zu].sampler", a, k)))
        return -1;
      json_t *tg = json_object_get(ch, "target");
      if (!json_is_object(tg))
        return bad(c, "missing",
                   atf(c, "animations[%zu].channels[%zu].target", a, k),
                   "is required");
      if (get_index(c, tg, "node", c->nnodes, false, &node,
                    atf(c, "animations[%zu].channels[%zu].target.node", a, k)))
        return -1;
      json_t *path = json_object_get(tg, "path");
      const char *ps = json_is_string(path) ? json_string_value(path) : "";
      if (strcmp(ps, "translation") && strcmp(ps, "rotation") &&
          strcmp(ps, "scale") && strcmp(ps, "weights"))
        return bad(c, "bad_path",
                   atf(c, "animations[%zu].channels[%zu].target.path", a, k),
                   "must be translation, rotation, scale or weights");
      if (node >= 0 && strcmp(ps, "weights") != 0) c->animated[node] = true;
    }
  }
  return 0;
}

static gl_path channel_path(json_t *ch) {
  const char *ps =
      json_string_value(json_object_get(json_object_get(ch, "target"), "path"));
  if (ps == NULL) return GP_NONE;
  if (!strcmp(ps, "translation")) return GP_T;
  if (!strcmp(ps, "rotation")) return GP_R;
  if (!strcmp(ps, "scale")) return GP_S;
  return GP_W;
}

/* ---- skeletons -------------------------------------------------------------------- */

static int skel_append(gl_skel_t *k, size_t *cap, uint32_t node,
                       int32_t parent) {
  if (k->count == *cap) {
    size_t nc = *cap ? *cap * 2 : 16;
    uint32_t *a = realloc(k->node, nc * sizeof *a);
    if (a) k->node = a;
    int32_t *b = realloc(k->parent, nc * sizeof *b);
    if (b) k->parent = b;
    gl_fold_t *f = realloc(k->fold, nc * sizeof *f);
    if (f) k->fold = f;
    if (!a || !b || !f) return -1;
    *cap = nc;
  }
  k->node[k->count] = node;
  k->parent[k->count] = parent;
  memset(&k->fold[k->count], 0, sizeof k->fold[0]);
  k->count++;
  return 0;
}

static int cmp_name_idx(const void *a, const void *b, void *names) {
  const char *const *n = names;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  int r = strcmp(n[x], n[y]);
  return r ? r : (x > y) - (x < y);
}

/* Joint names: node names, made unique with ".<node index>" suffixes. */
static int unique_names(const gl_ctx_t *c, const gl_skel_t *k,
                        const char **names, char **owned) {
  uint32_t *ord = malloc(k->count * sizeof *ord);
  if (ord == NULL) return -1;
  for (size_t i = 0; i < k->count; i++) {
    names[i] = c->names[k->node[i]];
    ord[i] = (uint32_t)i;
  }
  qsort_r(ord, k->count, sizeof *ord, cmp_name_idx, (void *)names);
  for (size_t i = 1; i < k->count; i++) {
    if (strcmp(names[ord[i]], names[ord[i - 1]]) != 0) continue;
    size_t n = strlen(names[ord[i]]) + 16;
    char *s = malloc(n);
    if (s == NULL) {
      free(ord);
      return -1;
    }
    snprintf(s, n, "%s.%u", c->names[k->node[ord[i]]], k->node[ord[i]]);
    owned[ord[i]] = s;
  }
  for (size_t i = 0; i < k->count; i++)
    if (owned[i]) names[i] = owned[i];
  free(ord);
  return 0;
}

static anim_mat4_t node_matrix(const gl_ctx_t *c, uint32_t n) {
  return anim_mat4_from_transform(&c->local[n]);
}

/* Assembles skin s into c->skels[s]; chain is scratch of nnodes entries,
 * jmap an all -1 array of nnodes entries (left all -1 on return). */
static int assemble_skin(gl_ctx_t *c, size_t s, uint32_t *chain,
                         int32_t *jmap) {
  json_t *skin = json_array_get(c->skins, s), *jarr;
  gl_skel_t *k = &c->skels[s];
  size_t nj, cap = 0;
  int rc = -1;
  if (!json_is_object(skin))
    return bad(c, "bad_type", atf(c, "skins[%zu]", s), "not an object");
  if (get_array(c, skin, "joints", &jarr, &nj, atf(c, "skins[%zu].joints", s)))
    return -1;
  if (nj == 0)
    return bad(c, "missing", atf(c, "skins[%zu].joints", s),
               "must list at least one joint");
  if (nj > fmt__max_joints(c->opts))
    return fmt_fail(c->err, 413, "too_many_joints",
                    atf(c, "skins[%zu].joints", s),
                    "%s: %zu joints, at most %zu", c->at, nj,
                    fmt__max_joints(c->opts));
  for (size_t i = 0; i < nj; i++) {
    json_t *e = json_array_get(jarr, i);
    if (!json_is_integer(e) || json_integer_value(e) < 0 ||
        (uint64_t)json_integer_value(e) >= c->nnodes) {
      bad(c, "index_range", atf(c, "skins[%zu].joints[%zu]", s, i),
          "is not a valid node index");
      goto done;
    }
    uint32_t node = (uint32_t)json_integer_value(e);
    if (jmap[node] >= 0) {
      fmt_fail(c->err, 400, "duplicate_joint",
               atf(c, "skins[%zu].joints[%zu]", s, i),
               "%s: nodes[%u] is listed twice", c->at, node);
      goto done;
    }
    if (skel_append(k, &cap, node, -1)) {
      fmt__nomem(c->err, "skins");
      goto done;
    }
    jmap[node] = (int32_t)i;
  }
  k->skin_joints = nj;
  for (size_t i = 0; i < nj; i++) {
    size_t len = 0;
    int32_t p = c->parent[k->node[i]];
    bool animated = false;
    while (p >= 0 && jmap[p] < 0) {
      chain[len++] = (uint32_t)p;
      animated |= c->animated[p];
      p = c->parent[p];
    }
    int32_t top = p >= 0 ? jmap[p] : -1;
    if (len == 0) {
      k->parent[i] = top;
      continue;
    }
    anim_mat4_t f = anim_mat4_identity();
    for (size_t m = len; m-- > 0;) {
      anim_mat4_t l = node_matrix(c, chain[m]);
      f = anim_mat4_mul(&f, &l);
    }
    anim_transform_t ft;
    bool similar = false;
    if (!animated && anim_mat4_decompose(&f, &ft) == ANIM_OK) {
      float sx = ft.scale.x, sy = ft.scale.y, sz = ft.scale.z;
      float tol = 1e-5f * fabsf(sx);
      similar = sx > 0 && fabsf(sx - sy) <= tol && fabsf(sx - sz) <= tol;
    }
    if (similar) {
      k->parent[i] = top;
      k->fold[i].on = true;
      k->fold[i].p = ft.translation;
      k->fold[i].q = anim_quat_normalize(ft.rotation);
      k->fold[i].k = ft.scale.x;
      continue;
    }
    /* Keep the ancestors as joints of their own. */
    if (k->count + len > fmt__max_joints(c->opts)) {
      fmt_fail(c->err, 413, "too_many_joints", atf(c, "skins[%zu]", s),
               "%s: the skin's joints and their ancestors exceed %zu joints",
               c->at, fmt__max_joints(c->opts));
      goto done;
    }
    for (size_t m = len; m-- > 0;) {
      int32_t idx = (int32_t)k->count;
      if (skel_append(k, &cap, chain[m], top)) {
        fmt__nomem(c->err, "skins");
        goto done;
      }
      jmap[chain[m]] = idx;
      top = idx;
    }
    k->parent[i] = top;
  }
  rc = 0;
done:
  for (size_t i = 0; i < k->count; i++) jmap[k->node[i]] = -1;
  return rc;
}

/* Builds the core skeleton for assembled skeleton k. */
static int build_skeleton(gl_ctx_t *c, size_t s, const char *name,
                          const float *ibm_in, size_t ibm_count) {
  gl_skel_t *k = &c->skels[s];
  anim_raw_joint_t *rj = calloc(k->count, sizeof *rj);
  const char **names = calloc(k->count, sizeof *names);
  char **owned = calloc(k->count, sizeof *owned);
  float *ibm = malloc(k->count * 16 * sizeof *ibm);
  int rc = -1;
  if (!rj || !names || !owned || !ibm || unique_names(c, k, names, owned)) {
    fmt__nomem(c->err, "skins");
    goto done;
  }
  for (size_t i = 0; i < k->count; i++) {
    anim_transform_t t = c->local[k->node[i]];
    const gl_fold_t *f = &k->fold[i];
    if (f->on) {
      t.translation = anim_vec3_add(
          f->p, anim_vec3_scale(anim_quat_rotate(f->q, t.translation), f->k));
      t.rotation = anim_quat_normalize(anim_quat_mul(f->q, t.rotation));
      t.scale = anim_vec3_scale(t.scale, f->k);
    }
    rj[i].name = names[i];
    rj[i].parent = k->parent[i];
    rj[i].rest = t;
    anim_mat4_t id = anim_mat4_identity();
    memcpy(ibm + 16 * i, i < ibm_count ? ibm_in + 16 * i : id.m,
           16 * sizeof(float));
  }
  anim_raw_skeleton_t raw = {.name = name, .joints = rj,
                             .joint_count = k->count, .inverse_bind = ibm};
  anim_skeleton_t *sk = NULL;
  anim_build_error_t be;
  memset(&be, 0, sizeof be);
  anim_result r = anim_skeleton_build(&raw, NULL, &sk, &be);
  if (r != ANIM_OK) {
    if (c->skins != NULL && be.joint >= 0 && (size_t)be.joint < k->skin_joints)
      atf(c, "skins[%zu].joints[%d]", s, be.joint);
    else if (be.joint >= 0 && (size_t)be.joint < k->count)
      atf(c, "nodes[%u]", k->node[be.joint]);
    else
      atf(c, c->skins != NULL ? "skins[%zu]" : "nodes", s);
    fmt__build_fail(c->err, c->at, &be, r);
    goto done;
  }
  if (fmt__push_skeleton(c->out, sk, c->err)) goto done;
  rc = 0;
done:
  if (owned)
    for (size_t i = 0; i < k->count; i++) free(owned[i]);
  free(owned);
  free(names);
  free(rj);
  free(ibm);
  return rc;
}

static int cmp_nj(const void *a, const void *b) {
  const gl_nj_t *x = a, *y = b;
  if (x->node != y->node) return (x->node > y->node) - (x->node < y->node);
  return (x->skel > y->skel) - (x->skel < y->skel);
}

static int load_skeletons(gl_ctx_t *c) {
  if (c->nskins == 0) {
    /* No skin: one skeleton of every node, for node animation. */
    if (c->nnodes == 0) return 0;
    if (c->nnodes > fmt__max_joints(c->opts))
      return fmt_fail(c->err, 413, "too_many_joints", "nodes",
                      "nodes: %zu nodes, at most %zu joints", c->nnodes,
                      fmt__max_joints(c->opts));
    c->skels = calloc(1, sizeof *c->skels);
    if (c->skels == NULL) return fmt__nomem(c->err, "nodes");
    c->nskels = 1;
    gl_skel_t *k = &c->skels[0];
    size_t cap = 0;
    for (size_t i = 0; i < c->nnodes; i++)
      if (skel_append(k, &cap, (uint32_t)i, c->parent[i]))
        return fmt__nomem(c->err, "nodes");
    k->skin_joints = k->count;
    json_t *scenes = json_object_get(c->root, "scenes");
    const char *name = json_string_value(
        json_object_get(json_array_get(scenes, 0), "name"));
    if (build_skeleton(c, 0, name && name[0] ? name : "scene", NULL, 0))
      return -1;
  } else {
    c->skels = calloc(c->nskins, sizeof *c->skels);
    uint32_t *chain = malloc(c->nnodes * sizeof *chain);
    int32_t *jmap = malloc(c->nnodes * sizeof *jmap);
    if (!c->skels || !chain || !jmap) {
      free(chain);
      free(jmap);
      return fmt__nomem(c->err, "skins");
    }
    c->nskels = c->nskins;
    for (size_t i = 0; i < c->nnodes; i++) jmap[i] = -1;
    int rc = 0;
    for (size_t s = 0; s < c->nskins && rc == 0; s++) {
      rc = assemble_skin(c, s, chain, jmap);
      if (rc) break;
      json_t *skin = json_array_get(c->skins, s);
      int64_t acc;
      float *ibm = NULL;
      size_t nibm = 0;
      rc = get_index(c, skin, "inverseBindMatrices", c->naccessors, false,
                     &acc, atf(c, "skins[%zu].inverseBindMatrices", s));
      if (rc == 0 && acc >= 0) {
        rc = acc_floats(c, (size_t)acc,
                        atf(c, "skins[%zu].inverseBindMatrices", s), 16,
                        TM_FLOAT, &ibm, &nibm);
        if (rc == 0 && nibm < c->skels[s].skin_joints)
          rc = fmt_fail(c->err, 400, "count_mismatch",
                        atf(c, "skins[%zu].inverseBindMatrices", s),
                        "%s: %zu matrices for %zu joints", c->at, nibm,
                        c->skels[s].skin_joints);
      }
      if (rc == 0) {
        const char *nm = json_string_value(json_object_get(skin, "name"));
        char dflt[32];
        snprintf(dflt, sizeof dflt, "skin_%zu", s);
        rc = build_skeleton(c, s, nm && nm[0] ? nm : dflt, ibm,
                            ibm ? c->skels[s].skin_joints : 0);
      }
      free(ibm);
    }
    free(chain);
    free(jmap);
    if (rc) return -1;
  }
  size_t total = 0;
  for (size_t s = 0; s < c->nskels; s++) total += c->skels[s].count;
  c->nj = malloc((total ? total : 1) * sizeof *c->nj);
  if (c->nj == NULL) return fmt__nomem(c->err, "skins");
  for (size_t s = 0; s < c->nskels; s++)
    for (size_t j = 0; j < c->skels[s].count; j++)
      c->nj[c->nnj++] = (gl_nj_t){c->skels[s].node[j], (uint32_t)s,
                                  (uint32_t)j};
  qsort(c->nj, c->nnj, sizeof *c->nj, cmp_nj);
  return 0;
}

/* First entry of c->nj for node (or c->nnj). */
static size_t nj_lower(const gl_ctx_t *c, uint32_t node) {
  size_t lo = 0, hi = c->nnj;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->nj[mid].node < node) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* ---- clips ------------------------------------------------------------------------ */

typedef struct gl_hit_s {
  uint32_t skel, joint, ch;
} gl_hit_t;

static int cmp_hit(const void *a, const void *b) {
  const gl_hit_t *x = a, *y = b;
  if (x->skel != y->skel) return (x->skel > y->skel) - (x->skel < y->skel);
  return (x->ch > y->ch) - (x->ch < y->ch);
}

/* Key times of sampler s of animation a (cached in times[s]). */
static int sampler_times(gl_ctx_t *c, size_t a, json_t *sms, size_t s,
                         float **times, size_t *tn) {
  if (times[s] != NULL) return 0;
  json_t *sm = json_array_get(sms, s);
  size_t in = (size_t)json_integer_value(json_object_get(sm, "input"));
  char at[96];
  snprintf(at, sizeof at, "animations[%zu].samplers[%zu].input", a, s);
  if (acc_floats(c, in, at, 1, TM_FLOAT, &times[s], &tn[s])) return -1;
  for (size_t i = 0; i < tn[s]; i++) {
    if (times[s][i] < 0 || (i > 0 && !(times[s][i] > times[s][i - 1])))
      return fmt_fail(c->err, 400, "times_order", at,
                      "%s: key %zu (%g s) is negative or not after the "
                      "previous key", at, i, (double)times[s][i]);
  }
  return 0;
}

static void fold_values(const gl_fold_t *f, gl_path path, bool cubic,
                        float *v, size_t nvals) {
  int comps = path == GP_R ? 4 : 3;
  for (size_t i = 0; i < nvals; i++) {
    float *e = v + i * (size_t)comps;
    bool tangent = cubic && i % 3 != 1;
    if (path == GP_T) {
      anim_vec3_t r = anim_vec3_scale(
          anim_quat_rotate(f->q, anim_vec3(e[0], e[1], e[2])), f->k);
      if (!tangent) r = anim_vec3_add(r, f->p);
      e[0] = r.x, e[1] = r.y, e[2] = r.z;
    } else if (path == GP_R) {
      anim_quat_t q = anim_quat_mul(f->q, anim_quat(e[0], e[1], e[2], e[3]));
      e[0] = q.x, e[1] = q.y, e[2] = q.z, e[3] = q.w;
    } else {
      for (int k = 0; k < 3; k++) e[k] *= f->k;
    }
  }
}

static int build_clip(gl_ctx_t *c, size_t a, json_t *an, const gl_hit_t *h,
                      size_t nh, float **times, size_t *tn, float duration) {
  json_t *chs = json_object_get(an, "channels");
  json_t *sms = json_object_get(an, "samplers");
  anim_raw_track_t *tr = calloc(nh, sizeof *tr);
  float **vals = calloc(nh, sizeof *vals);
  int rc = -1;
  if (!tr || !vals) {
    fmt__nomem(c->err, "animations");
    goto done;
  }
  for (size_t i = 0; i < nh; i++) {
    json_t *ch = json_array_get(chs, h[i].ch);
    size_t s = (size_t)json_integer_value(json_object_get(ch, "sampler"));
    json_t *sm = json_array_get(sms, s);
    gl_path path = channel_path(ch);
    const char *ip = json_string_value(json_object_get(sm, "interpolation"));
    bool cubic = ip && !strcmp(ip, "CUBICSPLINE");
    char at[96];
    if (sampler_times(c, a, sms, s, times, tn)) goto done;
    snprintf(at, sizeof at, "animations[%zu].samplers[%zu].output", a, s);
    size_t out = (size_t)json_integer_value(json_object_get(sm, "output"));
    size_t nv;
    if (acc_floats(c, out, at, path == GP_R ? 4 : 3, TM_ANY, &vals[i], &nv))
      goto done;
    if (nv != (cubic ? 3 : 1) * tn[s]) {
      fmt_fail(c->err, 400, "value_count", at,
               "%s: %zu values for %zu key times (%s)", at, nv, tn[s],
               cubic ? "CUBICSPLINE needs 3 per key" : "1 per key expected");
      goto done;
    }
    c->total_keys += tn[s];
    if (c->total_keys > fmt__max_keys(c->opts)) {
      fmt_fail(c->err, 413, "too_many_keys", at,
               "%s: the upload holds more than %zu keys", at,
               fmt__max_keys(c->opts));
      goto done;
    }
    const gl_fold_t *f = &c->skels[h[i].skel].fold[h[i].joint];
    if (f->on) fold_values(f, path, cubic, vals[i], nv);
    tr[i].joint = h[i].joint;
    tr[i].path = path == GP_T ? ANIM_PATH_TRANSLATION
                 : path == GP_R ? ANIM_PATH_ROTATION : ANIM_PATH_SCALE;
    tr[i].interpolation = cubic ? ANIM_INTERP_CUBICSPLINE
                          : (ip && !strcmp(ip, "STEP")) ? ANIM_INTERP_STEP
                          : ANIM_INTERP_LINEAR;
    tr[i].times = times[s];
    tr[i].key_count = tn[s];
    tr[i].values = vals[i];
    tr[i].value_count = nv * (path == GP_R ? 4 : 3);
  }
  const char *nm = json_string_value(json_object_get(an, "name"));
  char dflt[32];
  snprintf(dflt, sizeof dflt, "animation_%zu", a);
  anim_raw_clip_t raw = {.name = nm && nm[0] ? nm : dflt, .tracks = tr,
                         .track_count = nh, .duration = duration};
  anim_clip_t *clip = NULL;
  anim_build_error_t be;
  memset(&be, 0, sizeof be);
  anim_result r =
      anim_clip_build(&raw, c->out->skeletons[h[0].skel], NULL, &clip, &be);
  if (r != ANIM_OK) {
    if (be.track >= 0 && (size_t)be.track < nh)
      atf(c, "animations[%zu].channels[%u]", a, h[be.track].ch);
    else
      atf(c, "animations[%zu]", a);
    fmt__build_fail(c->err, c->at, &be, r);
    goto done;
  }
  if (fmt__push_clip(c->out, clip, h[0].skel, c->err)) goto done;
  rc = 0;
done:
  if (vals)
    for (size_t i = 0; i < nh; i++) free(vals[i]);
  free(vals);
  free(tr);
  return rc;
}

static int load_clips(gl_ctx_t *c) {
  for (size_t a = 0; a < c->nanims; a++) {
    json_t *an = json_array_get(c->anims, a);
    json_t *chs = json_object_get(an, "channels");
    json_t *sms = json_object_get(an, "samplers");
    size_t nch = json_array_size(chs), nsm = json_array_size(sms), nh = 0,
           cap = 0, dropped = 0;
    gl_hit_t *hits = NULL;
    float **times = calloc(nsm ? nsm : 1, sizeof *times);
    size_t *tn = calloc(nsm ? nsm : 1, sizeof *tn);
    int rc = 0;
    float duration = 0;
    if (!times || !tn) rc = fmt__nomem(c->err, "animations");
    for (size_t k = 0; k < nch && rc == 0; k++) {
      json_t *ch = json_array_get(chs, k);
      json_t *node = json_object_get(json_object_get(ch, "target"), "node");
      if (node == NULL) continue;
      size_t s = (size_t)json_integer_value(json_object_get(ch, "sampler"));
      if ((rc = sampler_times(c, a, sms, s, times, tn))) break;
      if (tn[s] > 0 && times[s][tn[s] - 1] > duration)
        duration = times[s][tn[s] - 1];
      gl_path path = channel_path(ch);
      if (path == GP_W) {
        dropped++;
        continue;
      }
      uint32_t nd = (uint32_t)json_integer_value(node);
      bool any = false;
      for (size_t e = nj_lower(c, nd); e < c->nnj && c->nj[e].node == nd;
           e++) {
        if (nh == cap) {
          size_t ncap = cap ? cap * 2 : 64;
          gl_hit_t *g = realloc(hits, ncap * sizeof *g);
          if (g == NULL) {
            rc = fmt__nomem(c->err, "animations");
            break;
          }
          hits = g;
          cap = ncap;
        }
        hits[nh++] = (gl_hit_t){c->nj[e].skel, c->nj[e].joint, (uint32_t)k};
        any = true;
      }
      if (!any) dropped++;
    }
    if (rc == 0 && nh > 0) {
      qsort(hits, nh, sizeof *hits, cmp_hit);
      for (size_t i = 0; i < nh && rc == 0;) {
        size_t j = i;
        while (j < nh && hits[j].skel == hits[i].skel) j++;
        rc = build_clip(c, a, an, hits + i, j - i, times, tn, duration);
        i = j;
      }
    }
    if (rc == 0 && dropped > 0 &&
        fmt_bundle_warn(c->out,
                        "animations[%zu]: %zu channels move no joint (morph "
                        "weights or nodes outside every skeleton) and were "
                        "left out", a, dropped))
      rc = fmt__nomem(c->err, "animations");
    for (size_t s = 0; times && s < nsm; s++) free(times[s]);
    free(times);
    free(tn);
    free(hits);
    if (rc) return -1;
  }
  return 0;
}

/* ---- meshes ------------------------------------------------------------------------ */

/* Reads attribute key of a primitive (-1 index when absent). */
static int prim_attr(gl_ctx_t *c, json_t *attrs, const char *key,
                     int64_t *acc, const char *pat) {
  return get_index(c, attrs, key, c->naccessors, false, acc,
                   atf(c, "%s.attributes.%s", pat, key));
}

static bool mesh_name_taken(const gl_ctx_t *c, uint32_t skel,
                            const char *name) {
  for (size_t i = 0; i < c->out->mesh_count; i++)
    if (c->out->meshes[i].skeleton == skel &&
        strcmp(c->out->meshes[i].mesh->name, name) == 0)
      return true;
  return false;
}

static int load_primitive(gl_ctx_t *c, size_t node, size_t skin, size_t m,
                          json_t *mesh, size_t p, size_t nprims) {
  char pat[64];
  snprintf(pat, sizeof pat, "meshes[%zu].primitives[%zu]", m, p);
  json_t *prim = json_array_get(json_object_get(mesh, "primitives"), p);
  if (!json_is_object(prim)) return bad(c, "bad_type", pat, "not an object");
  json_t *attrs = json_object_get(prim, "attributes");
  if (!json_is_object(attrs))
    return bad(c, "missing", atf(c, "%s.attributes", pat), "is required");
  int64_t apos, anrm, aj[2], aw[2], aind;
  if (prim_attr(c, attrs, "POSITION", &apos, pat) ||
      prim_attr(c, attrs, "NORMAL", &anrm, pat) ||
      prim_attr(c, attrs, "JOINTS_0", &aj[0], pat) ||
      prim_attr(c, attrs, "WEIGHTS_0", &aw[0], pat) ||
      prim_attr(c, attrs, "JOINTS_1", &aj[1], pat) ||
      prim_attr(c, attrs, "WEIGHTS_1", &aw[1], pat) ||
      get_index(c, prim, "indices", c->naccessors, false, &aind,
                atf(c, "%s.indices", pat)))
    return -1;
  if (apos < 0)
    return bad(c, "missing", atf(c, "%s.attributes.POSITION", pat),
               "is required");
  if (aj[0] < 0 || aw[0] < 0) {
    return fmt_bundle_warn(c->out, "%s: no JOINTS_0/WEIGHTS_0 on a skinned "
                           "node; left out", pat)
               ? fmt__nomem(c->err, pat)
               : 0;
  }
  int sets = (aj[1] >= 0 && aw[1] >= 0) ? 2 : 1;
  float *pos = NULL, *nrm = NULL, *w[2] = {NULL, NULL}, *wt = NULL;
  uint32_t *jn[2] = {NULL, NULL}, *jt = NULL, *idx = NULL;
  size_t nv, n2, nidx = 0;
  int rc = -1;
  size_t skel_joints = c->skels[skin].skin_joints;
  if (acc_floats(c, (size_t)apos, atf(c, "%s.attributes.POSITION", pat), 3,
                 TM_ANY, &pos, &nv))
    goto done;
  c->total_vertices += nv;
  if (c->total_vertices > fmt__max_vertices(c->opts)) {
    fmt_fail(c->err, 413, "too_many_vertices", pat,
             "%s: the upload holds more than %zu vertices", pat,
             fmt__max_vertices(c->opts));
    goto done;
  }
  if (anrm >= 0) {
    if (acc_floats(c, (size_t)anrm, atf(c, "%s.attributes.NORMAL", pat), 3,
                   TM_FLOAT | TM_NORM, &nrm, &n2))
      goto done;
    if (n2 != nv) {
      fmt_fail(c->err, 400, "count_mismatch", c->at,
               "%s: %zu normals for %zu positions", c->at, n2, nv);
      goto done;
    }
  }
  for (int s = 0; s < sets; s++) {
    char jat[96], wat[96];
    snprintf(jat, sizeof jat, "%s.attributes.JOINTS_%d", pat, s);
    snprintf(wat, sizeof wat, "%s.attributes.WEIGHTS_%d", pat, s);
    if (acc_uints(c, (size_t)aj[s], jat, 4,
                  (1u << (CT_U8 - CT_I8)) | (1u << (CT_U16 - CT_I8)), &jn[s],
                  &n2))
      goto done;
    if (n2 != nv) {
      fmt_fail(c->err, 400, "count_mismatch", jat,
               "%s: %zu entries for %zu positions", jat, n2, nv);
      goto done;
    }
    json_t *wacc = json_array_get(c->accessors, (size_t)aw[s]);
    json_t *wct = json_object_get(wacc, "componentType");
    if (json_integer_value(wct) != CT_F32 &&
        !json_is_true(json_object_get(wacc, "normalized"))) {
      fmt_fail(c->err, 400, "bad_component_type", wat,
               "%s: integer weights must be normalized", wat);
      goto done;
    }
    if (acc_floats(c, (size_t)aw[s], wat, 4,
                   TM_FLOAT | (1u << (CT_U8 - CT_I8)) |
                       (1u << (CT_U16 - CT_I8)),
                   &w[s], &n2))
      goto done;
    if (n2 != nv) {
      fmt_fail(c->err, 400, "count_mismatch", wat,
               "%s: %zu entries for %zu positions", wat, n2, nv);
      goto done;
    }
  }
  size_t inf = 4 * (size_t)sets;
  jt = malloc(nv * inf * sizeof *jt);
  wt = malloc(nv * inf * sizeof *wt);
  if (!jt || !wt) {
    fmt__nomem(c->err, pat);
    goto done;
  }
  for (size_t v = 0; v < nv; v++) {
    float sum = 0;
    for (size_t k = 0; k < inf; k++) {
      uint32_t j = jn[k / 4][v * 4 + k % 4];
      float wk = w[k / 4][v * 4 + k % 4];
      if (wk < 0) {
        fmt_fail(c->err, 400, "bad_weight",
                 atf(c, "%s.attributes.WEIGHTS_%zu", pat, k / 4),
                 "%s: vertex %zu has a negative weight", c->at, v);
        goto done;
      }
      if (j >= skel_joints) {
        if (wk == 0) j = 0; /* Unused slot: any valid joint. */
        else {
          fmt_fail(c->err, 400, "joint_range",
                   atf(c, "%s.attributes.JOINTS_%zu", pat, k / 4),
                   "%s: vertex %zu names joint %u of a %zu-joint skin",
                   c->at, v, j, skel_joints);
          goto done;
        }
      }
      jt[v * inf + k] = j;
      wt[v * inf + k] = wk;
      sum += wk;
    }
    if (!(sum > 0)) {
      fmt_fail(c->err, 400, "bad_weight",
               atf(c, "%s.attributes.WEIGHTS_0", pat),
               "%s: the weights of vertex %zu sum to zero", c->at, v);
      goto done;
    }
  }
  json_t *mode = json_object_get(prim, "mode");
  int64_t md = mode ? (json_is_integer(mode) ? json_integer_value(mode) : -1)
                    : 4;
  if (md < 0 || md > 6) {
    bad(c, "bad_value", atf(c, "%s.mode", pat), "must be within 0..6");
    goto done;
  }
  if (aind >= 0 && md == 4) {
    if (acc_uints(c, (size_t)aind, atf(c, "%s.indices", pat), 1, TM_UINT,
                  &idx, &nidx))
      goto done;
    if (nidx % 3 != 0) {
      fmt_fail(c->err, 400, "count_mismatch", atf(c, "%s.indices", pat),
               "%s: %zu indices do not make whole triangles", c->at, nidx);
      goto done;
    }
    for (size_t i = 0; i < nidx; i++)
      if (idx[i] >= nv) {
        fmt_fail(c->err, 400, "index_range", atf(c, "%s.indices", pat),
                 "%s: index %zu is %u, beyond %zu vertices", c->at, i,
                 idx[i], nv);
        goto done;
      }
  } else if (md != 4 &&
             fmt_bundle_warn(c->out, "%s: mode %lld is not a triangle list; "
                             "its indices were left out", pat,
                             (long long)md)) {
    fmt__nomem(c->err, pat);
    goto done;
  }
  /* A name unique within the skeleton. */
  json_t *nd = json_array_get(c->nodes, node);
  const char *base = json_string_value(json_object_get(mesh, "name"));
  if (base == NULL || !base[0])
    base = json_string_value(json_object_get(nd, "name"));
  char name[256], dflt[32];
  snprintf(dflt, sizeof dflt, "mesh_%zu", m);
  if (base == NULL || !base[0]) base = dflt;
  if (nprims > 1) snprintf(name, sizeof name, "%s_%zu", base, p);
  else snprintf(name, sizeof name, "%s", base);
  if (mesh_name_taken(c, (uint32_t)skin, name)) {
    char b2[256];
    snprintf(b2, sizeof b2, "%s", name);
    for (size_t i = 1; mesh_name_taken(c, (uint32_t)skin, name); i++)
      snprintf(name, sizeof name, "%.200s.%zu", b2, i);
  }
  anim_raw_mesh_t raw = {.name = name, .vertex_count = nv, .positions = pos,
                         .normals = nrm, .influences = (uint32_t)inf,
                         .joints = jt, .weights = wt, .indices = idx,
                         .index_count = nidx};
  anim_mesh_t *mh = NULL;
  anim_build_error_t be;
  memset(&be, 0, sizeof be);
  anim_result r = anim_mesh_build(&raw, c->out->skeletons[skin], NULL, &mh, &be);
  if (r != ANIM_OK) {
    fmt__build_fail(c->err, pat, &be, r);
    goto done;
  }
  if (fmt__push_mesh(c->out, mh, (uint32_t)skin, c->err)) goto done;
  rc = 0;
done:
  free(pos);
  free(nrm);
  for (int s = 0; s < 2; s++) {
    free(w[s]);
    free(jn[s]);
  }
  free(jt);
  free(wt);
  free(idx);
  return rc;
}

static int load_meshes(gl_ctx_t *c) {
  for (size_t n = 0; n < c->nnodes; n++) {
    json_t *nd = json_array_get(c->nodes, n);
    int64_t skin, mesh;
    if (get_index(c, nd, "skin", c->nskins, false, &skin,
                  atf(c, "nodes[%zu].skin", n)) ||
        get_index(c, nd, "mesh", c->nmeshes, false, &mesh,
                  atf(c, "nodes[%zu].mesh", n)))
      return -1;
    if (skin < 0 || mesh < 0) continue;
    json_t *m = json_array_get(c->meshes, (size_t)mesh), *prims;
    size_t np;
    if (!json_is_object(m))
      return bad(c, "bad_type", atf(c, "meshes[%lld]", (long long)mesh),
                 "not an object");
    if (get_array(c, m, "primitives", &prims, &np,
                  atf(c, "meshes[%lld].primitives", (long long)mesh)))
      return -1;
    for (size_t p = 0; p < np; p++) {
      if (c->out->mesh_count >= GL_MAX_MESHES)
        return fmt_fail(c->err, 413, "too_many_meshes", "meshes",
                        "more than %d skinned primitives", GL_MAX_MESHES);
      if (load_primitive(c, n, (size_t)skin, (size_t)mesh, m, p, np))
        return -1;
    }
  }
  return 0;
}

/* ---- entry point -------------------------------------------------------------------- */

static int check_document(gl_ctx_t *c) {
  json_t *asset = json_object_get(c->root, "asset");
  const char *ver = json_string_value(json_object_get(asset, "version"));
  if (ver == NULL)
    return bad(c, "missing", "asset.version", "is required");
  if (strncmp(ver, "2.", 2) != 0)
    return bad(c, "unsupported_version", "asset.version", "must be 2.x");
  static const char *const known[] = {
    "KHR_materials_", "KHR_texture_transform", "KHR_texture_basisu",
    "EXT_texture_webp", "KHR_lights_punctual", "KHR_mesh_quantization",
    "KHR_materials_variants"};
  json_t *req;
  size_t nreq;
  if (get_array(c, c->root, "extensionsRequired", &req, &nreq,
                "extensionsRequired"))
    return -1;
  for (size_t i = 0; i < nreq; i++) {
    const char *e = json_string_value(json_array_get(req, i));
    bool ok = false;
    for (size_t k = 0; e && k < sizeof known / sizeof known[0]; k++)
      if (strncmp(e, known[k], strlen(known[k])) == 0) ok = true;
    if (!ok)
      return fmt_fail(c->err, 400, "unsupported_extension",
                      atf(c, "extensionsRequired[%zu]", i),
                      "%s: required extension %s is not supported", c->at,
                      e ? e : "(not a string)");
  }
  if (get_array(c, c->root, "bufferViews", &c->views, &c->nviews,
                "bufferViews") ||
      get_array(c, c->root, "accessors", &c->accessors, &c->naccessors,
                "accessors") ||
      get_array(c, c->root, "nodes", &c->nodes, &c->nnodes, "nodes") ||
      get_array(c, c->root, "skins", &c->skins, &c->nskins, "skins") ||
      get_array(c, c->root, "animations", &c->anims, &c->nanims,
                "animations") ||
      get_array(c, c->root, "meshes", &c->meshes, &c->nmeshes, "meshes"))
    return -1;
  if (c->nnodes > (size_t)INT32_MAX)
    return fmt_fail(c->err, 413, "too_large", "nodes", "too many nodes");
  return 0;
}

int fmt_decode_gltf(const void *body, size_t len, bool binary,
                    const fmt_decode_options_t *opts, fmt_bundle_t *out,
                    fmt_error_t *err) {
  static const fmt_decode_options_t defaults;
  gl_ctx_t c;
  memset(&c, 0, sizeof c);
  memset(out, 0, sizeof *out);
  c.opts = opts ? opts : &defaults;
  c.out = out;
  c.err = err;
  const uint8_t *json = body;
  size_t json_len = len;
  int rc = -1;
  if (body == NULL && len > 0) {
    fmt_fail(err, 400, "empty", "", "no body");
    goto done;
  }
  if (binary) {
    json = NULL;
    if (parse_glb(&c, body, len, &json, &json_len)) goto done;
  }
  json_error_t jerr;
  c.root = json_loadb((const char *)json, json_len, 0, &jerr);
  if (c.root == NULL) {
    char at[32];
    snprintf(at, sizeof at, "line %d", jerr.line);
    fmt_fail(err, 400, "bad_json", at, "%s: %s", at, jerr.text);
    goto done;
  }
  if (!json_is_object(c.root)) {
    bad(&c, "bad_json", "", "the document must be a JSON object");
    goto done;
  }
  if (check_document(&c) || load_buffers(&c, binary) || load_nodes(&c) ||
      scan_animations(&c) || load_skeletons(&c) || load_clips(&c) ||
      load_meshes(&c))
    goto done;
  if (out->skeleton_count == 0) {
    bad(&c, "empty", "nodes", "the file holds no node to import");
    goto done;
  }
  rc = 0;
done:
  if (rc != 0) fmt_bundle_free(out);
  for (size_t i = 0; i < c.nbufs; i++) free(c.bufs[i].owned);
  free(c.bufs);
  for (size_t i = 0; c.names && i < c.nnodes; i++) free(c.names[i]);
  free(c.names);
  free(c.parent);
  free(c.local);
  free(c.animated);
  for (size_t s = 0; s < c.nskels; s++) {
    free(c.skels[s].node);
    free(c.skels[s].parent);
    free(c.skels[s].fold);
  }
  free(c.skels);
  free(c.nj);
  json_decref(c.root);
  return rc;
}
