/* server/verdict: test suites parsed, resolved and run (suite.h). */
#include "server/verdict/suite.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/request/evaluate.h"
#include "server/verdict/members.h"
#include "server/verdict/svg.h"

/* The colours of the two poses of a picture (a, or the golden; b, or the
 * clip). */
#define COLOR_A VERDICT_SVG_COLOR
#define COLOR_B "#ff7f0e"
#define PICTURE_WIDTH 480
#define PICTURE_HEIGHT 360

/* ---- parsing ---------------------------------------------------------------
 */

static const char *const suite_members[] = {"name", "cases", NULL};
static const char *const case_members[] = {
    "name", "pose", "expect", "compare", "check", "golden", NULL};

static void case_free(verdict_case_t *c) {
  if (c->_parsed) {
    switch (c->kind) {
    case VERDICT_CASE_POSE:
      srv_blend_release(&c->blend);
      srv_blend_body_free(&c->pose);
      break;
    case VERDICT_CASE_COMPARE: verdict_compare_free(&c->compare); break;
    case VERDICT_CASE_CHECK:
      verdict_check_params_free(&c->check);
      store_asset_release(c->check_asset);
      break;
    case VERDICT_CASE_GOLDEN: verdict_golden_free(&c->golden); break;
    default: break;
    }
  }
  free(c->expect);
  memset(c, 0, sizeof *c);
}

/* A required, non-empty string member: missing_field, wrong_type or
 * bad_value at "<prefix>.<key>". */
static int required_string(const json_t *o, const char *key, const char *prefix,
                           const char **out, srv_error_t *err) {
  char at[128];
  verdict_at(prefix, key, at, sizeof at);
  const json_t *v = json_object_get(o, key);
  if (v == NULL)
    return srv_error_set(err, SRV_ERR_MISSING_FIELD, at, "%s is required", at);
  if (!json_is_string(v))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at, "%s is a string", at);
  *out = json_string_value(v);
  if ((*out)[0] == '\0')
    return srv_error_set(err, SRV_ERR_BAD_VALUE, at, "%s is empty", at);
  return 0;
}

/* A check case: {"clip", "skeleton"?, and check parameters}. */
static int parse_check(verdict_case_t *c, const json_t *o, srv_error_t *err) {
  if (!json_is_object(o))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, c->at, "%s is an object",
                         c->at);
  if (required_string(o, "clip", c->at, &c->check_clip, err) != 0) return -1;
  if (verdict_name_member(o, "skeleton", c->at, &c->check_skeleton, err) != 0)
    return -1;
  verdict_check_params_defaults(&c->check);
  if (verdict_check_params_json(o, c->at, &c->check, err) != 0) {
    verdict_check_params_free(&c->check);
    return -1;
  }
  return 0;
}

/* The one kind of case o holds, parsed into c. */
static int parse_kind(verdict_case_t *c, const json_t *o, const char *at,
                      const char *suite_dir, srv_error_t *err) {
  const json_t *body = json_object_get(o, verdict_case_kind_name(c->kind));
  verdict_at(at, verdict_case_kind_name(c->kind), c->at, sizeof c->at);
  switch (c->kind) {
  case VERDICT_CASE_POSE:
    if (!json_is_object(body))
      return srv_error_set(err, SRV_ERR_WRONG_TYPE, c->at,
                           "%s is a POST /v1/pose body", c->at);
    return srv_blend_body_parse_json(body, c->at, true, &c->pose, err);
  case VERDICT_CASE_COMPARE:
    return verdict_compare_parse(body, c->at, &c->compare, err);
  case VERDICT_CASE_CHECK: return parse_check(c, body, err);
  case VERDICT_CASE_GOLDEN:
    return verdict_golden_parse(body, c->at, suite_dir, &c->golden, err);
  default: return -1;
  }
}

