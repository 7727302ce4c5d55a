/* server/verdict: a clip compared with its golden (golden.h). */
#include "server/verdict/golden.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "server/request/evaluate.h"
#include "server/verdict/frames.h"
#include "server/verdict/members.h"

/* Most bytes a golden may hold (a file, or base64 decoded). */
#define GOLDEN_MAX_BYTES (512u * 1024 * 1024)
/* A range frame's header: u32 frame, u32 float count, f64 time. */
#define GOLDEN_HEADER 16

/* ---- the golden's bytes -------------------------------------------------- */

/* Decodes base64 text s into g->_bytes. */
static int decode_base64(verdict_golden_t *g, const char *s, size_t n,
                         const char *at, srv_error_t *err) {
  if (n % 4 != 0 || n / 4 * 3 > GOLDEN_MAX_BYTES)
    return srv_error_set(err, SRV_ERR_BAD_BASE64, at,
                         n % 4 ? "base64 length is not a multiple of 4"
                               : "the golden is too large");
  g->_bytes = malloc(n / 4 * 3 + 1);
  if (g->_bytes == NULL)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  int got =
      n ? EVP_DecodeBlock(g->_bytes, (const unsigned char *)s, (int)n) : 0;
  if (got < 0) return srv_error_set(err, SRV_ERR_BAD_BASE64, at, NULL);
  /* EVP_DecodeBlock counts the padding as zero bytes. */
  size_t pad = n >= 2 && s[n - 1] == '=' ? (s[n - 2] == '=' ? 2 : 1) : 0;
  g->_len = (size_t)got - pad;
  return 0;
}

/* Reads dir/name into g->_bytes. */
static int read_file(verdict_golden_t *g, const char *dir, const char *name,
                     const char *at, srv_error_t *err) {
  char path[4096];
  if (name[0] == '/' || dir[0] == '\0')
    snprintf(path, sizeof path, "%s", name);
  else
    snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return srv_error_set(err, SRV_ERR_NOT_FOUND, at,
                         "cannot read the golden '%.200s'", path);
  size_t cap = 1 << 16, len = 0;
  unsigned char *p = malloc(cap);
  while (p != NULL) {
    len += fread(p + len, 1, cap - len, f);
    if (len < cap || cap >= GOLDEN_MAX_BYTES) break;
    unsigned char *q = realloc(p, cap * 2);
    if (q == NULL) {
      free(p);
      p = NULL;
    } else {
      p = q;
      cap *= 2;
    }
  }
  bool failed = ferror(f) != 0;
  fclose(f);
  if (p == NULL) return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  if (failed || len >= GOLDEN_MAX_BYTES) {
    free(p);
    return srv_error_set(err, failed ? SRV_ERR_NOT_FOUND : SRV_ERR_TOO_LARGE,
                         at, "cannot read the golden '%.200s'", path);
  }
  g->_bytes = p;
  g->_len = len;
  return 0;
}

/* "file" (with a suite directory) or "base64": exactly one. */
static int golden_bytes(const json_t *obj, const char *pre,
                        const char *suite_dir, verdict_golden_t *g,
                        srv_error_t *err) {
  const char *file, *b64;
  char at[160];
  if (verdict_name_member(obj, "file", pre, &file, err) != 0 ||
      verdict_name_member(obj, "base64", pre, &b64, err) != 0)
    return -1;
  if (file != NULL && b64 != NULL)
    return srv_error_set(err, SRV_ERR_BAD_VALUE,
                         verdict_at(pre, "file", at, sizeof at),
                         "a golden is \"file\" or \"base64\", not both");
  if (file != NULL) {
    verdict_at(pre, "file", at, sizeof at);
    if (suite_dir == NULL)
      return srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                           "over HTTP a golden is given as \"base64\"");
    return read_file(g, suite_dir, file, at, err);
  }
  if (b64 == NULL)
    return srv_error_set(err, SRV_ERR_MISSING_FIELD,
                         verdict_at(pre, "base64", at, sizeof at),
                         "a golden needs \"base64\" (or \"file\" with animd "
                         "test)");
  return decode_base64(g, b64, strlen(b64),
                       verdict_at(pre, "base64", at, sizeof at), err);
}

