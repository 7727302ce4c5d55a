/* server/verdict: two pose sources compared over a time grid
 * (compare.h). */
#include "server/verdict/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/request/fields.h"
#include "server/verdict/members.h"
#include "server/verdict/shell.h"

/* The defaults of a compare body. */
#define COMPARE_FPS 30.0
#define COMPARE_SHELL 0.03
#define COMPARE_TOLERANCE 0.0001

/* A source at `at`: a pose body (it has "layers"), or {"skeleton"?,
 * "clip"?, "wrap"?} naming at least one of the two. */
static int source_parse(const json_t *o, const char *at, verdict_source_t *s,
                        srv_error_t *err) {
  if (!json_is_object(o))
    return srv_error_set(err, o ? SRV_ERR_WRONG_TYPE : SRV_ERR_MISSING_FIELD,
                         at,
                         "a source is {\"skeleton\", \"clip\"} or a pose body "
                         "with \"layers\"");
  if (json_object_get(o, "layers") != NULL) {
    s->_layered = true;
    return srv_blend_body_parse_json(o, at, false, &s->_body, err);
  }
  static const char *const known[] = {"skeleton", "clip", "wrap", NULL};
  char cat[160];
  if (verdict_known_members(o, known, SRV_TAKES_POSE_BODY, at, err) != 0 ||
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
  out->fps = COMPARE_FPS;
  out->shell = COMPARE_SHELL;
  out->tolerance = COMPARE_TOLERANCE;
  out->_wrap = ANIM_WRAP_CLAMP;
  if (!json_is_object(obj))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, pre[0] ? pre : NULL,
                         "a comparison is an object");
  static const char *const known[] = {"a",      "b",    "from",  "to",
                                      "fps",    "wrap", "shell", "tolerance",
                                      "joints", NULL};
  bool wrap_given;
  char at[160];
  if (verdict_known_members(obj, known, 0, pre, err) != 0 ||
      source_parse(json_object_get(obj, "a"),
                   verdict_at(pre, "a", at, sizeof at), &out->_src[0],
                   err) != 0 ||
      source_parse(json_object_get(obj, "b"),
                   verdict_at(pre, "b", at, sizeof at), &out->_src[1],
                   err) != 0 ||
      verdict_number_member(obj, "from", pre, -3e38, false, 3e38,
                            "a finite number", &out->from, NULL, err) != 0 ||
      verdict_number_member(obj, "to", pre, -3e38, false, 3e38,
                            "a finite number", &out->to, &out->_to_given,
                            err) != 0 ||
      verdict_number_member(obj, "fps", pre, 0, true, 1e6, "a number above 0",
                            &out->fps, NULL, err) != 0 ||
      verdict_wrap_member(obj, pre, &out->_wrap, &wrap_given, err) != 0 ||
      verdict_number_member(obj, "shell", pre, 0, true, 3e38,
                            "a number above 0", &out->shell, NULL, err) != 0 ||
      verdict_number_member(obj, "tolerance", pre, 0, false, 3e38,
                            "a number >= 0", &out->tolerance, NULL, err) != 0 ||
      joints_member(obj, pre, &out->_joints, err) != 0) {
    memset(out, 0, sizeof *out);
    return -1;
  }
  if (out->_to_given && out->to < out->from) {
    memset(out, 0, sizeof *out);
    return srv_error_set(err, SRV_ERR_BAD_VALUE,
                         verdict_at(pre, "to", at, sizeof at),
                         "\"to\" must not be less than \"from\"");
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
    if (srv_blend_resolve(st, &s->_body, at, &s->_blend, err, miss) != 0 ||
        srv_blend_masks(&s->_blend, &s->_body, at, err) != 0)
      return -1;
    for (size_t i = 0; i < s->_blend.layer_count; i++) {
      if (!s->_body.layers[i].wrap_given) s->_blend.layers[i].wrap = wrap;
      double d = s->_blend.layers[i].clip->duration;
      if (d > s->_duration) s->_duration = d;
    }
    return 0;
  }
  if (!s->_wrap_given) s->_wrap = wrap;
  srv_target_query_t q = {.skeleton = s->_skeleton, .clip = s->_clip};
  srv_target_t t;
  if (srv_target_resolve(st, &q, &t, err, miss) != 0) {
    if (miss != NULL && miss->missed) {
      char m[sizeof miss->at];
      snprintf(m, sizeof m, "%.40s.%.20s", at, miss->at);
      memcpy(miss->at, m, sizeof m);
    }
    return srv_error_under(err, at);
  }
  s->_skel_asset = t.skeleton;
  s->_clip_asset = t.clip;
  free(t.joints);
  if (t.meshes != NULL) store_list_free(t.meshes, t.mesh_count);
  if (s->_clip_asset != NULL) s->_duration = s->_clip_asset->clip->duration;
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
                       c->_wrap, err, miss) != 0)
      return -1;
  if (match_joints(c, err) != 0) return -1;
  if (!c->_to_given) {
    double da = c->_src[0]._duration, db = c->_src[1]._duration;
    c->to = da > db ? da : db;
    if (c->to < c->from)
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
  return verdict_grid_frames(c->from, c->to, c->fps);
}

