/* Tests for the clip checks (server/verdict/check.h) on a clip built here,
 * each figure computed by hand.
 *
 * The rig: "hips" at the origin; "left" and "right" (feet, rest at the
 * origin, so no bone length to keep) and "spine" (rest (0, 1, 0)) its
 * children, "arm" (rest (0, 1, 0)) a child of spine and "leg" (rest
 * (0, -1, 0)) a child of hips. Times are in 64ths of a second (exact in
 * float): the clip lasts 99/64 s; checked at 64 fps it has 100 samples
 * t_i = i / 64 and 99 frames between them:
 * - left slides along x at 1 m/s from 20/64 to 30/64 s at height 0:
 *   frames 20 to 29 skate, 10 of 99;
 * - right sinks to y = -0.03 at 40/64 s (linearly from 32/64 s, back up by
 *   48/64 s): below -0.01 at samples 35 to 45 (y_k = -0.03 (k - 32) / 8,
 *   then -0.03 (48 - k) / 8);
 * - spine turns 40 degrees about z in one step at 32/64 s: a pop between
 *   samples 31 and 32;
 * - arm sits at (0, 1.02, 0) (2% longer than at rest), leg at
 *   (0, -1.005, 0) (0.5%). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server/verdict/check.h"

static anim_skeleton_t *sk;
static anim_clip_t *clip;

static anim_transform_t at(float x, float y, float z) {
  anim_transform_t t = anim_transform_identity();
  t.translation = (anim_vec3_t){x, y, z};
  return t;
}

static void setup(void) {
  anim_raw_joint_t joints[6] = {
      {.name = "hips", .parent = -1, .rest = at(0, 0, 0)},
      {.name = "left", .parent = 0, .rest = at(0, 0, 0)},
      {.name = "right", .parent = 0, .rest = at(0, 0, 0)},
      {.name = "spine", .parent = 0, .rest = at(0, 1, 0)},
      {.name = "arm", .parent = 3, .rest = at(0, 1, 0)},
      {.name = "leg", .parent = 0, .rest = at(0, -1, 0)},
  };
  anim_raw_skeleton_t rs = {.name = "rig", .joints = joints, .joint_count = 6};
  ck_assert_int_eq(anim_skeleton_build(&rs, NULL, &sk, NULL), ANIM_OK);

  static const float left_t[] = {0, 20 / 64.f, 30 / 64.f, 99 / 64.f};
  static const float left_v[] = {0,         0, 0, 0,         0, 0,
                                 10 / 64.f, 0, 0, 10 / 64.f, 0, 0};
  static const float right_t[] = {0, 32 / 64.f, 40 / 64.f, 48 / 64.f};
  static const float right_v[] = {0, 0, 0, 0, 0, 0, 0, -0.03f, 0, 0, 0, 0};
  static const float spine_t[] = {0, 32 / 64.f};
  float s20 = (float)sin(20 * M_PI / 180), c20 = (float)cos(20 * M_PI / 180);
  const float spine_v[] = {0, 0, 0, 1, 0, 0, s20, c20};
  static const float one_t[] = {0};
  static const float arm_v[] = {0, 1.02f, 0};
  static const float leg_v[] = {0, -1.005f, 0};
  anim_raw_track_t tracks[] = {
      {.joint = 1,
       .path = ANIM_PATH_TRANSLATION,
       .times = left_t,
       .key_count = 4,
       .values = left_v,
       .value_count = 12},
      {.joint = 2,
       .path = ANIM_PATH_TRANSLATION,
       .times = right_t,
       .key_count = 4,
       .values = right_v,
       .value_count = 12},
      {.joint = 3,
       .path = ANIM_PATH_ROTATION,
       .interpolation = ANIM_INTERP_STEP,
       .times = spine_t,
       .key_count = 2,
       .values = spine_v,
       .value_count = 8},
      {.joint = 4,
       .path = ANIM_PATH_TRANSLATION,
       .times = one_t,
       .key_count = 1,
       .values = arm_v,
       .value_count = 3},
      {.joint = 5,
       .path = ANIM_PATH_TRANSLATION,
       .times = one_t,
       .key_count = 1,
       .values = leg_v,
       .value_count = 3},
  };
  anim_raw_clip_t rc = {.name = "walk", .tracks = tracks, .track_count = 5};
  ck_assert_int_eq(anim_clip_build(&rc, sk, NULL, &clip, NULL), ANIM_OK);
  ck_assert_float_eq(clip->duration, 99 / 64.f);
}

static void teardown(void) {
  anim_clip_free(clip);
  anim_skeleton_free(sk);
}

static const verdict_check_result_t *find(const verdict_check_report_t *r,
                                          verdict_check_kind kind) {
  for (unsigned i = 0; i < r->check_count; i++)
    if (r->checks[i].kind == kind) return &r->checks[i];
  return NULL;
}

/* The clip checked at 64 fps with feet (NULL: none) and loop. */
static void run(verdict_check_report_t *r, const char *feet, bool loop) {
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  srv_error_t err;
  ck_assert_int_eq(verdict_check_param_set(&p, "fps", "64", &err), 0);
  if (feet != NULL)
    ck_assert_int_eq(verdict_check_param_set(&p, "feet", feet, &err), 0);
  if (loop) ck_assert_int_eq(verdict_check_param_set(&p, "loop", "1", &err), 0);
  ck_assert_msg(verdict_check_run(sk, clip, &p, 100000, r, &err) == 0, "%s",
                err.message);
  verdict_check_params_free(&p);
}

