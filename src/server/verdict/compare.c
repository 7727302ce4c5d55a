/* server/verdict: two pose sources compared over a time grid
 * (compare.h). */
#include "server/verdict/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/request/fields.h"
#include "server/verdict/frames.h"
#include "server/verdict/members.h"

/* A source at `at`: a pose body (it has "layers" or "blend_space"), or
 * {"skeleton"?,
 * "clip"?, "wrap"?} naming at least one of the two. */
static int source_parse(const json_t *o, const char *at, verdict_source_t *s,
                        srv_error_t *err) {
  if (!json_is_object(o))
    return srv_error_set(err, o ? SRV_ERR_WRONG_TYPE : SRV_ERR_MISSING_FIELD,
                         at,
                         "a source is {\"skeleton\", \"clip\"} or a pose body "
                         "with \"layers\" or \"blend_space\"");
  if (json_object_get(o, "layers") != NULL ||
      json_object_get(o, "blend_space") != NULL) {
    s->_layered = true;
    return srv_blend_body_parse_json(o, at, false, &s->_body, err);
  }
  static const char *const known[] = {"skeleton", "clip", "wrap", NULL};
  char cat[160];
  if (srv_json_known_fields(o, known, SRV_TAKES_POSE_BODY, at, err) != 0 ||
      verdict_name_member(o, "skeleton", at, &s->_skeleton, err) != 0 ||
      verdict_name_member(o, "clip", at, &s->_clip, err) != 0 ||
      verdict_wrap_member(o, at, &s->_wrap, &s->_wrap_given, err) != 0)
    return -1;
  if (srv_fields_from_json(o, SRV_TAKES_POSE_BODY, &s->_fields, err) != 0)
    return srv_error_under(err, at);
  if ((s->_skeleton == NULL || s->_skeleton[0] == '\0') &&
      (s->_clip == NULL || s->_clip[0] == '\0'))
    return srv_error_set(err, SRV_ERR_MISSING_FIELD,
                         verdict_at(at, "clip", cat, sizeof cat),
                         "a source names a clip (or a skeleton: its rest "
                         "pose)");
  return 0;
}

/* "joints": a non-empty array of strings. */
static int joints_member(const json_t *o, const char *prefix,
                         const json_t **out, srv_error_t *err) {
  json_t *v = json_object_get(o, "joints");
  *out = NULL;
  if (v == NULL) return 0;
  char at[160];
  if (!json_is_array(v) || json_array_size(v) == 0)
    return srv_error_set(err, SRV_ERR_WRONG_TYPE,
                         verdict_at(prefix, "joints", at, sizeof at),
                         "\"joints\" must be a non-empty array of joint names");
  for (size_t i = 0; i < json_array_size(v); i++)
    if (!json_is_string(json_array_get(v, i))) {
      char field[32];
      snprintf(field, sizeof field, "joints[%zu]", i);
      return srv_error_set(err, SRV_ERR_WRONG_TYPE,
                           verdict_at(prefix, field, at, sizeof at),
                           "a joint name is a string");
    }
  *out = v;
  return 0;
}

int verdict_compare_parse(const json_t *obj, const char *at_prefix,
                          verdict_compare_t *out, srv_error_t *err) {
  memset(out, 0, sizeof *out);
  const char *pre = at_prefix != NULL ? at_prefix : "";
  snprintf(out->_prefix, sizeof out->_prefix, "%s", pre);
  if (!json_is_object(obj))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, pre[0] ? pre : NULL,
                         "a comparison is an object");
  static const char *const known[] = {"a",      "b",    "from",  "to",
                                      "fps",    "wrap", "shell", "tolerance",
                                      "joints", NULL};
  char at[160];
  if (srv_json_known_fields(obj, known, 0, pre, err) != 0 ||
      source_parse(json_object_get(obj, "a"),
                   verdict_at(pre, "a", at, sizeof at), &out->_src[0],
                   err) != 0 ||
      source_parse(json_object_get(obj, "b"),
                   verdict_at(pre, "b", at, sizeof at), &out->_src[1],
                   err) != 0 ||
      verdict_grid_parse(obj, pre, &out->grid, err) != 0 ||
      joints_member(obj, pre, &out->_joints, err) != 0) {
    for (int side = 0; side < 2; side++) {
      srv_blend_body_free(&out->_src[side]._body);
      srv_fields_free(&out->_src[side]._fields);
    }
    memset(out, 0, sizeof *out);
    return -1;
  }
  out->_root = json_incref((json_t *)obj);
  return 0;
}