int verdict_golden_parse(const json_t *obj, const char *at_prefix,
                         const char *suite_dir, verdict_golden_t *out,
                         srv_error_t *err) {
  memset(out, 0, sizeof *out);
  const char *pre = at_prefix != NULL ? at_prefix : "";
  snprintf(out->_prefix, sizeof out->_prefix, "%s", pre);
  if (!json_is_object(obj))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, pre[0] ? pre : NULL,
                         "a golden case is an object");
  static const char *const known[] = {
      "skeleton", "clip",      "wrap", "from",   "to", "fps",
      "shell",    "tolerance", "file", "base64", NULL};
  char at[160];
  if (srv_json_known_fields(obj, known, 0, pre, err) != 0 ||
      verdict_name_member(obj, "skeleton", pre, &out->_skeleton, err) != 0 ||
      verdict_name_member(obj, "clip", pre, &out->_clip, err) != 0)
    goto fail;
  if (out->_clip == NULL || out->_clip[0] == '\0') {
    srv_error_set(err, SRV_ERR_MISSING_FIELD,
                  verdict_at(pre, "clip", at, sizeof at),
                  "a golden case names its clip");
    goto fail;
  }
  if (verdict_grid_parse(obj, pre, &out->grid, err) != 0) goto fail;
  if (golden_bytes(obj, pre, suite_dir, out, err) != 0) goto fail;
  out->_root = json_incref((json_t *)obj);
  return 0;

fail:
  verdict_golden_free(out);
  return -1;
}

int verdict_golden_resolve(store_t *st, verdict_golden_t *g, srv_error_t *err,
                           srv_lookup_miss_t *miss) {
  if (verdict_pose_resolve(st, g->_skeleton, g->_clip, g->_prefix,
                           &g->_skel_asset, &g->_clip_asset, err, miss) != 0)
    return -1;
  if (!g->grid.to_given) {
    g->grid.to = g->_clip_asset->clip->duration;
    if (g->grid.to < g->grid.from) {
      char at[160];
      return srv_error_set(err, SRV_ERR_BAD_VALUE,
                           verdict_at(g->_prefix, "from", at, sizeof at),
                           "\"from\" is past the clip's duration: give "
                           "\"to\"");
    }
  }
  g->_resolved = true;
  return 0;
}

/* ---- comparing ------------------------------------------------------------
 */

static uint32_t read_u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* The floats of frame i (16 * joints of them) within the golden, or NULL
 * when the golden does not hold it in that shape. */
static const unsigned char *golden_frame(const verdict_golden_t *g, size_t i,
                                         uint32_t joints) {
  size_t size = GOLDEN_HEADER + 64 * (size_t)joints;
  if (g->_len % size != 0 || i >= g->_len / size) return NULL;
  const unsigned char *p = g->_bytes + i * size;
  if (read_u32(p) != i || read_u32(p + 4) != 16 * joints) return NULL;
  return p + GOLDEN_HEADER;
}

/* Little-endian float32s into host floats. */
static void read_floats(const unsigned char *p, size_t n, float *out) {
  for (size_t k = 0; k < n; k++) {
    uint32_t u = read_u32(p + 4 * k);
    memcpy(&out[k], &u, sizeof u);
  }
}

/* Why the golden does not fit (its shape against the grid's frames and
 * the skeleton's joints) into problem; false when it fits. */
static bool golden_misfit(const verdict_golden_t *g, uint32_t frames,
                          uint32_t joints, char *problem, size_t cap) {
  if (g->_len < GOLDEN_HEADER) {
    snprintf(problem, cap, "the golden holds %zu bytes, not one range frame",
             g->_len);
    return true;
  }
  uint32_t n = read_u32(g->_bytes + 4);
  if (n != 16 * joints) {
    snprintf(problem, cap,
             "the golden has %u floats per frame; the clip's skeleton has %u "
             "joints (%u floats: record it with --space model and all "
             "joints)",
             n, joints, 16 * joints);
    return true;
  }
  size_t size = GOLDEN_HEADER + 64 * (size_t)joints;
  if (g->_len % size != 0) {
    snprintf(problem, cap,
             "the golden's %zu bytes are not whole frames of %zu bytes",
             g->_len, size);
    return true;
  }
  if (g->_len / size != frames) {
    snprintf(problem, cap,
             "the golden has %zu frames; from %g to %g at %g fps has %u",
             g->_len / size, g->grid.from, g->grid.to, g->grid.fps, frames);
    return true;
  }
  for (uint32_t i = 0; i < frames; i++)
    if (golden_frame(g, i, joints) == NULL) {
      snprintf(problem, cap,
               "the golden's frame %u is not a range frame %u of %u floats", i,
               i, 16 * joints);
      return true;
    }
  return false;
}

