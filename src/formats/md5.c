/* formats: the Doom 3 MD5 importers (.md5mesh and .md5anim, version 10).
 *
 * md5mesh: joints are given in model space (position, and an orientation
 * whose w Doom 3 recomputes as w = -sqrt(max(0, 1 - x^2 - y^2 - z^2))); they
 * become local rest transforms relative to their parents. Each mesh's
 * weights (joint, bias, position in that joint's space) become bind-pose
 * vertices, p = sum(bias * (joint_pos + joint_rot * weight_pos)), plus up to
 * 4 linear-blend influences: the 4 largest biases, renormalized, with a
 * warning when more were dropped. So skinning at the bind pose returns the
 * file's vertices. Triangles are stored counter-clockwise (Doom 3 winds
 * them clockwise) and vertex normals are the sums of the area-weighted
 * normals of the triangles around them. Each vertex keeps its st texture
 * coordinates as given (Doom 3's t runs down the image, as glTF's v does)
 * and the mesh keeps its shader as its material name.
 *
 * md5anim (with opts->skeleton): the hierarchy must name the skeleton's
 * joints with the same parents in the same order; the base frame plus each
 * frame's animated components (hierarchy flags) give parent-relative
 * transforms on a fixed frame grid: one translation and one rotation track
 * per joint (a single key where the flags animate nothing). The clip is
 * named "md5anim-" plus 8 hex digits of the file's SHA-256.
 *
 * Key design choice: a strict token reader. Every declared count is
 * checked against the limits and against the bytes left before anything is
 * allocated, every element index must be the next one in sequence (the
 * overflowing indices of hostile files fail there), and every error says
 * "line N" and the token. */
#include "formats/import_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many vertices may use one weight, on average, in one mesh. */
#define MD5_WEIGHT_SHARING 4

typedef struct md5_s {
  fmt_text_t t;
  const fmt_decode_options_t *opts;
  fmt_error_t *err;
  fmt_bundle_t *out;
} md5_t;

/* Starts a decode: an empty bundle and the tokenizer on the body. */
static void md5_begin(md5_t *m, const void *body, size_t len,
                      const fmt_decode_options_t *opts, fmt_bundle_t *out,
                      fmt_error_t *err) {
  static const fmt_decode_options_t defaults;
  memset(m, 0, sizeof *m);
  memset(out, 0, sizeof *out);
  m->opts = opts ? opts : &defaults;
  m->err = err;
  m->out = out;
  fmt__text_init(&m->t, body, body ? len : 0);
}

/* ---- token helpers ------------------------------------------------------- */

static int fail(md5_t *m, fmt_error_code code, const char *what) {
  return fmt__text_fail(m->err, &m->t, code, what);
}

static int expect(md5_t *m, const char *word) {
  if (!fmt__text_next(&m->t) || !fmt__tok_is(&m->t, word)) {
    char what[64];
    snprintf(what, sizeof what, "expected \"%s\"", word);
    return fail(m, FMT_ERR_MD5_SYNTAX, what);
  }
  return 0;
}

static int num(md5_t *m, double *v) {
  if (!fmt__text_next(&m->t) || !fmt__tok_float(&m->t, v))
    return fail(m, FMT_ERR_BAD_NUMBER, "expected a finite number");
  return 0;
}

/* An integer within [lo, hi]. */
static int integer(md5_t *m, long long lo, long long hi, long long *v,
                   const char *what) {
  if (!fmt__text_next(&m->t) || !fmt__tok_long(&m->t, v) || *v < lo || *v > hi)
    return fail(m, FMT_ERR_BAD_VALUE, what);
  return 0;
}

/* "( a b c )" into v[0..n). */
static int vec(md5_t *m, double *v, int n) {
  if (expect(m, "(")) return -1;
  for (int i = 0; i < n; i++)
    if (num(m, &v[i])) return -1;
  return expect(m, ")");
}

/* A count declared as "<key> N": bounded by max and by the bytes left
 * (each element needs at least min_bytes). */
