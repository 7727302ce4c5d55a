/* Tests for root motion: extraction gives the original back when composed
 * with the in-place pose, loops accumulate whole strides (exactly, for a
 * synthetic walk), pingpong walks back, yaw is ozz's heading about the up
 * axis, a turning walk closes its square, and motions blend as ozz's
 * MotionBlendingJob does. */
#include <check.h>

#include "test_skeleton_fixtures.h"

static anim_raw_joint_t J(const char *name, int32_t parent) {
  anim_raw_joint_t j;
  memset(&j, 0, sizeof j);
  j.name = name;
  j.parent = parent;
  j.rest.rotation.w = 1.f;
  j.rest.scale = anim_vec3(1, 1, 1);
  return j;
}

/* hips (rest at height 1) and a leg below it. */
static anim_skeleton_t *skel(void) {
  anim_raw_joint_t j[2] = {J("hips", -1), J("leg", 0)};
  j[0].rest.translation = anim_vec3(0, 1, 0);
  j[1].rest.translation = anim_vec3(0, -0.5f, 0);
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = 2};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  return s;
}

/* A 1 s walk: the hips move 1.5 along x with a bob in y; keys 0, .5, 1. */
static anim_clip_t *walk(const anim_skeleton_t *sk) {
  static const float times[3] = {0, 0.5f, 1};
  static const float tv[9] = {0, 1, 0, 0.75f, 1.1f, 0, 1.5f, 1, 0};
  anim_raw_track_t tr = {.joint = 0,
                         .path = ANIM_PATH_TRANSLATION,
                         .times = times,
                         .key_count = 3,
                         .values = tv,
                         .value_count = 9};
  anim_raw_clip_t raw = {.name = "walk", .tracks = &tr, .track_count = 1};
  anim_clip_t *c = NULL;
  ck_assert_int_eq(anim_clip_build(&raw, sk, NULL, &c, NULL), ANIM_OK);
  return c;
}

typedef struct p2_s {
  anim_vec3_t t[2], s[2];
  anim_quat_t q[2];
} p2_t;

static anim_motion_t run_at(const anim_skeleton_t *sk, const anim_clip_t *c,
                            double t, anim_wrap wrap, anim_motion_settings_t st,
                            p2_t *p) {
  anim_pose_t pose = {p->t, p->q, p->s, 2};
  anim_sampling_job_t sj = {
      .skeleton = sk, .clip = c, .time = t, .wrap = wrap, .output = pose};
  ck_assert_int_eq(anim_sampling_job_run(&sj), ANIM_OK);
  anim_motion_t m;
  anim_motion_extract_job_t job = {.skeleton = sk,
                                   .clip = c,
                                   .time = t,
                                   .wrap = wrap,
                                   .settings = st,
                                   .pose = pose,
                                   .output = &m};
  ck_assert_int_eq(anim_motion_extract_job_run(&job), ANIM_OK);
  return m;
}

static anim_motion_settings_t xz_yaw(void) {
  anim_motion_settings_t s = {.joint = 0,
                              .translation = ANIM_MOTION_X | ANIM_MOTION_Z,
                              .rotation = ANIM_MOTION_YAW,
                              .up = ANIM_AXIS_Y,
                              .reference = ANIM_MOTION_REF_SKELETON};
  return s;
}

/* Three loops of the walk move the root three strides (4.5), exactly;
 * half a step more adds the half stride; the pose keeps its bob. */