static int parse_case(verdict_case_t *c, const json_t *o, size_t i,
                      const char *suite_dir, srv_error_t *err) {
  char at[40], where[64];
  snprintf(at, sizeof at, "cases[%zu]", i);
  if (!json_is_object(o))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at, "%s is an object", at);
  if (srv_json_known_fields(o, case_members, 0, at, err) != 0 ||
      required_string(o, "name", at, &c->name, err) != 0)
    return -1;
  int kinds = 0;
  for (int k = 0; k < VERDICT_CASE_KIND_COUNT_; k++)
    if (json_object_get(o, verdict_case_kind_name((verdict_case_kind)k)) !=
        NULL) {
      c->kind = (verdict_case_kind)k;
      kinds++;
    }
  if (kinds != 1)
    return srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                         "a case has exactly one of pose (with expect), "
                         "compare, check and golden");
  const json_t *expect = json_object_get(o, "expect");
  snprintf(where, sizeof where, "%s.expect", at);
  if (c->kind == VERDICT_CASE_POSE && expect == NULL)
    return srv_error_set(err, SRV_ERR_MISSING_FIELD, where,
                         "a pose case lists what it expects");
  if (c->kind != VERDICT_CASE_POSE && expect != NULL)
    return srv_error_set(err, SRV_ERR_UNKNOWN_FIELD, where,
                         "expect goes with a pose case");
  if (parse_kind(c, o, at, suite_dir, err) != 0) return -1;
  c->_parsed = true;
  if (c->kind == VERDICT_CASE_POSE)
    return verdict_expect_parse(expect, where, &c->expect, &c->expect_count,
                                err);
  return 0;
}

static int parse_suite(const json_t *root, const char *suite_dir,
                       unsigned max_cases, verdict_suite_t *out,
                       srv_error_t *err) {
  if (!json_is_object(root))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, NULL,
                         "a suite is an object: {\"name\", \"cases\"}");
  if (srv_json_known_fields(root, suite_members, 0, "", err) != 0 ||
      required_string(root, "name", "", &out->name, err) != 0)
    return -1;
  const json_t *cases = json_object_get(root, "cases");
  if (cases == NULL)
    return srv_error_set(err, SRV_ERR_MISSING_FIELD, "cases",
                         "cases is required");
  if (!json_is_array(cases))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, "cases",
                         "cases is an array of cases");
  size_t n = json_array_size(cases);
  if (n == 0)
    return srv_error_set(err, SRV_ERR_BAD_VALUE, "cases",
                         "a suite has at least one case");
  if (n > max_cases)
    return srv_error_set(err, SRV_ERR_TOO_LARGE, "cases",
                         "the suite has %zu cases; max_suite_cases is %u", n,
                         max_cases);
  out->cases = calloc(n, sizeof *out->cases);
  if (out->cases == NULL)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  /* The names seen so far, each with its case's index. */
  json_t *seen = json_object();
  int rc =
      seen != NULL ? 0 : srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  for (size_t i = 0; i < n && rc == 0; i++) {
    out->case_count = i + 1;
    rc =
        parse_case(&out->cases[i], json_array_get(cases, i), i, suite_dir, err);
    if (rc != 0) break;
    const char *name = out->cases[i].name;
    const json_t *k = json_object_get(seen, name);
    if (k != NULL) {
      char at[40];
      snprintf(at, sizeof at, "cases[%zu].name", i);
      rc = srv_error_set(err, SRV_ERR_DUPLICATE_NAME, at,
                         "cases[%lld] is named '%s' too",
                         (long long)json_integer_value(k), name);
    } else if (json_object_set_new(seen, name, json_integer((json_int_t)i)) !=
               0) {
      rc = srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    }
  }
  json_decref(seen);
  return rc;
}

int verdict_suite_parse(const char *text, size_t len, const char *suite_dir,
                        unsigned max_cases, verdict_suite_t *out,
                        srv_error_t *err) {
  memset(out, 0, sizeof *out);
  if (len == 0) return srv_error_set(err, SRV_ERR_EMPTY_BODY, NULL, NULL);
  if (srv_json_body_parse(text, len, &out->_root, err) != 0) return -1;
  if (parse_suite(out->_root, suite_dir, max_cases, out, err) != 0) {
    verdict_suite_free(out);
    return -1;
  }
  return 0;
}

void verdict_suite_free(verdict_suite_t *s) {
  for (size_t i = 0; i < s->case_count; i++) case_free(&s->cases[i]);
  free(s->cases);
  json_decref(s->_root);
  memset(s, 0, sizeof *s);
}

/* ---- resolving -------------------------------------------------------------
 */

static int resolve_check(store_t *st, verdict_case_t *c, srv_error_t *err,
                         srv_lookup_miss_t *miss) {
  char at_skel[64], at_clip[64];
  verdict_at(c->at, "skeleton", at_skel, sizeof at_skel);
  verdict_at(c->at, "clip", at_clip, sizeof at_clip);
  store_asset_t *skel = NULL;
  if (srv_lookup(st, STORE_SKELETON, at_skel, c->check_skeleton, NULL, &skel,
                 err, miss) != 0 ||
      srv_lookup(st, STORE_CLIP, at_clip, c->check_clip, skel, &c->check_asset,
                 err, miss) != 0) {
    store_asset_release(skel);
    return -1;
  }
  bool other = skel != NULL && c->check_asset->skeleton_asset != skel;
  store_asset_release(skel);
  if (other)
    return srv_error_set(err, SRV_ERR_NOT_FOUND, at_clip,
                         "no clip '%s' on that skeleton", c->check_clip);
  return 0;
}