static int count(md5_t *m, const char *key, size_t max, size_t min_bytes,
                 size_t *n) {
  long long v;
  if (expect(m, key)) return -1;
  if (!fmt__text_next(&m->t) || !fmt__tok_long(&m->t, &v) || v < 0)
    return fail(m, FMT_ERR_BAD_VALUE, "expected a count >= 0");
  if ((unsigned long long)v > max) {
    char at[32];
    snprintf(at, sizeof at, "line %zu", m->t.tok_line);
    return fmt_fail(m->err, FMT_ERR_TOO_LARGE, at, "%s: %s %lld exceeds %zu",
                    at, key, v, max);
  }
  if ((size_t)v > (size_t)(m->t.end - m->t.p) / min_bytes + 1)
    return fail(m, FMT_ERR_TRUNCATED,
                "the count exceeds the data that follows");
  *n = (size_t)v;
  return 0;
}

/* Doom 3's unit quaternion from x, y, z. */
static anim_quat_t md5_quat(const double *v) {
  double t = 1.0 - v[0] * v[0] - v[1] * v[1] - v[2] * v[2];
  return anim_quat((float)v[0], (float)v[1], (float)v[2],
                   (float)-sqrt(t > 0 ? t : 0));
}

static int header(md5_t *m) {
  long long ver;
  if (expect(m, "MD5Version") ||
      integer(m, 10, 10, &ver, "only MD5Version 10 is supported"))
    return -1;
  /* commandline "..." is optional. */
  const char *save = m->t.p;
  size_t line = m->t.line;
  if (fmt__text_next(&m->t) && fmt__tok_is(&m->t, "commandline")) {
    if (!fmt__text_next(&m->t) || !m->t.quoted)
      return fail(m, FMT_ERR_MD5_SYNTAX, "commandline needs a quoted string");
  } else {
    m->t.p = save;
    m->t.line = line;
  }
  return 0;
}

/* ---- md5mesh ------------------------------------------------------------- */

typedef struct md5_joint_s {
  char *name;
  int32_t parent;
  size_t line;
  anim_vec3_t pos;
  anim_quat_t rot;
} md5_joint_t;

typedef struct md5_weight_s {
  uint32_t joint;
  float bias;
  anim_vec3_t pos;
} md5_weight_t;

typedef struct md5_vert_s {
  size_t start, count;
  size_t line;
  float st[2]; /* Texture coordinates as the file gives them. */
} md5_vert_t;

static int parse_joints(md5_t *m, md5_joint_t *js, size_t nj) {
  if (expect(m, "joints") || expect(m, "{")) return -1;
  for (size_t i = 0; i < nj; i++) {
    long long parent;
    double p[3], q[3];
    if (!fmt__text_next(&m->t) || !m->t.quoted)
      return fail(m, FMT_ERR_MD5_SYNTAX, "expected a quoted joint name");
    if (m->t.tok_len == 0)
      return fail(m, FMT_ERR_MD5_SYNTAX, "empty joint name");
    if (!fmt__utf8_valid(m->t.tok, m->t.tok_len))
      return fail(m, FMT_ERR_BAD_NAME, "joint name is not valid UTF-8");
    js[i].line = m->t.tok_line;
    js[i].name = strndup(m->t.tok, m->t.tok_len);
    if (js[i].name == NULL) return fmt__nomem(m->err, "joints");
    if (integer(m, -1, (long long)nj - 1, &parent,
                "parent must be -1 or a joint index") ||
        vec(m, p, 3) || vec(m, q, 3))
      return -1;
    if (parent == (long long)i)
      return fail(m, FMT_ERR_CYCLE, "joint is its own parent");
    js[i].parent = (int32_t)parent;
    js[i].pos = anim_vec3((float)p[0], (float)p[1], (float)p[2]);
    js[i].rot = md5_quat(q);
  }
  return expect(m, "}");
}