/* ---- resolving ------------------------------------------------------------
 */

static const anim_skeleton_t *source_skeleton(const verdict_source_t *s) {
  return s->_layered ? s->_blend.skeleton->skeleton : s->_skel_asset->skeleton;
}

/* Resolves source s at `at`; wrap is the comparison's, for a source or a
 * layer that gives none. */
static int source_resolve(store_t *st, verdict_source_t *s, const char *at,
                          anim_wrap wrap, srv_error_t *err,
                          srv_lookup_miss_t *miss) {
  s->_duration = 0;
  if (s->_layered) {
    /* The masks are read with the work (source_start): a mask can name
     * thousands of joints. */
    if (srv_blend_resolve(st, &s->_body, at, &s->_blend, err, miss) != 0)
      return -1;
    for (size_t i = 0; i < s->_blend.layer_count; i++) {
      if (!s->_body.layers[i].wrap_given) s->_blend.layers[i].wrap = wrap;
      double d = s->_blend.layers[i].clip->duration;
      if (d > s->_duration) s->_duration = d;
    }
    return 0;
  }
  if (!s->_wrap_given) s->_wrap = wrap;
  if (verdict_pose_resolve(st, s->_skeleton, s->_clip, at, &s->_skel_asset,
                           &s->_clip_asset, err, miss) != 0)
    return -1;
  if (s->_clip_asset != NULL) s->_duration = s->_clip_asset->clip->duration;
  /* The source's structured fields (IK joints, ...) bind to its skeleton
   * here, so a bad name is a typed error at its member. */
  return srv_fields_resolve(&s->_fields, s->_skel_asset->skeleton, at, err);
}

int verdict_pose_resolve(store_t *st, const char *skeleton, const char *clip,
                         const char *at, store_asset_t **skeleton_out,
                         store_asset_t **clip_out, srv_error_t *err,
                         srv_lookup_miss_t *miss) {
  srv_target_query_t q = {.skeleton = skeleton, .clip = clip};
  srv_target_t t;
  if (srv_target_resolve(st, &q, &t, err, miss) != 0) {
    if (miss != NULL && miss->missed && at != NULL && at[0] != '\0') {
      char m[sizeof miss->at];
      snprintf(m, sizeof m, "%.40s.%.20s", at, miss->at);
      memcpy(miss->at, m, sizeof m);
    }
    return srv_error_under(err, at);
  }
  *skeleton_out = t.skeleton;
  *clip_out = t.clip;
  t.skeleton = t.clip = NULL;
  srv_target_release(&t);
  return 0;
}

/* Caller index of name in sk, or -1. */
static int64_t caller_of(const anim_skeleton_t *sk, const char *name) {
  int32_t j = anim_skeleton_find(sk, name);
  return j < 0 ? -1 : (int64_t)sk->to_caller[j];
}

static const char *caller_name(const anim_skeleton_t *sk, uint32_t i) {
  return sk->names[sk->from_caller[i]];
}

/* Appends name to side's unmatched list (room for it was allocated). */
static void unmatched_add(verdict_compare_t *c, int side, const char *name) {
  c->_unmatched[side][c->_unmatched_count[side]++] = name;
}

/* True when a's caller index ia is already picked. */
static bool picked(const verdict_compare_t *c, uint32_t ia) {
  for (uint32_t k = 0; k < c->_pick_count; k++)
    if (c->_pick[0][k] == ia) return true;
  return false;
}

