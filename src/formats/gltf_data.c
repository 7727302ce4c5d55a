/* formats: glTF container and bytes: GLB chunks, base64 data: URIs (decoded
 * with libcrypto), buffer views and accessors.
 *
 * Key design choice: every offset, length, stride and count is checked with
 * overflow-safe arithmetic against the view and buffer it lies in before a
 * byte is read, and values are read with memcpy (no alignment assumed). A
 * URI that is not a data: URI is refused: nothing is read by name. */
#include <openssl/evp.h>
#include <stdlib.h>

#include "formats/gltf_internal.h"

/* ---- buffers ------------------------------------------------------------- */

int fmt__gl_parse_glb(gl_ctx_t *c, const uint8_t *p, size_t len,
                      const uint8_t **json, size_t *json_len) {
  uint32_t h[3];
  if (len < 12)
    return bad(c, FMT_ERR_TRUNCATED, "glb", "shorter than its header");
  memcpy(h, p, 12);
  if (h[0] != GLB_MAGIC)
    return bad(c, FMT_ERR_BAD_MAGIC, "glb.magic", "not glTF");
  if (h[1] != 2)
    return bad(c, FMT_ERR_UNSUPPORTED_GLTF_VERSION, "glb.version", "must be 2");
  if (h[2] != len)
    return fmt_fail(c->err, FMT_ERR_LENGTH_MISMATCH, "glb.length",
                    "glb.length: header says %u bytes, body has %zu", h[2],
                    len);
  size_t off = 12;
  for (size_t i = 0; off < len; i++) {
    uint32_t ch[2];
    if (len - off < 8)
      return fmt_fail(c->err, FMT_ERR_TRUNCATED, atf(c, "glb.chunks[%zu]", i),
                      "%s: chunk header cut short", c->at);
    memcpy(ch, p + off, 8);
    off += 8;
    if (ch[0] > len - off)
      return fmt_fail(c->err, FMT_ERR_CHUNK_LENGTH,
                      atf(c, "glb.chunks[%zu].chunkLength", i),
                      "%s: %u bytes do not fit in the %zu left", c->at, ch[0],
                      len - off);
    if (i == 0) {
      if (ch[1] != GLB_JSON)
        return bad(c, FMT_ERR_BAD_CHUNK, "glb.chunks[0].chunkType",
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
  if (*json == NULL) return bad(c, FMT_ERR_TRUNCATED, "glb", "no JSON chunk");
  return 0;
}

int fmt__gl_data_uri(gl_ctx_t *c, const char *uri, gl_buf_t *b,
                     const char *at_in) {
  char at[200];
  snprintf(at, sizeof at, "%s", at_in);
  const char *comma = strchr(uri, ',');
  if (comma == NULL || comma - uri < 12 ||
      strncmp(comma - 7, ";base64", 7) != 0)
    return bad(c, FMT_ERR_BAD_URI, at, "only base64 data: URIs are supported");
  const char *s = comma + 1;
  size_t n = strlen(s);
  if (n > (size_t)INT32_MAX || n % 4 != 0)
    return bad(c, FMT_ERR_BAD_BASE64, at,
               "base64 length is not a multiple of 4");
  b->owned = malloc(n / 4 * 3 + 1);
  if (b->owned == NULL) return fmt__nomem(c->err, at);
  int got = n ? EVP_DecodeBlock(b->owned, (const unsigned char *)s, (int)n) : 0;
  if (got < 0) return bad(c, FMT_ERR_BAD_BASE64, at, "invalid base64");
  size_t pad = 0;
  if (n >= 1 && s[n - 1] == '=') pad++;
  if (n >= 2 && s[n - 2] == '=') pad++;
  b->data = b->owned;
  b->len = (size_t)got - pad;
  return 0;
}

int fmt__gl_load_buffers(gl_ctx_t *c, bool binary) {
  json_t *arr;
  if (get_array(c, c->root, "buffers", &arr, &c->nbufs, "buffers")) return -1;
  if (c->nbufs == 0) return 0;
  c->bufs = calloc(c->nbufs, sizeof *c->bufs);
  if (c->bufs == NULL) return fmt__nomem(c->err, "buffers");
  for (size_t i = 0; i < c->nbufs; i++) {
    json_t *b = json_array_get(arr, i);
    size_t blen;
    if (!json_is_object(b))
      return bad(c, FMT_ERR_BAD_TYPE, atf(c, "buffers[%zu]", i),
                 "not an object");
    if (get_size(c, b, "byteLength", 0, true, &blen,
                 atf(c, "buffers[%zu].byteLength", i)))
      return -1;
    json_t *uri = json_object_get(b, "uri");
    if (uri == NULL) {
      if (!binary || i != 0 || !c->has_bin)
        return bad(c, FMT_ERR_MISSING, atf(c, "buffers[%zu].uri", i),
                   "a buffer without uri needs the GLB BIN chunk");
      c->bufs[i].data = c->bin;
      c->bufs[i].len = c->bin_len;
    } else {
      if (!json_is_string(uri))
        return bad(c, FMT_ERR_BAD_TYPE, atf(c, "buffers[%zu].uri", i),
                   "must be a string");
      const char *u = json_string_value(uri);
      if (strncmp(u, "data:", 5) != 0)
        return bad(c, FMT_ERR_EXTERNAL_URI, atf(c, "buffers[%zu].uri", i),
                   "external URIs are refused: embed the buffer as a "
                   "data: URI or upload a .glb");
      if (fmt__gl_data_uri(c, u, &c->bufs[i], atf(c, "buffers[%zu].uri", i)))
        return -1;
    }
    if (blen > c->bufs[i].len)
      return fmt_fail(
          c->err, FMT_ERR_BUFFER_LENGTH, atf(c, "buffers[%zu].byteLength", i),
          "%s: %zu bytes declared, %zu present", c->at, blen, c->bufs[i].len);
    c->bufs[i].len = blen;
  }
  return 0;
}

/* ---- accessors ----------------------------------------------------------- */

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
  case CT_I8:
  case CT_U8: return 1;
  case CT_I16:
  case CT_U16: return 2;
  case CT_U32:
  case CT_F32: return 4;
  default: return 0;
  }
}

static int type_comps(const char *t) {
  static const struct {
    const char *n;
    int c;
  } k[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4},
           {"MAT2", 4},   {"MAT3", 9}, {"MAT4", 16}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (strcmp(t, k[i].n) == 0) return k[i].c;
  return 0;
}

/* Resolves a bufferView range [off, off + need) to memory, checked. */
static int view_range(gl_ctx_t *c, size_t view, size_t off, size_t need,
                      size_t *stride, const uint8_t **out, const char *at_in) {
  char at[200];
  snprintf(at, sizeof at, "%s", at_in);
  json_t *v = json_array_get(c->views, view);
  if (!json_is_object(v))
    return bad(c, FMT_ERR_BAD_TYPE, atf(c, "bufferViews[%zu]", view),
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
    return fmt_fail(c->err, FMT_ERR_OUT_OF_BOUNDS, atf(c, "%s.byteLength", vat),
                    "%s: bytes %zu..%zu+%zu lie outside buffers[%lld] "
                    "(%zu bytes)",
                    c->at, voff, voff, vlen, (long long)buf, c->bufs[buf].len);
  if (vstride != 0 && (vstride < 4 || vstride > 252))
    return bad(c, FMT_ERR_BAD_STRIDE, atf(c, "%s.byteStride", vat),
               "must be within 4..252");
  if (off > vlen || need > vlen - off)
    return fmt_fail(c->err, FMT_ERR_OUT_OF_BOUNDS, at,
                    "%s: %zu bytes at offset %zu do not fit in %s (%zu "
                    "bytes)",
                    at, need, off, vat, vlen);
  if (stride != NULL) *stride = vstride;
  *out = c->bufs[buf].data + voff + off;
  return 0;
}

int fmt__gl_view_bytes(gl_ctx_t *c, size_t view, const uint8_t **out,
                       size_t *len, const char *at) {
  json_t *v = json_array_get(c->views, view);
  size_t vlen;
  if (view_range(c, view, 0, 0, NULL, out, at) ||
      get_size(c, v, "byteLength", 0, true, &vlen,
               atf(c, "bufferViews[%zu].byteLength", view)))
    return -1;
  *len = vlen;
  return 0;
}

/* Opens accessor index for reading. use names the referring spot;
 * want_comps (0: any) and type_mask (bit per component type - 5120)
 * restrict what that spot accepts. */
static int acc_open(gl_ctx_t *c, size_t index, const char *use, int want_comps,
                    unsigned type_mask, gl_acc_t *a) {
  char aat[48];
  snprintf(aat, sizeof aat, "accessors[%zu]", index);
  json_t *j = json_array_get(c->accessors, index);
  memset(a, 0, sizeof *a);
  if (!json_is_object(j)) return bad(c, FMT_ERR_BAD_TYPE, aat, "not an object");
  json_t *ct = json_object_get(j, "componentType");
  json_t *ty = json_object_get(j, "type");
  if (!json_is_integer(ct) || ctype_size((int)json_integer_value(ct)) == 0 ||
      json_integer_value(ct) > CT_F32)
    return bad(c, FMT_ERR_BAD_COMPONENT_TYPE, atf(c, "%s.componentType", aat),
               "must be one of 5120, 5121, 5122, 5123, 5125, 5126");
  if (!json_is_string(ty) || type_comps(json_string_value(ty)) == 0)
    return bad(c, FMT_ERR_BAD_TYPE, atf(c, "%s.type", aat), "unknown type");
  a->ctype = (int)json_integer_value(ct);
  a->comps = type_comps(json_string_value(ty));
  if (want_comps != 0 && a->comps != want_comps)
    return fmt_fail(c->err, FMT_ERR_BAD_TYPE, use,
                    "%s: accessors[%zu] has %d components, %d expected", use,
                    index, a->comps, want_comps);
  if (!(type_mask & (1u << (a->ctype - CT_I8))))
    return fmt_fail(c->err, FMT_ERR_BAD_COMPONENT_TYPE, use,
                    "%s: accessors[%zu] has a component type (%d) not "
                    "allowed here",
                    use, index, a->ctype);
  a->normalized = json_is_true(json_object_get(j, "normalized"));
  if (get_size(c, j, "count", 0, true, &a->count, atf(c, "%s.count", aat)))
    return -1;
  if (a->count == 0)
    return bad(c, FMT_ERR_BAD_VALUE, c->at, "must be at least 1");
  a->elem = ctype_size(a->ctype) * (size_t)a->comps;
  int64_t view;
  size_t off;
  if (get_index(c, j, "bufferView", c->nviews, false, &view,
                atf(c, "%s.bufferView", aat)) ||
      get_size(c, j, "byteOffset", 0, false, &off,
               atf(c, "%s.byteOffset", aat)))
    return -1;
  if (view < 0) {
    if (a->count > GL_MAX_ZERO_ELEMENTS / (size_t)a->comps)
      return fmt_fail(c->err, FMT_ERR_TOO_LARGE, atf(c, "%s.count", aat),
                      "%s: too many elements", c->at);
  } else {
    size_t stride, need;
    const uint8_t *dummy;
    /* First the view alone, to learn its stride. */
    if (view_range(c, (size_t)view, 0, 0, &stride, &dummy, aat)) return -1;
    if (stride == 0) stride = a->elem;
    if (stride < a->elem)
      return bad(c, FMT_ERR_BAD_STRIDE,
                 atf(c, "bufferViews[%lld].byteStride", (long long)view),
                 "is smaller than the element size");
    if (__builtin_mul_overflow(a->count - 1, stride, &need) ||
        __builtin_add_overflow(need, a->elem, &need))
      return bad(c, FMT_ERR_OUT_OF_BOUNDS, atf(c, "%s.count", aat),
                 "overflows the buffer view");
    if (view_range(c, (size_t)view, off, 0, NULL, &a->base,
                   atf(c, "%s.byteOffset", aat)) ||
        view_range(c, (size_t)view, off, need, NULL, &a->base,
                   atf(c, "%s.count", aat)))
      return -1;
    a->stride = stride;
  }
  a->sparse = json_object_get(j, "sparse");
  if (a->sparse != NULL && !json_is_object(a->sparse))
    return bad(c, FMT_ERR_BAD_TYPE, atf(c, "%s.sparse", aat), "not an object");
  return 0;
}

static double comp_get(const uint8_t *p, int ctype, bool norm) {
  switch (ctype) {
  case CT_I8: {
    int8_t v;
    memcpy(&v, p, 1);
    return norm ? fmax(v / 127.0, -1.0) : v;
  }
  case CT_U8: return norm ? p[0] / 255.0 : p[0];
  case CT_I16: {
    int16_t v;
    memcpy(&v, p, 2);
    return norm ? fmax(v / 32767.0, -1.0) : v;
  }
  case CT_U16: {
    uint16_t v;
    memcpy(&v, p, 2);
    return norm ? v / 65535.0 : v;
  }
  case CT_U32: {
    uint32_t v;
    memcpy(&v, p, 4);
    return norm ? v / 4294967295.0 : v;
  }
  default: {
    float v;
    memcpy(&v, p, 4);
    return v;
  }
  }
}

/* Stores element i of an accessor read as floats (f) or integers (u). */
static inline void acc_put(float *f, uint32_t *u, size_t i, double v) {
  if (f != NULL)
    f[i] = (float)v;
  else
    u[i] = (uint32_t)v;
}

/* Reads all elements of an opened accessor into f (floats) or u (integer
 * component types only), count * comps entries, applying sparse
 * substitution. */
static int acc_fill(gl_ctx_t *c, size_t index, const gl_acc_t *a, float *f,
                    uint32_t *u) {
  size_t cs = ctype_size(a->ctype), n = a->count * (size_t)a->comps;
  if (a->base == NULL) {
    for (size_t i = 0; i < n; i++) acc_put(f, u, i, 0);
  } else {
    for (size_t e = 0; e < a->count; e++) {
      const uint8_t *p = a->base + e * a->stride;
      for (int k = 0; k < a->comps; k++)
        acc_put(f, u, e * (size_t)a->comps + (size_t)k,
                comp_get(p + (size_t)k * cs, a->ctype, a->normalized));
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
    return bad(c, FMT_ERR_BAD_VALUE, atf(c, "%s.count", sat),
               "must be within 1..accessor count");
  if (!json_is_object(ind) || !json_is_object(val))
    return bad(c, FMT_ERR_MISSING, sat, "needs indices and values");
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
    return bad(c, FMT_ERR_BAD_COMPONENT_TYPE,
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
      return fmt_fail(c->err, FMT_ERR_INDEX_RANGE, atf(c, "%s.indices", sat),
                      "%s: index %zu (%.0f) is out of range or not "
                      "increasing",
                      c->at, s, ix);
    prev = ix;
    for (int k = 0; k < a->comps; k++)
      acc_put(
          f, u, (size_t)ix * (size_t)a->comps + (size_t)k,
          comp_get(vp + s * a->elem + (size_t)k * cs, a->ctype, a->normalized));
  }
  return 0;
}

/* Charges n decoded values of 4 bytes to the file's read bound. */
static int take_read(gl_ctx_t *c, size_t n, const char *at) {
  size_t bytes = n * 4;
  if (bytes > c->read_max || c->read_bytes > c->read_max - bytes)
    return fmt_fail(c->err, FMT_ERR_TOO_LARGE, at,
                    "%s: the file's accessors decode to more than %zu bytes "
                    "(%d times its size plus %zu)",
                    at, c->read_max, GL_READ_AMPLIFICATION, GL_READ_ALLOWANCE);
  c->read_bytes += bytes;
  return 0;
}

/* Reads accessor index (referenced at `use`) as floats. want_comps and
 * type_mask (bit per component type - 5120) restrict what is accepted.
 * Values must be finite. *out is malloc'd. */
int fmt__gl_acc_floats(gl_ctx_t *c, size_t index, const char *use,
                       int want_comps, unsigned type_mask, float **out,
                       size_t *count) {
  gl_acc_t a;
  char u[200];
  snprintf(u, sizeof u, "%s", use);
  if (acc_open(c, index, u, want_comps, type_mask, &a)) return -1;
  size_t n = a.count * (size_t)a.comps;
  if (take_read(c, n, u)) return -1;
  float *f = malloc(n * sizeof *f);
  if (f == NULL) return fmt__nomem(c->err, u);
  if (acc_fill(c, index, &a, f, NULL)) {
    free(f);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(f[i])) {
      fmt_fail(c->err, FMT_ERR_NOT_FINITE, u,
               "%s: accessors[%zu] element %zu component %zu is not a "
               "finite number",
               u, index, i / (size_t)a.comps, i % (size_t)a.comps);
      free(f);
      return -1;
    }
  }
  *out = f;
  *count = a.count;
  return 0;
}

/* Integer accessors (indices, joints): no normalization allowed. */
int fmt__gl_acc_uints(gl_ctx_t *c, size_t index, const char *use,
                      int want_comps, unsigned type_mask, uint32_t **out,
                      size_t *count) {
  gl_acc_t a;
  char u[200];
  snprintf(u, sizeof u, "%s", use);
  if (acc_open(c, index, u, want_comps, type_mask & TM_UINT, &a)) return -1;
  if (a.normalized)
    return fmt_fail(c->err, FMT_ERR_BAD_VALUE, u,
                    "%s: accessors[%zu] must not be normalized", u, index);
  size_t n = a.count * (size_t)a.comps;
  if (take_read(c, n, u)) return -1;
  uint32_t *v = malloc(n * sizeof *v);
  if (v == NULL) return fmt__nomem(c->err, u);
  if (acc_fill(c, index, &a, NULL, v)) {
    free(v);
    return -1;
  }
  *out = v;
  *count = a.count;
  return 0;
}