/* Builds one mesh: weights -> bind-pose positions and 4 influences. */
static int build_mesh(md5_t *m, size_t mi, const char *shader,
                      const md5_joint_t *js, size_t nj, const md5_vert_t *vs,
                      size_t nv, const uint32_t *tris, size_t nt,
                      const md5_weight_t *ws, size_t nw) {
  float *pos = malloc((nv ? nv : 1) * 3 * sizeof *pos), *nrm = NULL;
  float *uv = malloc((nv ? nv : 1) * 2 * sizeof *uv);
  float *wt = malloc((nv ? nv : 1) * 4 * sizeof *wt);
  uint32_t *jt = malloc((nv ? nv : 1) * 4 * sizeof *jt);
  size_t dropped = 0;
  int rc = -1;
  if (!pos || !wt || !jt || !uv) {
    fmt__nomem(m->err, "mesh");
    goto done;
  }
  /* Each vertex reads its weights: overlapping ranges (every vertex on all
   * the weights) made this vertices x weights. Files give each vertex its
   * own weights; sharing is allowed up to a linear bound. */
  size_t refs = 0, max_refs = nv + MD5_WEIGHT_SHARING * nw;
  for (size_t v = 0; v < nv && refs <= max_refs; v++) refs += vs[v].count;
  if (refs > max_refs) {
    char at[32];
    snprintf(at, sizeof at, "meshes[%zu]", mi);
    fmt_fail(m->err, FMT_ERR_TOO_LARGE, at,
             "%s: the vertices refer to more than %zu weights in all "
             "(numverts + %d x numweights)",
             at, max_refs, MD5_WEIGHT_SHARING);
    goto done;
  }
  for (size_t v = 0; v < nv; v++) {
    const md5_vert_t *vt = &vs[v];
    char at[32];
    snprintf(at, sizeof at, "line %zu", vt->line);
    if (vt->start > nw || vt->count > nw - vt->start) {
      fmt_fail(m->err, FMT_ERR_WEIGHT_RANGE, at,
               "%s: weights %zu..%zu+%zu lie beyond numweights %zu", at,
               vt->start, vt->start, vt->count, nw);
      goto done;
    }
    anim_vec3_t p = anim_vec3(0, 0, 0);
    /* The 4 largest biases, by insertion into a sorted top-4. */
    size_t top[4];
    size_t nt4 = 0;
    float sum = 0;
    for (size_t k = 0; k < vt->count; k++) {
      const md5_weight_t *w = &ws[vt->start + k];
      const md5_joint_t *j = &js[w->joint];
      p = anim_vec3_add(
          p, anim_vec3_scale(
                 anim_vec3_add(j->pos, anim_quat_rotate(j->rot, w->pos)),
                 w->bias));
      size_t at4 = nt4 < 4 ? nt4++ : 4;
      if (at4 == 4 && !(w->bias > ws[top[3]].bias)) continue;
      if (at4 == 4) at4 = 3;
      while (at4 > 0 && ws[top[at4 - 1]].bias < w->bias) {
        top[at4] = top[at4 - 1];
        at4--;
      }
      top[at4] = vt->start + k;
    }
    if (vt->count > 4) dropped++;
    for (size_t k = 0; k < 4; k++) {
      jt[4 * v + k] = k < nt4 ? ws[top[k]].joint : 0;
      wt[4 * v + k] = k < nt4 ? ws[top[k]].bias : 0;
      sum += wt[4 * v + k];
    }
    if (!(sum > 0)) {
      fmt_fail(m->err, FMT_ERR_BAD_WEIGHT, at,
               "%s: vertex %zu has no positive weight", at, v);
      goto done;
    }
    for (size_t k = 0; k < 4; k++) wt[4 * v + k] /= sum;
    pos[3 * v] = p.x, pos[3 * v + 1] = p.y, pos[3 * v + 2] = p.z;
    uv[2 * v] = vt->st[0], uv[2 * v + 1] = vt->st[1];
  }
  (void)nj;
  if (dropped > 0 &&
      fmt_bundle_warn(m->out,
                      "meshes[%zu]: %zu vertices had more than 4 MD5 weights; "
                      "the 4 largest were kept and renormalized",
                      mi, dropped)) {
    fmt__nomem(m->err, "mesh");
    goto done;
  }
  /* The shader names the mesh; a repeated shader gets ".<n>", n counting
   * the meshes before it with that shader. Long shaders are cut to 100
   * bytes between characters, never inside one. */
  char name[128];
  const char *base = shader[0] ? shader : "mesh";
  int bl = (int)fmt__utf8_cut(base, 100);
  size_t same = 0;
  for (size_t i = 0; i < m->out->mesh_count; i++) {
    const char *o = m->out->meshes[i].mesh->name;
    if (strncmp(o, base, (size_t)bl) == 0 && (o[bl] == '\0' || o[bl] == '.'))
      same++;
  }
  if (same == 0)
    snprintf(name, sizeof name, "%.*s", bl, base);
  else
    snprintf(name, sizeof name, "%.*s.%zu", bl, base, same);
  for (size_t i = 0; i < m->out->mesh_count; i++)
    if (strcmp(m->out->meshes[i].mesh->name, name) == 0) {
      char at[32];
      snprintf(at, sizeof at, "meshes[%zu]", mi);
      fmt_fail(m->err, FMT_ERR_DUPLICATE_NAME, at,
               "%s: mesh name %s is already used", at, name);
      goto done;
    }
  /* Area-weighted face normals summed per vertex; a vertex on no
   * triangle keeps a zero normal. */
  if (fmt__vertex_normals(pos, nv, tris, 3 * nt, &nrm)) {
    fmt__nomem(m->err, "mesh");
    goto done;
  }
  anim_raw_mesh_t raw = {.name = name,
                         .vertex_count = nv,
                         .positions = pos,
                         .normals = nrm,
                         .influences = 4,
                         .joints = jt,
                         .weights = wt,
                         .indices = tris,
                         .index_count = 3 * nt,
                         .texcoords = uv,
                         .material = {.name = shader[0] ? shader : NULL}};
  anim_mesh_t *mesh = NULL;
  anim_build_error_t be;
  memset(&be, 0, sizeof be);
  char mat[32];
  snprintf(mat, sizeof mat, "meshes[%zu]", mi);
  if (fmt__charge(m->out, m->opts, fmt_raw_mesh_bytes(&raw), m->err, mat))
    goto done;
  anim_result r = anim_mesh_build(&raw, m->out->skeletons[0], NULL, &mesh, &be);
  if (r != ANIM_OK) {
    char at[32];
    snprintf(at, sizeof at, "meshes[%zu]", mi);
    fmt__build_fail(m->err, at, &be, r);
    goto done;
  }
  if (fmt__push_mesh(m->out, mesh, 0, m->err)) goto done;
  rc = 0;
done:
  free(pos);
  free(nrm);
  free(uv);
  free(wt);
  free(jt);
  return rc;
}