static int resolve_case(store_t *st, verdict_case_t *c, size_t i,
                        srv_error_t *err, srv_lookup_miss_t *miss) {
  switch (c->kind) {
  case VERDICT_CASE_POSE: {
    char at[40];
    snprintf(at, sizeof at, "cases[%zu].expect", i);
    if (srv_blend_resolve(st, &c->pose, c->at, &c->blend, err, miss) != 0)
      return -1;
    return verdict_expect_resolve(c->expect, c->expect_count,
                                  c->blend.skeleton->skeleton, at, err);
  }
  case VERDICT_CASE_COMPARE:
    return verdict_compare_resolve(st, &c->compare, err, miss);
  case VERDICT_CASE_CHECK: return resolve_check(st, c, err, miss);
  case VERDICT_CASE_GOLDEN:
    return verdict_golden_resolve(st, &c->golden, err, miss);
  default: return -1;
  }
}

int verdict_suite_resolve(store_t *st, verdict_suite_t *s, srv_error_t *err,
                          srv_lookup_miss_t *miss) {
  for (size_t i = 0; i < s->case_count; i++)
    if (resolve_case(st, &s->cases[i], i, err, miss) != 0) return -1;
  return 0;
}

/* ---- cost and frames -------------------------------------------------------
 */

/* A count held below a bound that sums cannot overflow. */
static unsigned long capped(double x) {
  const double cap = (double)(ULONG_MAX / 4);
  return x > cap ? (unsigned long)cap : x > 0 ? (unsigned long)x : 0;
}

/* The samples a check case takes. */
static double check_frames(const verdict_case_t *c) {
  return verdict_check_sample_count(c->check_asset->clip->duration,
                                    c->check.fps);
}

/* The frames a case evaluates. */
static double case_frames(const verdict_case_t *c) {
  switch (c->kind) {
  case VERDICT_CASE_POSE: return 1;
  case VERDICT_CASE_COMPARE: return verdict_compare_frames(&c->compare);
  case VERDICT_CASE_CHECK: return check_frames(c);
  case VERDICT_CASE_GOLDEN:
    return verdict_grid_frames(c->golden.grid.from, c->golden.grid.to,
                               c->golden.grid.fps);
  default: return 0;
  }
}

static unsigned long case_cost(const verdict_case_t *c) {
  switch (c->kind) {
  case VERDICT_CASE_POSE:
    return (unsigned long)c->blend.skeleton->skeleton->joint_count *
           (c->blend.layer_count + 1);
  case VERDICT_CASE_COMPARE: return verdict_compare_cost(&c->compare);
  case VERDICT_CASE_CHECK:
    /* Local and model space per sample, then the checks' pass. */
    return capped(check_frames(c) * 3.0 *
                  c->check_asset->skeleton_asset->skeleton->joint_count);
  case VERDICT_CASE_GOLDEN: return verdict_golden_cost(&c->golden);
  default: return 0;
  }
}

unsigned long verdict_suite_cost(const verdict_suite_t *s) {
  unsigned long sum = 0;
  for (size_t i = 0; i < s->case_count; i++) {
    unsigned long c = case_cost(&s->cases[i]);
    sum = ULONG_MAX - sum < c ? ULONG_MAX : sum + c;
  }
  return sum;
}

/* ---- running ---------------------------------------------------------------
 */

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A case that could not run: its error as message and detail. */
static void case_error(verdict_case_result_t *r, const verdict_case_t *c,
                       srv_error_t *e) {
  /* Errors of a case's own run name spots within its body. */
  if (strncmp(e->at, "cases[", 6) != 0) srv_error_under(e, c->at);
  r->pass = false;
  const char *msg = e->message[0] ? e->message : srv_error_message(e->code);
  snprintf(r->message, sizeof r->message, "%.400s (%s%s%.80s)", msg,
           srv_error_name(e->code), e->at[0] ? " at " : "", e->at);
  fmt_buf_reset(&r->detail);
  srv_error_json(&r->detail, e->code, e->at, e->message, e->hint);
}

/* ---- a pose case ---------------------------------------------------------*/