/* The pipeline's job for side s at time t: model-space matrices of the
 * count joints listed (NULL: all) into out. layers: room for the side's
 * layers (their times set to t). */
static srv_eval_job_t source_job(const verdict_source_t *s, double t,
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
      layers[i] = s->_blend.layers[i];
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
    srv_eval_job_t job = source_job(&c->_src[side], 0, layers, NULL, 0, NULL);
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
  float *model = malloc((32 * (size_t)n + 1) * sizeof(float));
  double *errors = malloc(((size_t)n + 1) * sizeof(double));
  const char **names = malloc(((size_t)n + 1) * sizeof(char *));
  srv_eval_layer_t layers[2][SRV_BLEND_MAX_LAYERS];
  srv_eval_scratch_t scratch[2];
  memset(scratch, 0, sizeof scratch);
  verdict_tally_t tally;
  int rc = -1;
  if (verdict_tally_init(&tally, n, c->tolerance) != 0 || model == NULL ||
      errors == NULL || names == NULL) {
    srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto done;
  }
  const anim_skeleton_t *sa = source_skeleton(&c->_src[0]);
  for (uint32_t k = 0; k < n; k++) names[k] = caller_name(sa, c->_pick[0][k]);
  for (uint32_t i = 0; i < (uint32_t)frames; i++) {
    double t = c->from + (double)i / c->fps;
    for (int side = 0; side < 2 && n > 0; side++) {
      srv_eval_job_t job =
          source_job(&c->_src[side], t, layers[side], c->_pick[side], n,
                     model + (size_t)side * 16 * n);
      anim_result r = srv_eval_run(&job, &scratch[side]);
      if (r != ANIM_OK) {
        eval_failed(c, side, r, err);
        goto done;
      }
    }
    for (uint32_t k = 0; k < n; k++)
      errors[k] = verdict_shell_error(model + 16 * (size_t)k,
                                      model + 16 * ((size_t)n + k), c->shell);
    verdict_tally_frame(&tally, errors, t);
  }
  out->tolerance = c->tolerance;
  out->shell = c->shell;
  out->from = c->from;
  out->to = c->to;
  out->fps = c->fps;
  if (verdict_tally_finish(&tally, names, out) != 0) {
    srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto done;
  }
  for (int side = 0; side < 2; side++) {
    size_t m = c->_unmatched_count[side];
    out->unmatched[side] = calloc(m + 1, sizeof(char *));
    if (out->unmatched[side] == NULL) {
      srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
      goto done;
    }
    for (size_t k = 0; k < m; k++) {
      out->unmatched[side][k] = strdup(c->_unmatched[side][k]);
      if (out->unmatched[side][k] == NULL) {
        srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
        goto done;
      }
      out->unmatched_count[side] = k + 1;
    }
  }
  rc = 0;

done:
  if (rc != 0) verdict_compare_result_free(out);
  verdict_tally_free(&tally);
  srv_eval_scratch_free(&scratch[0]);
  srv_eval_scratch_free(&scratch[1]);
  free(model);
  free(errors);
  free(names);
  return rc;
}