/* The joints compared: by name, in a's order, or those of "joints". */
static int match_joints(verdict_compare_t *c, srv_error_t *err) {
  const anim_skeleton_t *sa = source_skeleton(&c->_src[0]);
  const anim_skeleton_t *sb = source_skeleton(&c->_src[1]);
  size_t listed = c->_joints ? json_array_size(c->_joints) : 0;
  size_t cap = (c->_joints ? listed : sa->joint_count + sb->joint_count) + 1;
  for (int side = 0; side < 2; side++) {
    c->_pick[side] = malloc(cap * sizeof(uint32_t));
    c->_unmatched[side] = malloc(cap * sizeof(char *));
    if (c->_pick[side] == NULL || c->_unmatched[side] == NULL)
      return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  }
  if (c->_joints == NULL) {
    for (uint32_t i = 0; i < sa->joint_count; i++) {
      int64_t jb = caller_of(sb, caller_name(sa, i));
      if (jb < 0) {
        unmatched_add(c, 0, caller_name(sa, i));
        continue;
      }
      c->_pick[0][c->_pick_count] = i;
      c->_pick[1][c->_pick_count++] = (uint32_t)jb;
    }
    for (uint32_t i = 0; i < sb->joint_count; i++)
      if (caller_of(sa, caller_name(sb, i)) < 0)
        unmatched_add(c, 1, caller_name(sb, i));
    return 0;
  }
  for (size_t k = 0; k < listed; k++) {
    const char *name = json_string_value(json_array_get(c->_joints, k));
    int64_t ja = caller_of(sa, name), jb = caller_of(sb, name);
    if (ja < 0 && jb < 0) {
      char field[32], at[160];
      snprintf(field, sizeof field, "joints[%zu]", k);
      return srv_error_set(err, SRV_ERR_UNKNOWN_JOINT,
                           verdict_at(c->_prefix, field, at, sizeof at),
                           "neither skeleton has a joint '%.60s'", name);
    }
    if (ja < 0 || jb < 0) {
      unmatched_add(c, ja < 0 ? 1 : 0, name);
      continue;
    }
    if (picked(c, (uint32_t)ja)) continue;
    c->_pick[0][c->_pick_count] = (uint32_t)ja;
    c->_pick[1][c->_pick_count++] = (uint32_t)jb;
  }
  return 0;
}

int verdict_compare_resolve(store_t *st, verdict_compare_t *c, srv_error_t *err,
                            srv_lookup_miss_t *miss) {
  if (miss != NULL) miss->missed = false;
  char at[160];
  for (int side = 0; side < 2; side++)
    if (source_resolve(st, &c->_src[side],
                       verdict_at(c->_prefix, side ? "b" : "a", at, sizeof at),
                       c->grid.wrap, err, miss) != 0)
      return -1;
  if (match_joints(c, err) != 0) return -1;
  if (!c->grid.to_given) {
    double da = c->_src[0]._duration, db = c->_src[1]._duration;
    c->grid.to = da > db ? da : db;
    if (c->grid.to < c->grid.from)
      return srv_error_set(err, SRV_ERR_BAD_VALUE,
                           verdict_at(c->_prefix, "from", at, sizeof at),
                           "\"from\" is past both durations: give \"to\"");
  }
  c->_resolved = true;
  return 0;
}

/* ---- running --------------------------------------------------------------
 */

double verdict_grid_frames(double from, double to, double fps) {
  return floor((to - from) * fps + 1e-9) + 1;
}

double verdict_compare_frames(const verdict_compare_t *c) {
  return verdict_grid_frames(c->grid.from, c->grid.to, c->grid.fps);
}

/* Side `side` of c about to run: its layers (a copy of the resolved ones,
 * not retaining) with their masks read into run->masks (free it). 0, or
 * -1 with err (unknown_joint at "<side>.layers[i].mask[k]",
 * out_of_memory). */