START_TEST(test_loops_accumulate) {
  anim_skeleton_t *sk = skel();
  anim_clip_t *c = walk(sk);
  p2_t p;
  anim_motion_t m = run_at(sk, c, 3.0, ANIM_WRAP_LOOP, xz_yaw(), &p);
  ck_assert_float_eq(m.translation.x, 4.5f);
  ck_assert_float_eq(m.translation.y, 0.f);
  ck_assert_float_eq(m.translation.z, 0.f);
  ck_assert_float_eq(m.rotation.w, 1.f);
  m = run_at(sk, c, 3.5, ANIM_WRAP_LOOP, xz_yaw(), &p);
  ck_assert_float_eq(m.translation.x, 5.25f);
  ck_assert_float_eq(p.t[0].x, 0.f);
  ck_assert_float_eq(p.t[0].y, 1.1f);
  /* Backwards in time: minus one loop. */
  m = run_at(sk, c, -0.5, ANIM_WRAP_LOOP, xz_yaw(), &p);
  ck_assert_float_eq(m.translation.x, -0.75f);
  /* So many loops that the root would leave a float's range: refused. */
  {
    anim_pose_t pose = {p.t, p.q, p.s, 2};
    anim_motion_extract_job_t job = {.skeleton = sk,
                                     .clip = c,
                                     .time = 1e300,
                                     .wrap = ANIM_WRAP_LOOP,
                                     .settings = xz_yaw(),
                                     .pose = pose,
                                     .output = &m};
    ck_assert_int_eq(anim_motion_extract_job_run(&job), ANIM_ERR_NOT_FINITE);
  }
  /* Clamp stays at the end of the clip. */
  m = run_at(sk, c, 3.5, ANIM_WRAP_CLAMP, xz_yaw(), &p);
  ck_assert_float_eq(m.translation.x, 1.5f);
  anim_clip_free(c);
  anim_skeleton_free(sk);
}
END_TEST

/* Pingpong walks forward, then back to the start; it never accumulates. */
START_TEST(test_pingpong) {
  anim_skeleton_t *sk = skel();
  anim_clip_t *c = walk(sk);
  p2_t p;
  ck_assert_float_eq(
      run_at(sk, c, 0.5, ANIM_WRAP_PINGPONG, xz_yaw(), &p).translation.x,
      0.75f);
  ck_assert_float_eq(
      run_at(sk, c, 1.0, ANIM_WRAP_PINGPONG, xz_yaw(), &p).translation.x, 1.5f);
  ck_assert_float_eq(
      run_at(sk, c, 1.5, ANIM_WRAP_PINGPONG, xz_yaw(), &p).translation.x,
      0.75f);
  ck_assert_float_eq(
      run_at(sk, c, 6.0, ANIM_WRAP_PINGPONG, xz_yaw(), &p).translation.x, 0.f);
  anim_clip_free(c);
  anim_skeleton_free(sk);
}
END_TEST

/* Random root transforms: motion * in-place == original within 1e-5, for
 * every rotation mode, reference and translation mask. */
START_TEST(test_roundtrip) {
  anim_skeleton_t *sk = skel();
  tf_rng_t rng = {0x1234567ull};
  for (int i = 0; i < 2000; i++) {
    anim_motion_settings_t s = {.joint = 0,
                                .translation = (unsigned)(i % 8),
                                .rotation = (anim_motion_rotation)(i % 3),
                                .up = (anim_axis)((i / 3) % 3),
                                .reference =
                                    (anim_motion_reference)(i % 2 ? 0 : 2)};
    anim_vec3_t t = anim_vec3(tf_range(&rng, -3, 3), tf_range(&rng, -3, 3),
                              tf_range(&rng, -3, 3));
    anim_quat_t q = tf_rand_quat(&rng);
    p2_t p;
    anim_pose_t pose = {p.t, p.q, p.s, 2};
    ck_assert_int_eq(anim_pose_set_rest(sk, &pose), ANIM_OK);
    p.t[0] = t;
    p.q[0] = q;
    anim_motion_t m;
    anim_motion_extract_job_t job = {
        .skeleton = sk, .settings = s, .pose = pose, .output = &m};
    ck_assert_int_eq(anim_motion_extract_job_run(&job), ANIM_OK);
    anim_motion_t local = {p.t[0], p.q[0]};
    anim_motion_t back = anim_motion_mul(m, local);
    ck_assert_float_eq_tol(back.translation.x, t.x, 1e-5f);
    ck_assert_float_eq_tol(back.translation.y, t.y, 1e-5f);
    ck_assert_float_eq_tol(back.translation.z, t.z, 1e-5f);
    double want[4] = {q.x, q.y, q.z, q.w};
    ck_assert_double_le(tf_quat_dist(back.rotation, want), 1e-5);
    /* Unselected translation components stay in the pose. */
    if (!(s.translation & ANIM_MOTION_Y))
      ck_assert_float_eq(m.translation.y, 0);
    if (s.rotation == ANIM_MOTION_NONE) ck_assert_float_eq(m.rotation.w, 1);
  }
  anim_skeleton_free(sk);
}
END_TEST