START_TEST(test_samples_and_checks_listed) {
  verdict_check_report_t r;
  run(&r, NULL, false);
  ck_assert_uint_eq(r.samples, 100);
  ck_assert_uint_eq(r.check_count, 3); /* finite, pop, stretch */
  ck_assert_int_eq(r.checks[0].kind, VERDICT_CHECK_FINITE);
  ck_assert_int_eq(r.checks[1].kind, VERDICT_CHECK_POP);
  ck_assert_int_eq(r.checks[2].kind, VERDICT_CHECK_STRETCH);
  ck_assert(!r.pass);
  verdict_check_report_free(&r);
  run(&r, "left,right", false);
  ck_assert_uint_eq(r.check_count, 5);
  ck_assert_int_eq(r.checks[3].kind, VERDICT_CHECK_FOOT_SKATE);
  ck_assert_int_eq(r.checks[4].kind, VERDICT_CHECK_PENETRATION);
  verdict_check_report_free(&r);
  ck_assert_double_eq(verdict_check_sample_count(99 / 64., 64), 100);
  ck_assert_double_eq(verdict_check_sample_count(1, 60), 61);
  ck_assert_double_eq(verdict_check_sample_count(0, 60), 1);
  ck_assert_double_eq(verdict_check_sample_count(1.005, 60), 62);
}
END_TEST

START_TEST(test_foot_skate_ratio) {
  verdict_check_report_t r;
  run(&r, "left,right", false);
  const verdict_check_result_t *k = find(&r, VERDICT_CHECK_FOOT_SKATE);
  ck_assert_ptr_nonnull(k);
  ck_assert_double_eq_tol(k->value, 10.0 / 99.0, 1e-6);
  ck_assert_double_eq(k->threshold, 0.02);
  ck_assert(!k->pass);
  ck_assert_uint_eq(k->finding_count, 1);
  ck_assert_str_eq(k->findings[0].joint, "left");
  ck_assert_double_eq(k->findings[0].from, 20 / 64.);
  ck_assert_double_eq(k->findings[0].to, 30 / 64.);
  ck_assert_double_eq_tol(k->findings[0].value, 1.0, 1e-4);
  verdict_check_report_free(&r);
}
END_TEST