static int parse_mesh(md5_t *m, size_t mi, const md5_joint_t *js, size_t nj,
                      size_t *total_vertices) {
  md5_vert_t *vs = NULL;
  uint32_t *tris = NULL;
  md5_weight_t *ws = NULL;
  char *shader = NULL;
  size_t nv, nt, nw;
  int rc = -1;
  size_t maxv = fmt__max_vertices(m->opts);
  if (expect(m, "mesh") || expect(m, "{")) goto done;
  /* "shader" is optional. */
  if (!fmt__text_next(&m->t)) {
    fail(m, FMT_ERR_TRUNCATED, "expected numverts");
    goto done;
  }
  if (fmt__tok_is(&m->t, "shader")) {
    if (!fmt__text_next(&m->t) || !m->t.quoted) {
      fail(m, FMT_ERR_MD5_SYNTAX, "shader needs a quoted string");
      goto done;
    }
    if (!fmt__utf8_valid(m->t.tok, m->t.tok_len)) {
      fail(m, FMT_ERR_BAD_NAME, "shader name is not valid UTF-8");
      goto done;
    }
    shader = strndup(m->t.tok, m->t.tok_len);
    if (shader == NULL) {
      fmt__nomem(m->err, "mesh");
      goto done;
    }
  } else {
    m->t.p = m->t.tok - (m->t.quoted ? 1 : 0);
    m->t.line = m->t.tok_line;
  }
  if (count(m, "numverts", maxv, 8, &nv)) goto done;
  *total_vertices += nv;
  if (*total_vertices > maxv) {
    char at[32];
    snprintf(at, sizeof at, "line %zu", m->t.tok_line);
    fmt_fail(m->err, FMT_ERR_TOO_MANY_VERTICES, at,
             "%s: the upload holds more than %zu vertices", at, maxv);
    goto done;
  }
  vs = malloc((nv ? nv : 1) * sizeof *vs);
  if (vs == NULL) {
    fmt__nomem(m->err, "mesh");
    goto done;
  }
  for (size_t i = 0; i < nv; i++) {
    long long idx, start, cnt;
    double uv[2];
    if (expect(m, "vert")) goto done;
    if (!fmt__text_next(&m->t) || !fmt__tok_long(&m->t, &idx) ||
        idx != (long long)i) {
      fail(m, FMT_ERR_INDEX_RANGE, "vertex index out of sequence");
      goto done;
    }
    vs[i].line = m->t.tok_line;
    if (vec(m, uv, 2) || integer(m, 0, INT32_MAX, &start, "bad startWeight") ||
        integer(m, 1, INT32_MAX, &cnt, "countWeight must be >= 1"))
      goto done;
    vs[i].start = (size_t)start;
    vs[i].count = (size_t)cnt;
    vs[i].st[0] = (float)uv[0];
    vs[i].st[1] = (float)uv[1];
  }
  if (count(m, "numtris", 4 * maxv, 8, &nt)) goto done;
  tris = malloc((nt ? nt : 1) * 3 * sizeof *tris);
  if (tris == NULL) {
    fmt__nomem(m->err, "mesh");
    goto done;
  }
  for (size_t i = 0; i < nt; i++) {
    long long idx, v;
    if (expect(m, "tri")) goto done;
    if (!fmt__text_next(&m->t) || !fmt__tok_long(&m->t, &idx) ||
        idx != (long long)i) {
      fail(m, FMT_ERR_INDEX_RANGE, "triangle index out of sequence");
      goto done;
    }
    for (int k = 0; k < 3; k++) {
      if (integer(m, 0, (long long)nv - 1, &v,
                  "triangle vertex index out of range"))
        goto done;
      /* Doom 3 winds front faces clockwise; store them counter-clockwise
       * (glTF's convention): a, b, c becomes a, c, b. */
      tris[3 * i + (size_t)(k == 0 ? 0 : 3 - k)] = (uint32_t)v;
    }
  }
  if (count(m, "numweights", 8 * maxv, 10, &nw)) goto done;
  ws = malloc((nw ? nw : 1) * sizeof *ws);
  if (ws == NULL) {
    fmt__nomem(m->err, "mesh");
    goto done;
  }
  for (size_t i = 0; i < nw; i++) {
    long long idx, joint;
    double bias, p[3];
    if (expect(m, "weight")) goto done;
    if (!fmt__text_next(&m->t) || !fmt__tok_long(&m->t, &idx) ||
        idx != (long long)i) {
      fail(m, FMT_ERR_INDEX_RANGE, "weight index out of sequence");
      goto done;
    }
    if (integer(m, 0, (long long)nj - 1, &joint,
                "weight joint index out of range") ||
        num(m, &bias))
      goto done;
    if (bias < 0) {
      fail(m, FMT_ERR_BAD_WEIGHT, "negative bias");
      goto done;
    }
    if (vec(m, p, 3)) goto done;
    ws[i].joint = (uint32_t)joint;
    ws[i].bias = (float)bias;
    ws[i].pos = anim_vec3((float)p[0], (float)p[1], (float)p[2]);
  }
  if (expect(m, "}")) goto done;
  rc =
      build_mesh(m, mi, shader ? shader : "", js, nj, vs, nv, tris, nt, ws, nw);
done:
  free(shader);
  free(vs);
  free(tris);
  free(ws);
  return rc;
}