/* Yaw is the heading: yaw(0.7) * attitude(0.3) gives 0.7 about up, for up
 * y (attitude about z) and, turned cyclically, up z (attitude about x). */
START_TEST(test_yaw_heading) {
  anim_motion_settings_t s = xz_yaw();
  anim_vec3_t zero = anim_vec3(0, 0, 0);
  anim_quat_t q =
      anim_quat_mul(anim_quat_from_axis_angle(anim_vec3(0, 1, 0), 0.7f),
                    anim_quat_from_axis_angle(anim_vec3(0, 0, 1), 0.3f));
  anim_motion_t m = anim_motion_of(&s, zero, q, zero, anim_quat_identity());
  double want[4] = {0, sin(0.35), 0, cos(0.35)};
  ck_assert_double_le(tf_quat_dist(m.rotation, want), 1e-6);
  s.up = ANIM_AXIS_Z;
  q = anim_quat_mul(anim_quat_from_axis_angle(anim_vec3(0, 0, 1), 0.7f),
                    anim_quat_from_axis_angle(anim_vec3(1, 0, 0), 0.3f));
  m = anim_motion_of(&s, zero, q, zero, anim_quat_identity());
  double wz[4] = {0, 0, sin(0.35), cos(0.35)};
  ck_assert_double_le(tf_quat_dist(m.rotation, wz), 1e-6);
  /* Against a reference rotation: the yaw of R * Rr^-1. */
  s.up = ANIM_AXIS_Y;
  anim_quat_t rr = anim_quat_from_axis_angle(anim_vec3(0, 1, 0), 0.2f);
  q = anim_quat_from_axis_angle(anim_vec3(0, 1, 0), 0.9f);
  m = anim_motion_of(&s, zero, q, zero, rr);
  double w2[4] = {0, sin(0.35), 0, cos(0.35)};
  ck_assert_double_le(tf_quat_dist(m.rotation, w2), 1e-6);
}
END_TEST

/* A walk that turns 90 degrees while it moves one unit: four loops close
 * the square, two loops stand at (1, 0, -1) facing back. */
START_TEST(test_turning_loop) {
  anim_skeleton_t *sk = skel();
  static const float times[2] = {0, 1};
  static const float tv[6] = {0, 1, 0, 1, 1, 0};
  float h = (float)M_SQRT1_2;
  const float rv[8] = {0, 0, 0, 1, 0, h, 0, h};
  anim_raw_track_t tr[2] = {{.joint = 0,
                             .path = ANIM_PATH_TRANSLATION,
                             .times = times,
                             .key_count = 2,
                             .values = tv,
                             .value_count = 6},
                            {.joint = 0,
                             .path = ANIM_PATH_ROTATION,
                             .times = times,
                             .key_count = 2,
                             .values = rv,
                             .value_count = 8}};
  anim_raw_clip_t raw = {.tracks = tr, .track_count = 2};
  anim_clip_t *c = NULL;
  ck_assert_int_eq(anim_clip_build(&raw, sk, NULL, &c, NULL), ANIM_OK);
  p2_t p;
  anim_motion_t m = run_at(sk, c, 4.0, ANIM_WRAP_LOOP, xz_yaw(), &p);
  ck_assert_float_eq_tol(m.translation.x, 0, 1e-5f);
  ck_assert_float_eq_tol(m.translation.z, 0, 1e-5f);
  ck_assert_float_eq_tol(fabsf(m.rotation.w), 1, 1e-5f);
  m = run_at(sk, c, 2.0, ANIM_WRAP_LOOP, xz_yaw(), &p);
  /* L = (1,0,0) after +90 about y; L^2 = (1,0,0) + R90 (1,0,0). */
  ck_assert_float_eq_tol(m.translation.x, 1, 1e-5f);
  ck_assert_float_eq_tol(m.translation.z, -1, 1e-5f);
  double want[4] = {0, 1, 0, 0};
  ck_assert_double_le(tf_quat_dist(m.rotation, want), 1e-5);
  /* The reference "first" is the clip's first frame: the same here. */
  anim_motion_settings_t s = xz_yaw();
  s.reference = ANIM_MOTION_REF_FIRST;
  m = run_at(sk, c, 2.0, ANIM_WRAP_LOOP, s, &p);
  ck_assert_float_eq_tol(m.translation.z, -1, 1e-5f);
  anim_clip_free(c);
  anim_skeleton_free(sk);
}
END_TEST