static void pose_message(verdict_case_result_t *r, const verdict_case_t *c,
                         const verdict_expect_result_t *res) {
  size_t failing = 0, first = 0;
  for (size_t k = c->expect_count; k-- > 0;)
    if (!res[k].pass) {
      failing++;
      first = k;
    }
  const verdict_expect_t *e = &c->expect[first];
  snprintf(r->message, sizeof r->message,
           "%zu of %zu expectations fail; %s %s off by %.6g %s > %.6g", failing,
           c->expect_count, e->joint, e->rotation ? "rotation" : "position",
           res[first].error, e->rotation ? "deg" : "units", e->tolerance);
}

static void pose_picture(verdict_case_result_t *r, const verdict_case_t *c,
                         const float *model,
                         const verdict_expect_result_t *res) {
  uint32_t *hl = calloc(c->expect_count, sizeof *hl);
  if (hl == NULL) return;
  uint32_t n = 0;
  for (size_t k = 0; k < c->expect_count; k++)
    if (!res[k].pass) hl[n++] = c->expect[k].index;
  verdict_svg_pose_t pose = {.skeleton = c->blend.skeleton->skeleton,
                             .model = model,
                             .color = COLOR_A,
                             .opacity = 1,
                             .highlight = hl,
                             .highlight_count = n};
  verdict_svg_overlay(&r->picture, &pose, 1, VERDICT_VIEW_FRONT, PICTURE_WIDTH,
                      PICTURE_HEIGHT);
  snprintf(r->caption, sizeof r->caption,
           "The evaluated pose (front view), the joints that fail "
           "highlighted.");
  free(hl);
}