int fmt_decode_md5mesh(const void *body, size_t len,
                       const fmt_decode_options_t *opts, fmt_bundle_t *out,
                       fmt_error_t *err) {
  md5_t m;
  md5_begin(&m, body, len, opts, out, err);
  md5_joint_t *js = NULL;
  anim_raw_joint_t *rj = NULL;
  size_t nj = 0, nmeshes, total_vertices = 0;
  int rc = -1;
  if (header(&m) || count(&m, "numJoints", fmt__max_joints(m.opts), 16, &nj) ||
      count(&m, "numMeshes", 4096, 16, &nmeshes))
    goto done;
  if (nj == 0) {
    fail(&m, FMT_ERR_BAD_VALUE, "numJoints must be at least 1");
    goto done;
  }
  js = calloc(nj, sizeof *js);
  rj = calloc(nj, sizeof *rj);
  if (!js || !rj) {
    fmt__nomem(err, "joints");
    goto done;
  }
  if (parse_joints(&m, js, nj)) goto done;
  /* Model-space joints to local rest transforms. */
  for (size_t i = 0; i < nj; i++) {
    rj[i].name = js[i].name;
    rj[i].parent = js[i].parent;
    rj[i].rest = anim_transform_identity();
    if (js[i].parent < 0) {
      rj[i].rest.translation = js[i].pos;
      rj[i].rest.rotation = js[i].rot;
    } else {
      const md5_joint_t *p = &js[js[i].parent];
      anim_quat_t inv = anim_quat(-p->rot.x, -p->rot.y, -p->rot.z, p->rot.w);
      rj[i].rest.translation =
          anim_quat_rotate(inv, anim_vec3_sub(js[i].pos, p->pos));
      rj[i].rest.rotation = anim_quat_normalize(anim_quat_mul(inv, js[i].rot));
    }
  }
  anim_raw_skeleton_t raw = {
      .name = "md5mesh", .joints = rj, .joint_count = nj};
  anim_skeleton_t *skel = NULL;
  anim_build_error_t be;
  memset(&be, 0, sizeof be);
  if (fmt__charge(out, m.opts, fmt_raw_skeleton_bytes(&raw), err, "joints"))
    goto done;
  anim_result r = anim_skeleton_build(&raw, NULL, &skel, &be);
  if (r != ANIM_OK) {
    char at[32];
    snprintf(at, sizeof at, "line %zu",
             be.joint >= 0 && (size_t)be.joint < nj ? js[be.joint].line
                                                    : (size_t)1);
    fmt__build_fail(err, at, &be, r);
    goto done;
  }
  if (fmt__push_skeleton(out, skel, err)) goto done;
  for (size_t i = 0; i < nmeshes; i++)
    if (parse_mesh(&m, i, js, nj, &total_vertices)) goto done;
  if (fmt__text_next(&m.t)) {
    fail(&m, FMT_ERR_MD5_SYNTAX, "unexpected data after the last mesh");
    goto done;
  }
  rc = 0;
done:
  if (rc != 0) fmt_bundle_free(out);
  for (size_t i = 0; js && i < nj; i++) free(js[i].name);
  free(js);
  free(rj);
  return rc;
}