START_TEST(test_foot_skate_thresholds) {
  /* Raised above the contact height, or with a speed limit above 1 m/s,
   * nothing skates. */
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  srv_error_t err;
  ck_assert_int_eq(verdict_check_param_set(&p, "fps", "64", &err), 0);
  ck_assert_int_eq(verdict_check_param_set(&p, "feet", "left", &err), 0);
  ck_assert_int_eq(verdict_check_param_set(&p, "floor", "-0.06", &err), 0);
  verdict_check_report_t r;
  ck_assert_int_eq(verdict_check_run(sk, clip, &p, 1000, &r, &err), 0);
  ck_assert_double_eq(find(&r, VERDICT_CHECK_FOOT_SKATE)->value, 0);
  ck_assert(find(&r, VERDICT_CHECK_FOOT_SKATE)->pass);
  verdict_check_report_free(&r);
  ck_assert_int_eq(verdict_check_param_set(&p, "floor", "0", &err), 0);
  ck_assert_int_eq(verdict_check_param_set(&p, "skate_speed", "1.5", &err), 0);
  ck_assert_int_eq(verdict_check_run(sk, clip, &p, 1000, &r, &err), 0);
  ck_assert_double_eq(find(&r, VERDICT_CHECK_FOOT_SKATE)->value, 0);
  verdict_check_report_free(&r);
  /* Up along x: the slide is vertical now, and the feet at x >= 0 are in
   * contact only before it ends; nothing moves sideways. */
  ck_assert_int_eq(verdict_check_param_set(&p, "skate_speed", "0.5", &err), 0);
  ck_assert_int_eq(verdict_check_param_set(&p, "up", "x", &err), 0);
  ck_assert_int_eq(verdict_check_run(sk, clip, &p, 1000, &r, &err), 0);
  ck_assert_double_eq(find(&r, VERDICT_CHECK_FOOT_SKATE)->value, 0);
  verdict_check_report_free(&r);
  verdict_check_params_free(&p);
}
END_TEST

START_TEST(test_penetration) {
  verdict_check_report_t r;
  run(&r, "left,right", false);
  const verdict_check_result_t *k = find(&r, VERDICT_CHECK_PENETRATION);
  ck_assert_double_eq_tol(k->value, 0.03, 1e-6);
  ck_assert_double_eq(k->threshold, 0.01);
  ck_assert(!k->pass);
  ck_assert_uint_eq(k->finding_count, 1);
  ck_assert_str_eq(k->findings[0].joint, "right");
  ck_assert_double_eq(k->findings[0].from, 35 / 64.);
  ck_assert_double_eq(k->findings[0].to, 45 / 64.);
  ck_assert_double_eq_tol(k->findings[0].value, 0.03, 1e-6);
  verdict_check_report_free(&r);
}
END_TEST

START_TEST(test_pop) {
  verdict_check_report_t r;
  run(&r, NULL, false);
  const verdict_check_result_t *k = find(&r, VERDICT_CHECK_POP);
  ck_assert_double_eq_tol(k->value, 40, 1e-3);
  ck_assert_double_eq(k->threshold, 30);
  ck_assert(!k->pass);
  ck_assert_uint_eq(k->finding_count, 1);
  ck_assert_str_eq(k->findings[0].joint, "spine");
  ck_assert_double_eq(k->findings[0].from, 31 / 64.);
  ck_assert_double_eq(k->findings[0].to, 32 / 64.);
  ck_assert_double_eq_tol(k->findings[0].value, 40, 1e-3);
  verdict_check_report_free(&r);
  /* At 45 degrees it is no pop. */
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  srv_error_t err;
  ck_assert_int_eq(verdict_check_param_set(&p, "pop", "45", &err), 0);
  ck_assert_int_eq(verdict_check_run(sk, clip, &p, 1000, &r, &err), 0);
  ck_assert(find(&r, VERDICT_CHECK_POP)->pass);
  ck_assert_uint_eq(find(&r, VERDICT_CHECK_POP)->finding_count, 0);
  verdict_check_report_free(&r);
}
END_TEST

START_TEST(test_stretch) {
  verdict_check_report_t r;
  run(&r, NULL, false);
  const verdict_check_result_t *k = find(&r, VERDICT_CHECK_STRETCH);
  ck_assert_double_eq_tol(k->value, 0.02, 1e-6);
  ck_assert(!k->pass);
  /* The arm is found over the whole clip; the leg (0.5%) is not. */
  ck_assert_uint_eq(k->finding_count, 1);
  ck_assert_str_eq(k->findings[0].joint, "arm");
  ck_assert_double_eq(k->findings[0].from, 0);
  ck_assert_double_eq(k->findings[0].to, 99 / 64.);
  ck_assert_double_eq_tol(k->findings[0].value, 0.02, 1e-6);
  verdict_check_report_free(&r);
  /* At 0.4% the leg is found too. */
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  srv_error_t err;
  ck_assert_int_eq(verdict_check_param_set(&p, "stretch", "0.004", &err), 0);
  ck_assert_int_eq(verdict_check_run(sk, clip, &p, 1000, &r, &err), 0);
  ck_assert_uint_eq(find(&r, VERDICT_CHECK_STRETCH)->finding_count, 2);
  ck_assert_str_eq(find(&r, VERDICT_CHECK_STRETCH)->findings[1].joint, "leg");
  ck_assert_double_eq_tol(find(&r, VERDICT_CHECK_STRETCH)->findings[1].value,
                          0.005, 1e-6);
  verdict_check_report_free(&r);
}
END_TEST