int verdict_compare_pose_at(const verdict_compare_t *c, int side, double t,
                            float *model,
                            const anim_skeleton_t **skeleton_out) {
  if (!c->_resolved || side < 0 || side > 1) return -1;
  const verdict_source_t *s = &c->_src[side];
  srv_eval_layer_t layers[SRV_BLEND_MAX_LAYERS];
  srv_eval_job_t job = source_job(s, t, layers, NULL, 0, model);
  srv_eval_scratch_t *scratch = srv_eval_scratch_thread();
  if (scratch == NULL || srv_eval_run(&job, scratch) != ANIM_OK) return -1;
  if (skeleton_out != NULL) *skeleton_out = job.skeleton;
  return 0;
}

void verdict_compare_free(verdict_compare_t *c) {
  for (int side = 0; side < 2; side++) {
    verdict_source_t *s = &c->_src[side];
    srv_blend_release(&s->_blend);
    srv_blend_body_free(&s->_body);
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

int verdict_tally_init(verdict_tally_t *tl, size_t joints, double tolerance) {
  memset(tl, 0, sizeof *tl);
  tl->_joints = joints;
  tl->_tolerance = tolerance;
  tl->_max = calloc(joints + 1, sizeof(double));
  tl->_t = calloc(joints + 1, sizeof(double));
  tl->_sq = calloc(joints + 1, sizeof(double));
  return tl->_max && tl->_t && tl->_sq ? 0 : -1;
}

void verdict_tally_frame(verdict_tally_t *tl, const double *errors, double t) {
  bool failing = false;
  for (size_t j = 0; j < tl->_joints; j++) {
    double e = errors[j];
    if (tl->_frames == 0 || e > tl->_max[j]) {
      tl->_max[j] = e;
      tl->_t[j] = t;
    }
    tl->_sq[j] += e * e;
    failing |= e > tl->_tolerance;
  }
  tl->_frames++;
  tl->_failing_frames += failing;
}

int verdict_tally_finish(verdict_tally_t *tl, const char *const *names,
                         verdict_compare_result_t *r) {
  r->frames = tl->_frames;
  r->failing_frames = tl->_failing_frames;
  r->joints = calloc(tl->_joints + 1, sizeof *r->joints);
  if (r->joints == NULL) return -1;
  for (size_t j = 0; j < tl->_joints; j++) {
    r->joints[j].joint = strdup(names[j]);
    if (r->joints[j].joint == NULL) return -1;
    r->joint_count = j + 1;
    r->joints[j].max_error = tl->_max[j];
    r->joints[j].t = tl->_t[j];
    r->joints[j].rms_error =
        tl->_frames ? sqrt(tl->_sq[j] / (double)tl->_frames) : 0;
  }
  /* Stable: by max_error descending, then in joint order. */
  for (size_t j = 1; j < tl->_joints; j++) {
    verdict_joint_error_t v = r->joints[j];
    size_t k = j;
    while (k > 0 && r->joints[k - 1].max_error < v.max_error) {
      r->joints[k] = r->joints[k - 1];
      k--;
    }
    r->joints[k] = v;
  }
  r->failing_joints = 0;
  for (size_t j = 0; j < r->joint_count; j++)
    r->failing_joints += r->joints[j].max_error > tl->_tolerance;
  r->max_error = r->joint_count ? r->joints[0].max_error : 0;
  r->max_t = r->joint_count ? r->joints[0].t : 0;
  r->max_joint = r->joint_count ? r->joints[0].joint : NULL;
  r->pass = r->problem[0] == '\0' && r->max_error <= tl->_tolerance;
  return 0;
}

void verdict_tally_free(verdict_tally_t *tl) {
  free(tl->_max);
  free(tl->_t);
  free(tl->_sq);
  memset(tl, 0, sizeof *tl);
}

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