static void run_pose(verdict_case_t *c, bool pictures,
                     verdict_case_result_t *r) {
  srv_error_t e = {0};
  const anim_skeleton_t *sk = c->blend.skeleton->skeleton;
  float *model = malloc(16 * sizeof(float) * sk->joint_count);
  verdict_expect_result_t *res = calloc(c->expect_count, sizeof *res);
  srv_eval_scratch_t *scratch = srv_eval_scratch_thread();
  if (model == NULL || res == NULL || scratch == NULL) {
    srv_error_set(&e, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    case_error(r, c, &e);
    goto done;
  }
  if (srv_blend_masks(&c->blend, &c->pose, c->at, &e) != 0) {
    case_error(r, c, &e);
    goto done;
  }
  srv_eval_job_t job = {.skeleton = sk,
                        .layers = c->blend.layers,
                        .layer_count = c->blend.layer_count,
                        .space = FMT_SPACE_MODEL,
                        .out = model,
                        .fields = &c->pose.fields};
  anim_result ar = srv_eval_run(&job, scratch);
  if (ar != ANIM_OK) {
    srv_error_set(&e,
                  ar == ANIM_ERR_OUT_OF_MEMORY ? SRV_ERR_OUT_OF_MEMORY
                                               : SRV_ERR_BAD_BLEND,
                  "layers", "evaluation failed: %s", anim_result_str(ar));
    case_error(r, c, &e);
    goto done;
  }
  r->pass = true;
  fmt_buf_puts(&r->detail, "{\"expect\":[");
  for (size_t k = 0; k < c->expect_count; k++) {
    verdict_expect_check(&c->expect[k], model, &res[k]);
    r->pass &= res[k].pass;
    if (k) fmt_buf_putc(&r->detail, ',');
    verdict_expect_result_json(&r->detail, &c->expect[k], &res[k]);
  }
  fmt_buf_puts(&r->detail, "]}");
  if (!r->pass) {
    pose_message(r, c, res);
    if (pictures) pose_picture(r, c, model, res);
  }
done:
  free(model);
  free(res);
}

/* ---- compare and golden cases --------------------------------------------*/

/* Side 0 and side 1 of a compare or golden case at the worst frame drawn
 * over each other, in their two colours (a highlight would paint both in
 * one). */
static void pair_picture(verdict_case_result_t *r, const verdict_case_t *c,
                         const verdict_compare_result_t *res) {
  /* pose_at writes all of a skeleton's joints, whose count only it
   * knows: room for the most a skeleton may have. */
  size_t cap = 16 * (size_t)ANIM_MAX_JOINTS;
  float *model[2] = {malloc(cap * sizeof(float)), malloc(cap * sizeof(float))};
  verdict_svg_pose_t poses[2];
  size_t n = 0;
  for (int side = 0; side < 2 && model[0] && model[1]; side++) {
    const anim_skeleton_t *sk = NULL;
    int rc = c->kind == VERDICT_CASE_GOLDEN
                 ? verdict_golden_pose_at(&c->golden, side, res->max_t,
                                          model[side], &sk)
                 : verdict_compare_pose_at(&c->compare, side, res->max_t,
                                           model[side], &sk);
    if (rc != 0 || sk == NULL) continue;
    poses[n++] = (verdict_svg_pose_t){.skeleton = sk,
                                      .model = model[side],
                                      .color = side ? COLOR_B : COLOR_A,
                                      .opacity = side ? 0.75 : 1};
  }
  if (n > 0) {
    verdict_svg_overlay(&r->picture, poses, n, VERDICT_VIEW_FRONT,
                        PICTURE_WIDTH, PICTURE_HEIGHT);
    snprintf(r->caption, sizeof r->caption,
             "%s (blue) and %s (orange) at t = %.6g s, the worst frame "
             "(front view; worst joint: %s).",
             c->kind == VERDICT_CASE_GOLDEN ? "The golden" : "a",
             c->kind == VERDICT_CASE_GOLDEN ? "the clip" : "b", res->max_t,
             res->max_joint ? res->max_joint : "none");
  }
  free(model[0]);
  free(model[1]);
}

static void run_pair(verdict_case_t *c, unsigned max_frames, bool pictures,
                     verdict_case_result_t *r) {
  srv_error_t e = {0};
  verdict_compare_result_t res;
  memset(&res, 0, sizeof res);
  int rc = c->kind == VERDICT_CASE_GOLDEN
               ? verdict_golden_run(&c->golden, max_frames, &res, &e)
               : verdict_compare_run(&c->compare, max_frames, &res, &e);
  if (rc != 0) {
    case_error(r, c, &e);
    return;
  }
  r->pass = res.pass;
  verdict_compare_result_json(&r->detail, &res);
  if (!r->pass) {
    verdict_compare_result_message(&res, r->message, sizeof r->message);
    if (pictures && res.problem[0] == '\0') pair_picture(r, c, &res);
  }
  verdict_compare_result_free(&res);
}

/* ---- a check case --------------------------------------------------------*/

static void run_check(verdict_case_t *c, unsigned max_frames,
                      verdict_case_result_t *r) {
  srv_error_t e = {0};
  verdict_check_report_t rep;
  memset(&rep, 0, sizeof rep);
  const store_asset_t *clip = c->check_asset;
  if (verdict_check_run(clip->skeleton_asset->skeleton, clip->clip, &c->check,
                        max_frames, &rep, &e) != 0) {
    case_error(r, c, &e);
    return;
  }
  r->pass = rep.pass;
  verdict_check_report_json(&r->detail, clip->id, &rep);
  if (!r->pass)
    verdict_check_report_message(&rep, r->message, sizeof r->message);
  verdict_check_report_free(&rep);
}

int verdict_suite_run(verdict_suite_t *s, unsigned max_frames, bool pictures,
                      verdict_suite_result_t *out) {
  memset(out, 0, sizeof *out);
  out->name = s->name;
  out->cases = calloc(s->case_count ? s->case_count : 1, sizeof *out->cases);
  if (out->cases == NULL) return -1;
  out->case_count = s->case_count;
  double start = now_seconds();
  double budget = (double)max_frames * VERDICT_SUITE_FRAMES_FACTOR, used = 0;
  for (size_t i = 0; i < s->case_count; i++) {
    verdict_case_t *c = &s->cases[i];
    verdict_case_result_t *r = &out->cases[i];
    r->name = c->name;
    r->kind = c->kind;
    fmt_buf_init(&r->detail);
    fmt_buf_init(&r->picture);
    double t0 = now_seconds();
    double frames = case_frames(c);
    if (frames <= max_frames && used + frames > budget) {
      srv_error_t e;
      srv_error_set(&e, SRV_ERR_TOO_MANY_FRAMES, c->at,
                    "the suite's cases evaluate more than %.0f frames in "
                    "all (%d x max_frames)",
                    budget, VERDICT_SUITE_FRAMES_FACTOR);
      case_error(r, c, &e);
    } else {
      if (frames <= max_frames) used += frames;
      switch (c->kind) {
      case VERDICT_CASE_POSE: run_pose(c, pictures, r); break;
      case VERDICT_CASE_CHECK: run_check(c, max_frames, r); break;
      default: run_pair(c, max_frames, pictures, r); break;
      }
    }
    if (r->detail.failed || r->picture.failed) {
      verdict_suite_result_free(out);
      return -1;
    }
    r->seconds = now_seconds() - t0;
    if (r->pass)
      out->passed++;
    else
      out->failed++;
  }
  out->seconds = now_seconds() - start;
  return 0;
}