START_TEST(test_seam) {
  /* Between 0 and 99/64 s: left moved by 10/64 along x (every shell point
   * with it); spine turned 40 degrees about z, its shell points along x and
   * y by 2 s sin(20 degrees), s = 0.03; arm, 1.02 above spine, turned with
   * it: its point s along y, 1.05 from spine's axis, moved farthest, by
   * 2.1 sin(20 degrees). right is back where it started. */
  verdict_check_report_t r;
  run(&r, NULL, true);
  ck_assert_uint_eq(r.check_count, 4);
  const verdict_check_result_t *k = find(&r, VERDICT_CHECK_SEAM);
  ck_assert_ptr_nonnull(k);
  double s20 = sin(20 * M_PI / 180);
  ck_assert_double_eq_tol(k->value, 2.1 * s20, 1e-5);
  ck_assert_double_eq(k->threshold, 0.001);
  ck_assert(!k->pass);
  ck_assert_uint_eq(k->finding_count, 3);
  ck_assert_str_eq(k->findings[0].joint, "left");
  ck_assert_double_eq_tol(k->findings[0].value, 10 / 64., 1e-6);
  ck_assert_double_eq(k->findings[0].from, 0);
  ck_assert_double_eq(k->findings[0].to, 99 / 64.);
  ck_assert_str_eq(k->findings[1].joint, "spine");
  ck_assert_double_eq_tol(k->findings[1].value, 0.06 * s20, 1e-6);
  ck_assert_str_eq(k->findings[2].joint, "arm");
  verdict_check_report_free(&r);
  /* A seam threshold above the spine's error leaves left and arm. */
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  srv_error_t err;
  ck_assert_int_eq(verdict_check_param_set(&p, "loop", "1", &err), 0);
  ck_assert_int_eq(verdict_check_param_set(&p, "seam", "0.05", &err), 0);
  ck_assert_int_eq(verdict_check_param_set(&p, "shell", "0", &err), 0);
  ck_assert_int_eq(verdict_check_run(sk, clip, &p, 1000, &r, &err), 0);
  k = find(&r, VERDICT_CHECK_SEAM);
  ck_assert_uint_eq(k->finding_count, 2);
  /* With no shell, arm's joint itself moved 1.02 * 2 sin(20 degrees). */
  ck_assert_double_eq_tol(k->value, 2.04 * s20, 1e-5);
  verdict_check_report_free(&r);
  verdict_check_params_free(&p);
}
END_TEST

START_TEST(test_finite) {
  verdict_check_report_t r;
  run(&r, NULL, false);
  ck_assert_double_eq(find(&r, VERDICT_CHECK_FINITE)->value, 0);
  ck_assert(find(&r, VERDICT_CHECK_FINITE)->pass);
  verdict_check_report_free(&r);
  /* The core refuses a non-finite key, so one is written into the built
   * clip: spine's first rotation key gets a NaN x, which the STEP track
   * holds until 32/64 s: samples 0 to 31, one number each. */
  for (uint32_t i = 0; i < clip->track_count; i++)
    if (clip->tracks[i].path == ANIM_PATH_ROTATION)
      ((float *)clip->tracks[i].values)[0] = NAN;
  run(&r, NULL, false);
  const verdict_check_result_t *k = find(&r, VERDICT_CHECK_FINITE);
  ck_assert(!k->pass);
  ck_assert_double_eq(k->threshold, 0);
  ck_assert(!r.pass);
  ck_assert_double_eq(k->value, 32);
  ck_assert_uint_eq(k->finding_count, 1);
  ck_assert_str_eq(k->findings[0].joint, "spine");
  ck_assert_double_eq(k->findings[0].from, 0);
  ck_assert_double_eq(k->findings[0].to, 31 / 64.);
  ck_assert_double_eq(k->findings[0].value, 32);
  verdict_check_report_free(&r);
}
END_TEST