static int source_start(const verdict_compare_t *c, int side, srv_blend_t *run,
                        srv_error_t *err) {
  const verdict_source_t *s = &c->_src[side];
  *run = s->_blend;
  run->masks = NULL;
  if (!s->_layered) return 0;
  char at[160];
  return srv_blend_masks(
      run, &s->_body, verdict_at(c->_prefix, side ? "b" : "a", at, sizeof at),
      err);
}

/* The pipeline's job for side s at time t: model-space matrices of the
 * count joints listed (NULL: all) into out. base: the side's layers as
 * source_start gives them; layers: room for them with their times set to
 * t. */
static srv_eval_job_t source_job(const verdict_source_t *s,
                                 const srv_eval_layer_t *base, double t,
                                 srv_eval_layer_t *layers,
                                 const uint32_t *joints, uint32_t count,
                                 float *out) {
  srv_eval_job_t job = {.space = FMT_SPACE_MODEL,
                        .joints = joints,
                        .joint_count = count,
                        .out = out};
  if (s->_layered) {
    job.skeleton = s->_blend.skeleton->skeleton;
    for (size_t i = 0; i < s->_blend.layer_count; i++) {
      layers[i] = base[i];
      layers[i].t = t;
    }
    job.layers = layers;
    job.layer_count = s->_blend.layer_count;
    job.fields = &s->_body.fields;
  } else {
    job.skeleton = s->_skel_asset->skeleton;
    job.clip = s->_clip_asset ? s->_clip_asset->clip : NULL;
    job.t = t;
    job.wrap = s->_wrap;
    job.fields = &s->_fields;
  }
  return job;
}

unsigned long verdict_compare_cost(const verdict_compare_t *c) {
  if (!c->_resolved) return 0;
  double frames = verdict_compare_frames(c);
  if (frames > 1e7) frames = 1e7;
  srv_eval_layer_t layers[SRV_BLEND_MAX_LAYERS];
  unsigned long per = 0;
  for (int side = 0; side < 2; side++) {
    const verdict_source_t *s = &c->_src[side];
    srv_eval_job_t job =
        source_job(s, s->_blend.layers, 0, layers, NULL, 0, NULL);
    per += srv_eval_cost(&job);
  }
  return (unsigned long)(frames * (double)per) + c->_pick_count;
}

/* The answer's error of a pipeline that refused side's inputs. */
static int eval_failed(const verdict_compare_t *c, int side, anim_result r,
                       srv_error_t *err) {
  if (r == ANIM_ERR_OUT_OF_MEMORY)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  char at[160];
  return srv_error_set(err, SRV_ERR_BAD_BLEND,
                       verdict_at(c->_prefix, side ? "b" : "a", at, sizeof at),
                       "evaluation failed: %s", anim_result_str(r));
}

/* The matrices of both sides at a grid time, for verdict_frames_compare:
 * each side's own scratch, so each samples its clips forward. */
typedef struct compare_frames_s {
  const verdict_compare_t *c;
  srv_blend_t run[2]; /* source_start's. */
  srv_eval_layer_t layers[2][SRV_BLEND_MAX_LAYERS];
  srv_eval_scratch_t scratch[2];
} compare_frames_t;

static int compare_fill(void *ctx, uint32_t i, double t, float *a, float *b,
                        srv_error_t *err) {
  (void)i;
  compare_frames_t *f = ctx;
  const verdict_compare_t *c = f->c;
  for (int side = 0; side < 2 && c->_pick_count > 0; side++) {
    srv_eval_job_t job =
        source_job(&c->_src[side], f->run[side].layers, t, f->layers[side],
                   c->_pick[side], c->_pick_count, side ? b : a);
    anim_result r = srv_eval_run(&job, &f->scratch[side]);
    if (r != ANIM_OK) return eval_failed(c, side, r, err);
  }
  return 0;
}