/* ---- md5anim ------------------------------------------------------------- */

typedef struct md5_hier_s {
  int32_t parent;
  uint32_t flags;
  size_t start;
  double base[6];
  size_t toff, roff; /* Its translation and rotation keys in the values. */
} md5_hier_t;

/* Writes the key of frame f of the parts of joint h that have one: every
 * frame for an animated part, frame 0 only for the others. */
static void write_key(const md5_hier_t *h, float *vals, size_t f,
                      const double c[6]) {
  if (f == 0 || (h->flags & 7)) {
    float *t = vals + h->toff + 3 * f;
    t[0] = (float)c[0], t[1] = (float)c[1], t[2] = (float)c[2];
  }
  if (f == 0 || (h->flags & 56)) {
    float *q = vals + h->roff + 4 * f;
    anim_quat_t r = md5_quat(c + 3);
    q[0] = r.x, q[1] = r.y, q[2] = r.z, q[3] = r.w;
  }
}

int fmt_decode_md5anim(const void *body, size_t len,
                       const fmt_decode_options_t *opts, fmt_bundle_t *out,
                       fmt_error_t *err) {
  md5_t m;
  md5_begin(&m, body, len, opts, out, err);
  const anim_skeleton_t *sk = m.opts->skeleton;
  if (sk == NULL)
    return fmt_fail(err, FMT_ERR_SKELETON_REQUIRED, "skeleton",
                    "an md5anim needs ?skeleton=ID of its md5mesh skeleton");
  md5_hier_t *h = NULL;
  float *times = NULL, *vals = NULL, *frame = NULL;
  uint32_t *animated = NULL;
  anim_raw_track_t *tr = NULL;
  size_t nf, nj, ncomp;
  long long rate;
  int rc = -1;
  if (header(&m) || count(&m, "numFrames", fmt__max_keys(m.opts), 8, &nf) ||
      count(&m, "numJoints", fmt__max_joints(m.opts), 8, &nj))
    goto done;
  if (nj != sk->joint_count) {
    fail(&m, FMT_ERR_SKELETON_MISMATCH,
         "numJoints differs from the skeleton's joint count");
    goto done;
  }
  if (expect(&m, "frameRate") ||
      integer(&m, 1, 100000, &rate, "frameRate must be within 1..100000") ||
      count(&m, "numAnimatedComponents", 6 * nj, 2, &ncomp))
    goto done;
  if (nf == 0) {
    fail(&m, FMT_ERR_BAD_FRAMES, "numFrames must be at least 1");
    goto done;
  }
  if (nf > SIZE_MAX / 16 / (nj + 1) || nf * nj > fmt__max_keys(m.opts) ||
      (ncomp > 0 && nf > (size_t)(m.t.end - m.t.p) / (2 * ncomp) + 1)) {
    fail(&m, FMT_ERR_TRUNCATED, "numFrames exceeds the data or the key limit");
    goto done;
  }
  h = calloc(nj, sizeof *h);
  if (h == NULL) {
    fmt__nomem(err, "hierarchy");
    goto done;
  }
  if (expect(&m, "hierarchy") || expect(&m, "{")) goto done;
  for (size_t i = 0; i < nj; i++) {
    long long parent, flags, start;
    if (!fmt__text_next(&m.t) || !m.t.quoted) {
      fail(&m, FMT_ERR_MD5_SYNTAX, "expected a quoted joint name");
      goto done;
    }
    /* The skeleton's joint i (caller order) must have this name. */
    uint32_t st = sk->from_caller[i];
    if (strlen(sk->names[st]) != m.t.tok_len ||
        memcmp(sk->names[st], m.t.tok, m.t.tok_len) != 0) {
      fail(&m, FMT_ERR_SKELETON_MISMATCH,
           "joint name differs from the skeleton's");
      goto done;
    }
    int32_t sp = sk->parents[st];
    int32_t want = sp < 0 ? -1 : (int32_t)sk->to_caller[sp];
    if (integer(&m, -1, (long long)nj - 1, &parent,
                "parent must be -1 or a joint index"))
      goto done;
    if (parent != want) {
      fail(&m, FMT_ERR_SKELETON_MISMATCH, "parent differs from the skeleton's");
      goto done;
    }
    if (integer(&m, 0, 63, &flags, "flags must be within 0..63") ||
        integer(&m, 0, (long long)ncomp, &start, "bad startIndex"))
      goto done;
    size_t used = (size_t)__builtin_popcountll((unsigned long long)flags);
    if ((size_t)start + used > ncomp) {
      fail(&m, FMT_ERR_BAD_VALUE,
           "startIndex + animated components exceed "
           "numAnimatedComponents");
      goto done;
    }
    h[i].parent = (int32_t)parent;
    h[i].flags = (uint32_t)flags;
    h[i].start = (size_t)start;
  }
  if (expect(&m, "}") || expect(&m, "bounds") || expect(&m, "{")) goto done;
  for (size_t f = 0; f < nf; f++) {
    double b[3];
    if (vec(&m, b, 3) || vec(&m, b, 3)) goto done;
  }
  if (expect(&m, "}") || expect(&m, "baseframe") || expect(&m, "{")) goto done;
  for (size_t i = 0; i < nj; i++)
    if (vec(&m, h[i].base, 3) || vec(&m, h[i].base + 3, 3)) goto done;
  if (expect(&m, "}")) goto done;
  /* Values: per joint, its translations then its rotations: one key per
   * frame for a part the flags animate, else one key (the base frame).
   * Every animated part reads at least one number (2 bytes) per frame, so
   * the values stay within a few times the frames read. */
  size_t nvals = 0;
  for (size_t i = 0; i < nj; i++) {
    h[i].toff = nvals;
    nvals += 3 * ((h[i].flags & 7) ? nf : 1);
    h[i].roff = nvals;
    nvals += 4 * ((h[i].flags & 56) ? nf : 1);
  }
  times = malloc(nf * sizeof *times);
  vals = malloc(nvals * sizeof *vals);
  frame = malloc((ncomp ? ncomp : 1) * sizeof *frame);
  tr = calloc(2 * nj, sizeof *tr);
  animated = malloc(nj * sizeof *animated);
  if (!times || !vals || !frame || !tr || !animated) {
    fmt__nomem(err, "frames");
    goto done;
  }
  for (size_t f = 0; f < nf; f++) times[f] = (float)((double)f / (double)rate);
  size_t nanimated = 0;
  for (size_t i = 0; i < nj; i++) {
    if (h[i].flags != 0) animated[nanimated++] = (uint32_t)i;
    write_key(&h[i], vals, 0, h[i].base);
  }
  for (size_t f = 0; f < nf; f++) {
    long long idx;
    if (expect(&m, "frame")) goto done;
    if (!fmt__text_next(&m.t) || !fmt__tok_long(&m.t, &idx) ||
        idx != (long long)f) {
      fail(&m, FMT_ERR_INDEX_RANGE, "frame index out of sequence");
      goto done;
    }
    if (expect(&m, "{")) goto done;
    for (size_t k = 0; k < ncomp; k++) {
      double v;
      if (num(&m, &v)) goto done;
      frame[k] = (float)v;
    }
    if (expect(&m, "}")) goto done;
    for (size_t a = 0; a < nanimated; a++) {
      md5_hier_t *hj = &h[animated[a]];
      double c[6];
      size_t at = hj->start;
      for (int k = 0; k < 6; k++)
        c[k] = (hj->flags & (1u << k)) ? frame[at++] : hj->base[k];
      write_key(hj, vals, f, c);
    }
  }
  if (fmt__text_next(&m.t)) {
    fail(&m, FMT_ERR_MD5_SYNTAX, "unexpected data after the last frame");
    goto done;
  }
  for (size_t i = 0; i < nj; i++) {
    size_t kt = (h[i].flags & 7) ? nf : 1, kr = (h[i].flags & 56) ? nf : 1;
    tr[2 * i] = (anim_raw_track_t){.joint = (uint32_t)i,
                                   .path = ANIM_PATH_TRANSLATION,
                                   .interpolation = ANIM_INTERP_LINEAR,
                                   .times = times,
                                   .key_count = kt,
                                   .values = vals + h[i].toff,
                                   .value_count = 3 * kt};
    tr[2 * i + 1] = (anim_raw_track_t){.joint = (uint32_t)i,
                                       .path = ANIM_PATH_ROTATION,
                                       .interpolation = ANIM_INTERP_LINEAR,
                                       .times = times,
                                       .key_count = kr,
                                       .values = vals + h[i].roff,
                                       .value_count = 4 * kr};
  }
  char clip_name[32];
  fmt__content_name("md5anim", body, len, clip_name, sizeof clip_name);
  anim_raw_clip_t raw = {.name = clip_name,
                         .tracks = tr,
                         .track_count = 2 * nj,
                         .duration = (float)((double)(nf - 1) / (double)rate)};
  anim_clip_t *clip = NULL;
  anim_build_error_t be;
  memset(&be, 0, sizeof be);
  if (fmt__charge(out, m.opts, fmt_raw_clip_bytes(&raw, sk), err, "frames"))
    goto done;
  anim_result r = anim_clip_build(&raw, sk, NULL, &clip, &be);
  if (r != ANIM_OK) {
    fmt__build_fail(err, "frames", &be, r);
    goto done;
  }
  if (fmt__push_clip(out, clip, FMT_EXTERNAL_SKELETON, err)) goto done;
  rc = 0;
done:
  if (rc != 0) fmt_bundle_free(out);
  free(h);
  free(times);
  free(vals);
  free(frame);
  free(animated);
  free(tr);
  return rc;
}