START_TEST(test_findings_capped) {
  /* A clip of spine alone that flips 40 degrees every other sample (STEP
   * keys at 2k/64 s, k = 0 ... 124): samples 2, 4, ... 248 pop, 124
   * separate runs; 100 are listed, 24 counted. */
  enum { KEYS = 125 };
  float times[KEYS], values[KEYS * 4];
  float s20 = (float)sin(20 * M_PI / 180), c20 = (float)cos(20 * M_PI / 180);
  for (int k = 0; k < KEYS; k++) {
    times[k] = (float)(2 * k) / 64;
    float *q = values + 4 * k;
    q[0] = q[1] = 0;
    q[2] = k % 2 ? s20 : 0;
    q[3] = k % 2 ? c20 : 1;
  }
  anim_raw_track_t track = {.joint = 3,
                            .path = ANIM_PATH_ROTATION,
                            .interpolation = ANIM_INTERP_STEP,
                            .times = times,
                            .key_count = KEYS,
                            .values = values,
                            .value_count = KEYS * 4};
  anim_raw_clip_t rc = {.name = "flip", .tracks = &track, .track_count = 1};
  anim_clip_t *flip;
  ck_assert_int_eq(anim_clip_build(&rc, sk, NULL, &flip, NULL), ANIM_OK);
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  srv_error_t err;
  ck_assert_int_eq(verdict_check_param_set(&p, "fps", "64", &err), 0);
  verdict_check_report_t r;
  ck_assert_int_eq(verdict_check_run(sk, flip, &p, 1000, &r, &err), 0);
  ck_assert_uint_eq(r.samples, 249);
  const verdict_check_result_t *k = find(&r, VERDICT_CHECK_POP);
  ck_assert_uint_eq(k->finding_count, VERDICT_CHECK_MAX_FINDINGS);
  ck_assert_uint_eq(k->truncated, 24);
  ck_assert_double_eq(k->findings[99].from, 199 / 64.);
  ck_assert_double_eq(k->findings[99].to, 200 / 64.);
  fmt_buf_t b;
  fmt_buf_init(&b);
  verdict_check_report_json(&b, "flip", &r);
  ck_assert_ptr_nonnull(strstr(fmt_buf_cstr(&b), "],\"truncated\":24}"));
  fmt_buf_free(&b);
  verdict_check_report_free(&r);
  verdict_check_params_free(&p);
  anim_clip_free(flip);
}
END_TEST

START_TEST(test_run_errors) {
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  srv_error_t err;
  verdict_check_report_t r;
  ck_assert_int_eq(verdict_check_param_set(&p, "fps", "64", &err), 0);
  ck_assert_int_eq(verdict_check_run(sk, clip, &p, 99, &r, &err), -1);
  ck_assert_int_eq(err.code, SRV_ERR_TOO_MANY_FRAMES);
  ck_assert_str_eq(err.at, "fps");
  ck_assert_int_eq(verdict_check_run(sk, clip, &p, 100, &r, &err), 0);
  verdict_check_report_free(&r);
  ck_assert_int_eq(verdict_check_param_set(&p, "feet", "left,toe", &err), 0);
  ck_assert_int_eq(verdict_check_run(sk, clip, &p, 100, &r, &err), -1);
  ck_assert_int_eq(err.code, SRV_ERR_UNKNOWN_JOINT);
  ck_assert_str_eq(err.at, "feet[1]");
  verdict_check_params_free(&p);
}
END_TEST

/* One query parameter refused: code and at. */
static void refused(const char *name, const char *value, srv_error_code code,
                    const char *where) {
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  srv_error_t err;
  ck_assert_msg(verdict_check_param_set(&p, name, value, &err) == -1,
                "%s=%s taken", name, value);
  ck_assert_int_eq(err.code, code);
  ck_assert_str_eq(err.at, where);
  verdict_check_params_free(&p);
}