/* The names of either side with no match into out. -1 out of memory. */
static int copy_unmatched(const verdict_compare_t *c,
                          verdict_compare_result_t *out) {
  for (int side = 0; side < 2; side++) {
    size_t m = c->_unmatched_count[side];
    out->unmatched[side] = calloc(m + 1, sizeof(char *));
    if (out->unmatched[side] == NULL) return -1;
    for (size_t k = 0; k < m; k++) {
      out->unmatched[side][k] = strdup(c->_unmatched[side][k]);
      if (out->unmatched[side][k] == NULL) return -1;
      out->unmatched_count[side] = k + 1;
    }
  }
  return 0;
}

int verdict_compare_run(const verdict_compare_t *c, unsigned max_frames,
                        verdict_compare_result_t *out, srv_error_t *err) {
  memset(out, 0, sizeof *out);
  double frames = verdict_compare_frames(c);
  if (frames > (double)max_frames) {
    char at[160];
    return srv_error_set(err, SRV_ERR_TOO_MANY_FRAMES,
                         verdict_at(c->_prefix, "fps", at, sizeof at),
                         "the comparison has %.0f frames; max_frames is %u",
                         frames, max_frames);
  }
  uint32_t n = c->_pick_count;
  const char **names = malloc(((size_t)n + 1) * sizeof(char *));
  compare_frames_t *f = calloc(1, sizeof *f);
  int rc = -1;
  if (names == NULL || f == NULL) {
    srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  } else {
    const anim_skeleton_t *sa = source_skeleton(&c->_src[0]);
    for (uint32_t k = 0; k < n; k++) names[k] = caller_name(sa, c->_pick[0][k]);
    f->c = c;
    rc = source_start(c, 0, &f->run[0], err);
    if (rc == 0) rc = source_start(c, 1, &f->run[1], err);
    if (rc == 0)
      rc = verdict_frames_compare(&c->grid, (uint32_t)frames, n, names,
                                  compare_fill, f, out, err);
    if (rc == 0 && copy_unmatched(c, out) != 0) {
      verdict_compare_result_free(out);
      rc = srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    }
    for (int side = 0; side < 2; side++) {
      free(f->run[side].masks);
      srv_eval_scratch_free(&f->scratch[side]);
    }
  }
  free(f);
  free(names);
  return rc;
}

int verdict_compare_pose_at(const verdict_compare_t *c, int side, double t,
                            float *model,
                            const anim_skeleton_t **skeleton_out) {
  if (!c->_resolved || side < 0 || side > 1) return -1;
  srv_blend_t run;
  srv_error_t err;
  srv_eval_layer_t layers[SRV_BLEND_MAX_LAYERS];
  int rc = source_start(c, side, &run, &err);
  if (rc == 0) {
    srv_eval_job_t job =
        source_job(&c->_src[side], run.layers, t, layers, NULL, 0, model);
    srv_eval_scratch_t *scratch = srv_eval_scratch_thread();
    rc = scratch != NULL && srv_eval_run(&job, scratch) == ANIM_OK ? 0 : -1;
    if (rc == 0 && skeleton_out != NULL) *skeleton_out = job.skeleton;
  }
  free(run.masks);
  return rc;
}

void verdict_compare_free(verdict_compare_t *c) {
  for (int side = 0; side < 2; side++) {
    verdict_source_t *s = &c->_src[side];
    srv_blend_release(&s->_blend);
    srv_blend_body_free(&s->_body);
    srv_fields_free(&s->_fields);
    store_asset_release(s->_skel_asset);
    store_asset_release(s->_clip_asset);
    free(c->_pick[side]);
    free((void *)c->_unmatched[side]);
  }
  json_decref(c->_root);
  memset(c, 0, sizeof *c);
}

/* ---- the tally and the result ---------------------------------------------
 */

/* A double in JSON: %.15g for what the caller gave, %.10g for what was
 * measured; never NaN or infinite here. */