static srv_eval_job_t clip_job(const verdict_golden_t *g, double t,
                               float *out) {
  srv_eval_job_t job = {.skeleton = g->_skel_asset->skeleton,
                        .clip = g->_clip_asset->clip,
                        .t = t,
                        .wrap = g->grid.wrap,
                        .space = FMT_SPACE_MODEL,
                        .out = out};
  return job;
}

/* Frame i of the golden (side a) and the clip at t (side b). */
typedef struct golden_frames_s {
  const verdict_golden_t *g;
  srv_eval_scratch_t scratch;
} golden_frames_t;

static int golden_fill(void *ctx, uint32_t i, double t, float *a, float *b,
                       srv_error_t *err) {
  golden_frames_t *f = ctx;
  uint32_t n = f->g->_skel_asset->skeleton->joint_count;
  read_floats(golden_frame(f->g, i, n), 16 * (size_t)n, a);
  srv_eval_job_t job = clip_job(f->g, t, b);
  anim_result r = srv_eval_run(&job, &f->scratch);
  if (r == ANIM_OK) return 0;
  if (r == ANIM_ERR_OUT_OF_MEMORY)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  char at[160];
  return srv_error_set(err, SRV_ERR_BAD_BLEND,
                       verdict_at(f->g->_prefix, "clip", at, sizeof at),
                       "evaluation failed: %s", anim_result_str(r));
}

unsigned long verdict_golden_cost(const verdict_golden_t *g) {
  if (!g->_resolved) return 0;
  double frames = verdict_grid_frames(g->grid.from, g->grid.to, g->grid.fps);
  if (frames > 1e7) frames = 1e7;
  srv_eval_job_t job = clip_job(g, 0, NULL);
  return (unsigned long)(frames * (double)srv_eval_cost(&job)) + g->_len / 64;
}

int verdict_golden_run(const verdict_golden_t *g, unsigned max_frames,
                       verdict_compare_result_t *out, srv_error_t *err) {
  memset(out, 0, sizeof *out);
  double grid = verdict_grid_frames(g->grid.from, g->grid.to, g->grid.fps);
  if (grid > (double)max_frames) {
    char at[160];
    return srv_error_set(err, SRV_ERR_TOO_MANY_FRAMES,
                         verdict_at(g->_prefix, "fps", at, sizeof at),
                         "the golden's grid has %.0f frames; max_frames is %u",
                         grid, max_frames);
  }
  uint32_t frames = (uint32_t)grid;
  const anim_skeleton_t *sk = g->_skel_asset->skeleton;
  uint32_t n = sk->joint_count;
  if (golden_misfit(g, frames, n, out->problem, sizeof out->problem)) {
    verdict_result_grid(out, &g->grid);
    out->frames = frames;
    out->pass = false;
    return 0;
  }
  const char **names = malloc(((size_t)n + 1) * sizeof(char *));
  golden_frames_t f = {.g = g};
  if (names == NULL)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  for (uint32_t j = 0; j < n; j++) names[j] = sk->names[sk->from_caller[j]];
  int rc = verdict_frames_compare(&g->grid, frames, n, names, golden_fill, &f,
                                  out, err);
  srv_eval_scratch_free(&f.scratch);
  free(names);
  return rc;
}

int verdict_golden_pose_at(const verdict_golden_t *g, int side, double t,
                           float *model, const anim_skeleton_t **skeleton_out) {
  if (!g->_resolved || side < 0 || side > 1) return -1;
  const anim_skeleton_t *sk = g->_skel_asset->skeleton;
  if (skeleton_out != NULL) *skeleton_out = sk;
  if (side == 1) {
    srv_eval_job_t job = clip_job(g, t, model);
    srv_eval_scratch_t *s = srv_eval_scratch_thread();
    return s != NULL && srv_eval_run(&job, s) == ANIM_OK ? 0 : -1;
  }
  double i = floor((t - g->grid.from) * g->grid.fps + 0.5);
  if (i < 0) i = 0;
  const unsigned char *p = NULL;
  size_t size = GOLDEN_HEADER + 64 * (size_t)sk->joint_count;
  size_t count = g->_len / size;
  if (count > 0)
    p = golden_frame(g, i < (double)count ? (size_t)i : count - 1,
                     sk->joint_count);
  if (p == NULL) return -1;
  read_floats(p, 16 * (size_t)sk->joint_count, model);
  return 0;
}

void verdict_golden_free(verdict_golden_t *g) {
  store_asset_release(g->_skel_asset);
  store_asset_release(g->_clip_asset);
  free(g->_bytes);
  json_decref(g->_root);
  memset(g, 0, sizeof *g);
}