START_TEST(test_param_set) {
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  ck_assert_double_eq(p.fps, 60);
  ck_assert_int_eq(p.up, 1);
  ck_assert_double_eq(p.contact_height, 0.05);
  ck_assert_double_eq(p.skate_speed, 0.5);
  ck_assert_double_eq(p.max_skate_ratio, 0.02);
  ck_assert_double_eq(p.penetration, 0.01);
  ck_assert_double_eq(p.pop, 30);
  ck_assert_double_eq(p.stretch, 0.01);
  ck_assert(!p.loop);
  ck_assert_double_eq(p.seam, 0.001);
  ck_assert_double_eq(p.shell, 0.03);
  ck_assert_ptr_null(p.feet);
  srv_error_t err;
  ck_assert_int_eq(verdict_check_param_set(&p, "up", "z", &err), 0);
  ck_assert_int_eq(p.up, 2);
  ck_assert_int_eq(verdict_check_param_set(&p, "loop", "true", &err), 0);
  ck_assert(p.loop);
  ck_assert_int_eq(verdict_check_param_set(&p, "floor", "-2.5", &err), 0);
  ck_assert_double_eq(p.floor, -2.5);
  ck_assert_int_eq(verdict_check_param_set(&p, "feet", "l,r", &err), 0);
  ck_assert_uint_eq(json_array_size(p.feet), 2);
  ck_assert_str_eq(json_string_value(json_array_get(p.feet, 1)), "r");
  verdict_check_params_free(&p);
  refused("fps", "0", SRV_ERR_BAD_PARAMETER, "fps");
  refused("fps", "sixty", SRV_ERR_BAD_PARAMETER, "fps");
  refused("fps", "", SRV_ERR_BAD_PARAMETER, "fps");
  refused("pop", "-1", SRV_ERR_BAD_PARAMETER, "pop");
  refused("floor", "inf", SRV_ERR_BAD_PARAMETER, "floor");
  refused("up", "w", SRV_ERR_BAD_PARAMETER, "up");
  refused("loop", "2", SRV_ERR_BAD_PARAMETER, "loop");
  refused("spcae", "1", SRV_ERR_UNKNOWN_PARAMETER, "spcae");
  /* Every name of the endpoint's table is a check parameter. */
  for (unsigned i = 0; verdict_check_param_name(i) != NULL; i++) {
    verdict_check_params_defaults(&p);
    const char *name = verdict_check_param_name(i);
    const char *value = strcmp(name, "up") == 0 ? "y" : "1";
    ck_assert_msg(verdict_check_param_set(&p, name, value, &err) == 0, "%s",
                  name);
    verdict_check_params_free(&p);
  }
}
END_TEST

/* One JSON check object refused: code and at. */
static void json_refused(const char *text, srv_error_code code,
                         const char *where) {
  json_t *obj = json_loads(text, 0, NULL);
  ck_assert_ptr_nonnull(obj);
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  srv_error_t err;
  ck_assert_msg(verdict_check_params_json(obj, "cases[3].check", &p, &err) ==
                    -1,
                "%s taken", text);
  ck_assert_int_eq(err.code, code);
  ck_assert_str_eq(err.at, where);
  verdict_check_params_free(&p);
  json_decref(obj);
}