/* ozz MotionBlendingJob: directions and lengths, sign-aligned rotations. */
START_TEST(test_blend) {
  float h = (float)M_SQRT1_2;
  anim_motion_t ms[3] = {
      {anim_vec3(1, 0, 0), anim_quat_identity()},
      {anim_vec3(0, 0, 3), anim_quat(0, -h, 0, -h)}, /* -(90 about y) */
      {anim_vec3(9, 9, 9), anim_quat_identity()}};
  float w[3] = {1, 1, 0};
  anim_motion_t out;
  anim_motion_blend_job_t job = {
      .motions = ms, .weights = w, .count = 3, .output = &out};
  ck_assert_int_eq(anim_motion_blend_job_run(&job), ANIM_OK);
  ck_assert_float_eq_tol(out.translation.x, (float)M_SQRT2, 1e-6f);
  ck_assert_float_eq_tol(out.translation.y, 0, 1e-6f);
  ck_assert_float_eq_tol(out.translation.z, (float)M_SQRT2, 1e-6f);
  double want[4] = {0, sin(M_PI / 8), 0, cos(M_PI / 8)};
  ck_assert_double_le(tf_quat_dist(out.rotation, want), 1e-6);
  w[0] = w[1] = 0;
  ck_assert_int_eq(anim_motion_blend_job_run(&job), ANIM_OK);
  ck_assert_float_eq(out.translation.x, 0);
  ck_assert_float_eq(out.rotation.w, 1);
}
END_TEST

START_TEST(test_validate) {
  anim_skeleton_t *sk = skel();
  p2_t p;
  anim_motion_t m;
  anim_motion_extract_job_t job = {.skeleton = sk,
                                   .settings = xz_yaw(),
                                   .pose = {p.t, p.q, p.s, 2},
                                   .output = &m};
  ck_assert_int_eq(anim_motion_extract_job_validate(&job), ANIM_OK);
  job.settings.joint = 2;
  ck_assert_int_eq(anim_motion_extract_job_validate(&job),
                   ANIM_ERR_JOINT_RANGE);
  job.settings.joint = 0;
  job.settings.translation = 8;
  ck_assert_int_eq(anim_motion_extract_job_validate(&job),
                   ANIM_ERR_INVALID_ARGUMENT);
  job.settings.translation = 0;
  job.settings.rotation = ANIM_MOTION_ROTATION_COUNT_;
  ck_assert_int_eq(anim_motion_extract_job_validate(&job),
                   ANIM_ERR_INVALID_ARGUMENT);
  job.settings.rotation = ANIM_MOTION_YAW;
  job.pose.joint_count = 1;
  ck_assert_int_eq(anim_motion_extract_job_validate(&job),
                   ANIM_ERR_BUFFER_TOO_SMALL);
  job.pose.joint_count = 2;
  job.output = NULL;
  ck_assert_int_eq(anim_motion_extract_job_validate(&job),
                   ANIM_ERR_INVALID_ARGUMENT);
  anim_skeleton_free(sk);
}
END_TEST

Suite *motion_suite(void) {
  Suite *s = suite_create("motion");
  TCase *tc = tcase_create("root");
  tcase_add_test(tc, test_loops_accumulate);
  tcase_add_test(tc, test_pingpong);
  tcase_add_test(tc, test_roundtrip);
  tcase_add_test(tc, test_yaw_heading);
  tcase_add_test(tc, test_turning_loop);
  tcase_add_test(tc, test_blend);
  tcase_add_test(tc, test_validate);
  suite_add_tcase(s, tc);
  return s;
}