static void put_number(fmt_buf_t *b, double v, bool given) {
  fmt_buf_printf(b, given ? "%.15g" : "%.10g", v);
}

static void put_names(fmt_buf_t *b, char *const *names, size_t n) {
  fmt_buf_putc(b, '[');
  for (size_t i = 0; i < n; i++) {
    if (i) fmt_buf_putc(b, ',');
    fmt_buf_json_string(b, names[i]);
  }
  fmt_buf_putc(b, ']');
}

void verdict_compare_result_json(fmt_buf_t *b,
                                 const verdict_compare_result_t *r) {
  fmt_buf_printf(b, "{\"pass\":%s,\"tolerance\":", r->pass ? "true" : "false");
  put_number(b, r->tolerance, true);
  fmt_buf_puts(b, ",\"shell\":");
  put_number(b, r->shell, true);
  fmt_buf_puts(b, ",\"from\":");
  put_number(b, r->from, true);
  fmt_buf_puts(b, ",\"to\":");
  put_number(b, r->to, true);
  fmt_buf_puts(b, ",\"fps\":");
  put_number(b, r->fps, true);
  fmt_buf_printf(b, ",\"frames\":%u,\"max\":{\"error\":", r->frames);
  put_number(b, r->max_error, false);
  fmt_buf_puts(b, ",\"joint\":");
  if (r->max_joint != NULL) {
    fmt_buf_json_string(b, r->max_joint);
    fmt_buf_puts(b, ",\"t\":");
    put_number(b, r->max_t, false);
  } else {
    fmt_buf_puts(b, "null,\"t\":null");
  }
  fmt_buf_puts(b, "},\"joints\":[");
  for (size_t j = 0; j < r->joint_count; j++) {
    const verdict_joint_error_t *e = &r->joints[j];
    fmt_buf_puts(b, j ? ",{\"joint\":" : "{\"joint\":");
    fmt_buf_json_string(b, e->joint);
    fmt_buf_puts(b, ",\"max_error\":");
    put_number(b, e->max_error, false);
    fmt_buf_puts(b, ",\"t\":");
    put_number(b, e->t, false);
    fmt_buf_puts(b, ",\"rms_error\":");
    put_number(b, e->rms_error, false);
    fmt_buf_putc(b, '}');
  }
  fmt_buf_printf(b, "],\"failing\":{\"frames\":%u,\"joints\":%zu}",
                 r->failing_frames, r->failing_joints);
  fmt_buf_puts(b, ",\"unmatched\":{\"a\":");
  put_names(b, r->unmatched[0], r->unmatched_count[0]);
  fmt_buf_puts(b, ",\"b\":");
  put_names(b, r->unmatched[1], r->unmatched_count[1]);
  fmt_buf_putc(b, '}');
  if (r->problem[0] != '\0') {
    fmt_buf_puts(b, ",\"problem\":");
    fmt_buf_json_string(b, r->problem);
  }
  fmt_buf_putc(b, '}');
}

void verdict_compare_result_message(const verdict_compare_result_t *r,
                                    char *buf, size_t cap) {
  if (r->problem[0] != '\0')
    snprintf(buf, cap, "%s", r->problem);
  else if (r->max_joint == NULL)
    snprintf(buf, cap, "no joint compared (no joint names in common)");
  else
    snprintf(buf, cap, "max error %.4g %s %.4g at %s, t=%.4g s", r->max_error,
             r->max_error > r->tolerance ? ">" : "<=", r->tolerance,
             r->max_joint, r->max_t);
}

void verdict_compare_result_free(verdict_compare_result_t *r) {
  for (size_t j = 0; j < r->joint_count; j++) free(r->joints[j].joint);
  free(r->joints);
  for (int side = 0; side < 2; side++) {
    for (size_t k = 0; k < r->unmatched_count[side]; k++)
      free(r->unmatched[side][k]);
    free(r->unmatched[side]);
  }
  memset(r, 0, sizeof *r);
}