START_TEST(test_params_json) {
  json_t *obj = json_loads(
      "{\"clip\":\"walk\",\"skeleton\":\"rig\",\"fps\":30,\"feet\":[\"l\","
      "\"r\"],\"up\":\"z\",\"loop\":true,\"seam\":0.002,\"floor\":-1}",
      0, NULL);
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  srv_error_t err;
  ck_assert_int_eq(verdict_check_params_json(obj, "", &p, &err), 0);
  ck_assert_double_eq(p.fps, 30);
  ck_assert_uint_eq(json_array_size(p.feet), 2);
  ck_assert_int_eq(p.up, 2);
  ck_assert(p.loop);
  ck_assert_double_eq(p.seam, 0.002);
  ck_assert_double_eq(p.floor, -1);
  json_decref(obj);
  obj = json_loads("{\"feet\":\"a,b,c\",\"loop\":0}", 0, NULL);
  ck_assert_int_eq(verdict_check_params_json(obj, "x", &p, &err), 0);
  ck_assert_uint_eq(json_array_size(p.feet), 3);
  ck_assert(!p.loop);
  json_decref(obj);
  verdict_check_params_free(&p);
  json_refused("{\"fps\":\"60\"}", SRV_ERR_WRONG_TYPE, "cases[3].check.fps");
  json_refused("{\"fps\":0}", SRV_ERR_BAD_VALUE, "cases[3].check.fps");
  json_refused("{\"feet\":[\"l\",1]}", SRV_ERR_WRONG_TYPE,
               "cases[3].check.feet[1]");
  json_refused("{\"feet\":3}", SRV_ERR_WRONG_TYPE, "cases[3].check.feet");
  json_refused("{\"up\":1}", SRV_ERR_WRONG_TYPE, "cases[3].check.up");
  json_refused("{\"up\":\"w\"}", SRV_ERR_BAD_VALUE, "cases[3].check.up");
  json_refused("{\"loop\":2}", SRV_ERR_BAD_VALUE, "cases[3].check.loop");
  json_refused("{\"loop\":\"1\"}", SRV_ERR_WRONG_TYPE, "cases[3].check.loop");
  json_refused("{\"fsp\":30}", SRV_ERR_UNKNOWN_FIELD, "cases[3].check.fsp");
}
END_TEST

START_TEST(test_report_json_and_message) {
  verdict_check_report_t r;
  run(&r, "left,right", false);
  fmt_buf_t b;
  fmt_buf_init(&b);
  verdict_check_report_json(&b, "c-1", &r);
  json_error_t jerr;
  json_t *doc = json_loads(fmt_buf_cstr(&b), 0, &jerr);
  ck_assert_msg(doc != NULL, "%s: %s", jerr.text, fmt_buf_cstr(&b));
  ck_assert_str_eq(json_string_value(json_object_get(doc, "clip")), "c-1");
  ck_assert_int_eq(json_integer_value(json_object_get(doc, "samples")), 100);
  ck_assert(json_is_false(json_object_get(doc, "pass")));
  json_t *checks = json_object_get(doc, "checks");
  ck_assert_uint_eq(json_array_size(checks), 5);
  json_t *skate = json_array_get(checks, 3);
  ck_assert_str_eq(json_string_value(json_object_get(skate, "check")),
                   "foot_skate");
  ck_assert_double_eq_tol(json_number_value(json_object_get(skate, "value")),
                          10.0 / 99, 1e-6);
  json_t *f = json_array_get(json_object_get(skate, "findings"), 0);
  ck_assert_str_eq(json_string_value(json_object_get(f, "joint")), "left");
  ck_assert_double_eq(json_number_value(json_object_get(f, "from")), 0.3125);
  ck_assert_int_eq(json_integer_value(json_object_get(skate, "truncated")), 0);
  json_decref(doc);
  fmt_buf_free(&b);
  char msg[256];
  verdict_check_report_message(&r, msg, sizeof msg);
  ck_assert_msg(
      strstr(msg, "foot_skate 0.10101 > 0.02 (left 0.3125-0.46875 s)") != NULL,
      "%s", msg);
  ck_assert_msg(strstr(msg, "pop 40 > 30 (spine 0.484375-0.5 s)") != NULL, "%s",
                msg);
  verdict_check_report_free(&r);
}
END_TEST

Suite *server_verdict_check_suite(void) {
  Suite *s = suite_create("server_verdict_check");
  TCase *tc = tcase_create("check");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_samples_and_checks_listed);
  tcase_add_test(tc, test_foot_skate_ratio);
  tcase_add_test(tc, test_foot_skate_thresholds);
  tcase_add_test(tc, test_penetration);
  tcase_add_test(tc, test_pop);
  tcase_add_test(tc, test_stretch);
  tcase_add_test(tc, test_seam);
  tcase_add_test(tc, test_finite);
  tcase_add_test(tc, test_findings_capped);
  tcase_add_test(tc, test_run_errors);
  tcase_add_test(tc, test_param_set);
  tcase_add_test(tc, test_params_json);
  tcase_add_test(tc, test_report_json_and_message);
  suite_add_tcase(s, tc);
  return s;
}
