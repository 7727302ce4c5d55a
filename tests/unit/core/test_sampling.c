/* Tests for the sampling job: each interpolation against hand-computed
 * values (the arithmetic is in the comments), shortest-path slerp against
 * the closed form, keys and clamping at the ends, rest values for
 * untracked joints, orient, the sampling context and the fixed-rate
 * lookup against binary search, and validate() per bad field. */
#include <check.h>

#include "test_skeleton_fixtures.h"

#define TOL 1e-5f

static anim_raw_joint_t J(const char *name, int32_t parent) {
  anim_raw_joint_t j;
  memset(&j, 0, sizeof j);
  j.name = name;
  j.parent = parent;
  j.rest.rotation.w = 1.f;
  j.rest.scale.x = j.rest.scale.y = j.rest.scale.z = 1.f;
  return j;
}

/* Two joints: "a" (root, rest translation (7,8,9)) and "b" (child). */
static anim_skeleton_t *skel2(const anim_quat_t *orient_b) {
  anim_raw_joint_t j[2] = {J("b", 1), J("a", -1)};
  j[1].rest.translation = (anim_vec3_t){7, 8, 9};
  j[1].rest.rotation = (anim_quat_t){0, 1, 0, 0};
  if (orient_b != NULL) j[0].orient = *orient_b;
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = 2};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  return s;
}

typedef struct out2_s {
  anim_vec3_t t[2], s[2];
  anim_quat_t q[2];
} out2_t;

static void sample(const anim_skeleton_t *sk, const anim_clip_t *c, float t,
                   out2_t *o) {
  anim_sampling_job_t job = {
      .skeleton = sk, .clip = c, .time = t, .output = {o->t, o->q, o->s, 2}};
  ck_assert_int_eq(anim_sampling_job_run(&job), ANIM_OK);
}

static anim_clip_t *one_track(const anim_skeleton_t *sk, uint32_t joint,
                              anim_path path, anim_interp interp,
                              const float *times, size_t n, const float *values,
                              size_t nv, const float *bezier) {
  anim_raw_track_t tr = {joint, path, interp, times, n, values, nv, bezier};
  anim_raw_clip_t raw = {"c", &tr, 1, 0.f, NULL, 0, NULL, 0};
  anim_clip_t *c = NULL;
  anim_build_error_t err;
  anim_result r = anim_clip_build(&raw, sk, NULL, &c, &err);
  ck_assert_msg(r == ANIM_OK, "%s", err.message);
  return c;
}

static void assert_quat(anim_quat_t q, double x, double y, double z, double w,
                        double tol) {
  double p[4] = {x, y, z, w};
  ck_assert_msg(tf_quat_dist(q, p) < tol, "(%g %g %g %g) vs (%g %g %g %g)", q.x,
                q.y, q.z, q.w, x, y, z, w);
}

/* ---- interpolations ------------------------------------------------------ */

START_TEST(test_step) {
  anim_skeleton_t *s = skel2(NULL);
  const float times[3] = {0.5f, 1.f, 2.f};
  const float v[9] = {1, 1, 1, 2, 2, 2, 3, 3, 3};
  anim_clip_t *c = one_track(s, 0, ANIM_PATH_TRANSLATION, ANIM_INTERP_STEP,
                             times, 3, v, 9, NULL);
  const float at[][2] = {{0.f, 1},     {0.5f, 1}, {0.75f, 1},
                         {0.999f, 1},  {1.f, 2},  {1.5f, 2},
                         {1.9999f, 2}, {2.f, 3},  {5.f, 3}};
  out2_t o;
  for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
    sample(s, c, at[i][0], &o);
    ck_assert_msg(o.t[1].x == at[i][1], "t=%g: %g", at[i][0], o.t[1].x);
    ck_assert_float_eq(o.t[1].z, at[i][1]);
  }
  /* Joint "a" (storage 0) has no track: rest values, rotation too. */
  ck_assert_float_eq(o.t[0].x, 7.f);
  ck_assert_float_eq(o.q[0].y, 1.f);
  ck_assert_float_eq(o.s[1].x, 1.f);
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_linear_vectors) {
  anim_skeleton_t *s = skel2(NULL);
  const float times[3] = {1.f, 2.f, 4.f};
  const float v[9] = {0, 0, 0, 1, 2, 3, 3, 2, 1};
  anim_clip_t *c = one_track(s, 1, ANIM_PATH_SCALE, ANIM_INTERP_LINEAR, times,
                             3, v, 9, NULL);
  out2_t o;
  sample(s, c, 0.f, &o); /* before the first key: the first value */
  ck_assert_float_eq(o.s[0].y, 0.f);
  sample(s, c, 1.25f, &o); /* 0.25 of (1,2,3) */
  ck_assert_float_eq_tol(o.s[0].x, 0.25f, TOL);
  ck_assert_float_eq_tol(o.s[0].z, 0.75f, TOL);
  sample(s, c, 2.f, &o); /* exactly key 1 */
  ck_assert_float_eq(o.s[0].y, 2.f);
  sample(s, c, 3.5f, &o); /* 0.75 from (1,2,3) to (3,2,1): (2.5,2,1.5) */
  ck_assert_float_eq_tol(o.s[0].x, 2.5f, TOL);
  ck_assert_float_eq_tol(o.s[0].z, 1.5f, TOL);
  sample(s, c, 9.f, &o); /* clamp: the last value */
  ck_assert_float_eq(o.s[0].x, 3.f);
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

/* Keys identity and -(90 deg about z) = (0,0,-s45,-c45): the short way is
 * the +90 deg turn, so the midpoint is 45 deg about z:
 * (0, 0, sin 22.5, cos 22.5) up to sign. */
START_TEST(test_linear_slerp_shortest) {
  anim_skeleton_t *s = skel2(NULL);
  const float h = (float)M_SQRT1_2;
  const float times[2] = {0.f, 1.f};
  const float v[8] = {0, 0, 0, 1, 0, 0, -h, -h};
  anim_clip_t *c = one_track(s, 0, ANIM_PATH_ROTATION, ANIM_INTERP_LINEAR,
                             times, 2, v, 8, NULL);
  out2_t o;
  sample(s, c, 0.5f, &o);
  assert_quat(o.q[1], 0, 0, sin(M_PI / 8), cos(M_PI / 8), 1e-6);
  sample(s, c, 0.25f, &o); /* 22.5 deg */
  assert_quat(o.q[1], 0, 0, sin(M_PI / 16), cos(M_PI / 16), 1e-6);
  sample(s, c, 0.f, &o);
  ck_assert_float_eq(o.q[1].w, 1.f);
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

/* Slerp of random key pairs (all arcs, both signs) against the closed form
 * sin((1-u)th)/sin th a + sin(u th)/sin th b in double. */
START_TEST(test_linear_slerp_random) {
  anim_skeleton_t *s = skel2(NULL);
  tf_rng_t rng = {0xabcdefu};
  double worst = 0;
  for (int it = 0; it < 300; it++) {
    anim_quat_t a = tf_rand_quat(&rng), b = tf_rand_quat(&rng);
    if (it % 3 == 0) { /* nearby keys, as at 30 fps */
      float e = tf_range(&rng, 0.f, 0.2f);
      b = (anim_quat_t){a.x + e * b.x, a.y + e * b.y, a.z + e * b.z,
                        a.w + e * b.w};
      float l = sqrtf(b.x * b.x + b.y * b.y + b.z * b.z + b.w * b.w);
      b = (anim_quat_t){b.x / l, b.y / l, b.z / l, b.w / l};
    }
    const float times[2] = {0.f, 1.f};
    const float v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    anim_clip_t *c = one_track(s, 0, ANIM_PATH_ROTATION, ANIM_INTERP_LINEAR,
                               times, 2, v, 8, NULL);
    float u = tf_range(&rng, 0.f, 1.f);
    out2_t o;
    sample(s, c, u, &o);
    double A[4] = {a.x, a.y, a.z, a.w}, B[4] = {b.x, b.y, b.z, b.w};
    double d = A[0] * B[0] + A[1] * B[1] + A[2] * B[2] + A[3] * B[3];
    if (d < 0) {
      for (int k = 0; k < 4; k++) B[k] = -B[k];
      d = -d;
    }
    double th = acos(fmin(d, 1.0)), R[4];
    for (int k = 0; k < 4; k++)
      R[k] = th < 1e-9
                 ? A[k]
                 : (sin((1 - u) * th) * A[k] + sin(u * th) * B[k]) / sin(th);
    double e = tf_quat_dist(o.q[1], R);
    worst = fmax(worst, e);
    anim_clip_free(c);
  }
  ck_assert_msg(worst < 4e-6, "worst %g", worst);
  anim_skeleton_free(s);
}
END_TEST

/* glTF Hermite, keys at t = 0 and 2 (dt = 2), per key (in, value, out):
 *   key 0: in (0,0,0)  v (1,2,3)  out (0.5,0,-1)
 *   key 1: in (1,0,0)  v (3,2,1)  out (9,9,9)
 * At t = 0.5: s = 0.25, s^2 = 0.0625, s^3 = 0.015625,
 *   h00 = 2s^3 - 3s^2 + 1 = 0.84375, h10 = (s^3 - 2s^2 + s) dt = 0.28125,
 *   h01 = -2s^3 + 3s^2 = 0.15625, h11 = (s^3 - s^2) dt = -0.09375.
 *   x = 0.84375*1 + 0.28125*0.5 + 0.15625*3 - 0.09375*1 = 1.359375
 *   y = 0.84375*2 + 0.15625*2 = 2
 *   z = 0.84375*3 - 0.28125*1 + 0.15625*1 = 2.40625 */
START_TEST(test_cubicspline) {
  anim_skeleton_t *s = skel2(NULL);
  const float times[2] = {0.f, 2.f};
  const float v[18] = {0, 0, 0, 1, 2, 3, 0.5f, 0, -1,
                       1, 0, 0, 3, 2, 1, 9,    9, 9};
  anim_clip_t *c = one_track(s, 0, ANIM_PATH_TRANSLATION,
                             ANIM_INTERP_CUBICSPLINE, times, 2, v, 18, NULL);
  out2_t o;
  sample(s, c, 0.5f, &o);
  ck_assert_float_eq_tol(o.t[1].x, 1.359375f, TOL);
  ck_assert_float_eq_tol(o.t[1].y, 2.f, TOL);
  ck_assert_float_eq_tol(o.t[1].z, 2.40625f, TOL);
  sample(s, c, 2.f, &o); /* the value of key 1, not a tangent */
  ck_assert_float_eq(o.t[1].x, 3.f);
  sample(s, c, -1.f, &o);
  ck_assert_float_eq(o.t[1].z, 3.f);
  anim_clip_free(c);

  /* Rotation, zero tangents, keys identity and (0,0,1,0), t = 0.25 of
   * [0, 0.5]: s = 0.5, h00 = h01 = 0.5: (0,0,0.5,0.5), normalized
   * (0, 0, 0.70711, 0.70711). */
  const float rt[2] = {0.f, 0.5f};
  float rv[24] = {0};
  rv[4 + 3] = 1.f;
  rv[16 + 2] = 1.f;
  c = one_track(s, 0, ANIM_PATH_ROTATION, ANIM_INTERP_CUBICSPLINE, rt, 2, rv,
                24, NULL);
  sample(s, c, 0.25f, &o);
  assert_quat(o.q[1], 0, 0, M_SQRT1_2, M_SQRT1_2, 1e-6);
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

/* Easing curve (x1,y1,x2,y2) = (0.25, 0.1, 0.25, 1) on the segment from
 * key 0 (t = 1) to key 1 (t = 3):
 *   x(s) = 3(1-s)^2 s x1 + 3(1-s) s^2 x2 + s^3,  y likewise with y1, y2.
 *   s = 0.5:  x = 0.09375 + 0.09375 + 0.125 = 0.3125,
 *             y = 0.0375 + 0.375 + 0.125 = 0.5375
 *   s = 0.25: x = 0.10546875 + 0.03515625 + 0.015625 = 0.15625,
 *             y = 0.0421875 + 0.140625 + 0.015625 = 0.1984375
 * so at t = 1 + 2 * 0.3125 = 1.625 the factor is 0.5375 and at t = 1.3125
 * it is 0.1984375. */
START_TEST(test_bezier) {
  anim_skeleton_t *s = skel2(NULL);
  const float times[2] = {1.f, 3.f};
  const float v[6] = {0, 0, 0, 10, -10, 0};
  const float bez[8] = {0.25f, 0.1f, 0.25f, 1.f, 0.f, 0.f, 0.f, 0.f};
  anim_clip_t *c = one_track(s, 0, ANIM_PATH_TRANSLATION, ANIM_INTERP_BEZIER,
                             times, 2, v, 6, bez);
  out2_t o;
  sample(s, c, 1.625f, &o);
  ck_assert_float_eq_tol(o.t[1].x, 5.375f, 1e-4f);
  ck_assert_float_eq_tol(o.t[1].y, -5.375f, 1e-4f);
  sample(s, c, 1.3125f, &o);
  ck_assert_float_eq_tol(o.t[1].x, 1.984375f, 1e-4f);
  anim_clip_free(c);

  /* Rotation: identity to 90 deg about x, factor 0.5375 at t = 1.625:
   * 48.375 deg about x. */
  const float h = (float)M_SQRT1_2;
  const float rv[8] = {0, 0, 0, 1, h, 0, 0, h};
  c = one_track(s, 0, ANIM_PATH_ROTATION, ANIM_INTERP_BEZIER, times, 2, rv, 8,
                bez);
  sample(s, c, 1.625f, &o);
  double half = 0.5375 * M_PI / 4;
  assert_quat(o.q[1], sin(half), 0, 0, cos(half), 2e-5);
  anim_clip_free(c);

  /* A linear curve (x1 = y1, x2 = y2) gives plain lerp. */
  const float lin[8] = {0.3f, 0.3f, 0.6f, 0.6f, 0, 0, 0, 0};
  c = one_track(s, 0, ANIM_PATH_TRANSLATION, ANIM_INTERP_BEZIER, times, 2, v, 6,
                lin);
  sample(s, c, 2.5f, &o);
  ck_assert_float_eq_tol(o.t[1].x, 7.5f, 1e-4f);
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

/* SQUAD about one axis: with half-angles phi = 0, 10, 30, 45 deg at t = 0,
 * 1, 2, 3, squad setup gives on segment 1 (phi1 = 10, phi2 = 30)
 *   a = phi1 - (phi2 + phi0 - 2 phi1) / 4 = 10 - 2.5 = 7.5
 *   b = phi2 - (phi3 + phi1 - 2 phi2) / 4 = 30 + 1.25 = 31.25
 * and at u = 0.5: A = 20, B = 19.375, A + 2u(1-u)(B - A) = 19.6875 deg
 * half-angle. The ends clamp their missing neighbour to the end key:
 * segment 0 (phi0 := phi1 = 0): a = -2.5, b = 7.5, A = 5, B = 2.5, 3.75;
 * segment 2 (phi3 := phi2 = 45): a = 31.25, b = 48.75, A = 37.5, B = 40,
 * 38.75. Vectors: uniform Catmull-Rom through 0, 1, 4, 9 gives 2.25
 * halfway between 1 and 4. Both pass through their keys. */
START_TEST(test_squad) {
  anim_skeleton_t *s = skel2(NULL);
  const float times[4] = {0.f, 1.f, 2.f, 3.f};
  const double phi[4] = {0, 10, 30, 45};
  float rv[16];
  for (int k = 0; k < 4; k++) {
    double r = phi[k] * M_PI / 180;
    rv[4 * k] = 0;
    rv[4 * k + 1] = 0;
    rv[4 * k + 2] = (float)sin(r);
    rv[4 * k + 3] = (float)cos(r);
  }
  anim_clip_t *c = one_track(s, 0, ANIM_PATH_ROTATION, ANIM_INTERP_SQUAD, times,
                             4, rv, 16, NULL);
  out2_t o;
  sample(s, c, 1.5f, &o);
  const double mid[3] = {3.75, 19.6875, 38.75};
  for (int seg = 0; seg < 3; seg++) {
    sample(s, c, (float)seg + 0.5f, &o);
    double r = mid[seg] * M_PI / 180;
    assert_quat(o.q[1], 0, 0, sin(r), cos(r), 2e-5);
  }
  for (int k = 0; k < 4; k++) {
    double q[4] = {rv[4 * k], rv[4 * k + 1], rv[4 * k + 2], rv[4 * k + 3]};
    for (int side = -1; side <= 1; side++) {
      float t = times[k] + side * 1e-4f;
      sample(s, c, t, &o);
      ck_assert_msg(tf_quat_dist(o.q[1], q) < (side == 0 ? 1e-6 : 1e-3),
                    "key %d side %d", k, side);
      float l = sqrtf(o.q[1].x * o.q[1].x + o.q[1].y * o.q[1].y +
                      o.q[1].z * o.q[1].z + o.q[1].w * o.q[1].w);
      ck_assert_float_eq_tol(l, 1.f, 1e-5f);
    }
  }
  anim_clip_free(c);

  const float tv[12] = {0, 0, 0, 1, 1, 1, 4, 4, 4, 9, 9, 9};
  c = one_track(s, 0, ANIM_PATH_TRANSLATION, ANIM_INTERP_SQUAD, times, 4, tv,
                12, NULL);
  sample(s, c, 1.5f, &o);
  ck_assert_float_eq_tol(o.t[1].x, 2.25f, TOL);
  for (int k = 0; k < 4; k++) {
    sample(s, c, times[k], &o);
    ck_assert_float_eq(o.t[1].y, tv[3 * k]);
  }
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

/* Orient o (90 deg about y) times the animated rotation; untracked
 * rotations get o * rest. */
START_TEST(test_orient_applied) {
  const float h = (float)M_SQRT1_2;
  anim_quat_t o_b = {0, h, 0, h};
  anim_skeleton_t *s = skel2(&o_b);
  const float times[1] = {0.f};
  const float v[4] = {h, 0, 0, h}; /* 90 deg about x */
  anim_clip_t *c = one_track(s, 0, ANIM_PATH_ROTATION, ANIM_INTERP_LINEAR,
                             times, 1, v, 4, NULL);
  out2_t o;
  sample(s, c, 0.3f, &o);
  /* (0,h,0,h) * (h,0,0,h) = (h*h, h*h, -h*h, h*h) = (.5,.5,-.5,.5). */
  assert_quat(o.q[1], 0.5, 0.5, -0.5, 0.5, 1e-6);
  anim_clip_free(c);
  anim_raw_clip_t none = {"", NULL, 0, 0.f, NULL, 0, NULL, 0};
  ck_assert_int_eq(anim_clip_build(&none, s, NULL, &c, NULL), ANIM_OK);
  sample(s, c, 0.f, &o);
  assert_quat(o.q[1], 0, h, 0, h, 1e-6);
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_sampled_time_and_wrap) {
  anim_skeleton_t *s = skel2(NULL);
  const float times[2] = {0.f, 2.f};
  const float v[6] = {0, 0, 0, 2, 0, 0};
  anim_clip_t *c = one_track(s, 0, ANIM_PATH_TRANSLATION, ANIM_INTERP_LINEAR,
                             times, 2, v, 6, NULL);
  out2_t o;
  float st = -1;
  anim_sampling_job_t job = {.skeleton = s,
                             .clip = c,
                             .time = 2.5f,
                             .wrap = ANIM_WRAP_LOOP,
                             .output = {o.t, o.q, o.s, 2},
                             .sampled_time = &st};
  ck_assert_int_eq(anim_sampling_job_run(&job), ANIM_OK);
  ck_assert_float_eq_tol(st, 0.5f, 1e-6f);
  ck_assert_float_eq_tol(o.t[1].x, 0.5f, 1e-6f);
  job.wrap = ANIM_WRAP_PINGPONG;
  job.time = 3.5f; /* 4 - 3.5 = 0.5 */
  ck_assert_int_eq(anim_sampling_job_run(&job), ANIM_OK);
  ck_assert_float_eq_tol(st, 0.5f, 1e-6f);
  job.wrap = ANIM_WRAP_CLAMP;
  job.time = 2.5f;
  ck_assert_int_eq(anim_sampling_job_run(&job), ANIM_OK);
  ck_assert_float_eq(st, 2.f);
  ck_assert_float_eq(o.t[1].x, 2.f);
  job.time = NAN;
  ck_assert_int_eq(anim_sampling_job_run(&job), ANIM_OK);
  ck_assert_float_eq(st, 0.f);
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

/* Query times stay double until wrapped: t = 18.77 s and t = 3 days (plus
 * a fraction) under LOOP against the double-precision closed form. The
 * clip (duration d = 1.3f) turns joint b about z by (pi / 2) * u and moves
 * it by 1000 * u along x, u = (t mod d) / d; b's parent a is at (7, 8, 9),
 * turned by pi about y. Wrapped in float, 18.77 s alone is 4.6e-7 s off
 * (3.5e-4 in b's x) and 3 days are off by up to 8 ms. */
START_TEST(test_time_precision_long_clock) {
  anim_skeleton_t *s = skel2(NULL);
  const float d = 1.3f;
  const float times[2] = {0.f, d};
  const float move[6] = {0, 0, 0, 1000, 0, 0};
  const float turn[8] = {0, 0, 0, 1, 0, 0, (float)M_SQRT1_2, (float)M_SQRT1_2};
  const anim_raw_track_t tr[2] = {
      {0, ANIM_PATH_TRANSLATION, ANIM_INTERP_LINEAR, times, 2, move, 6, NULL},
      {0, ANIM_PATH_ROTATION, ANIM_INTERP_LINEAR, times, 2, turn, 8, NULL}};
  anim_raw_clip_t raw = {"long", tr, 2, 0.f, NULL, 0, NULL, 0};
  anim_clip_t *c = NULL;
  ck_assert_int_eq(anim_clip_build(&raw, s, NULL, &c, NULL), ANIM_OK);
  const double day = 86400.0;
  const double ts[] = {18.77, 3 * day + 0.77, 3 * day + 1.2999, 7 * day + 0.1,
                       1e9 + 0.5};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
    const double local = fmod(ts[i], (double)d);
    const double u = local / (double)d;
    ck_assert_msg(fabs(anim_wrap_time(ts[i], d, ANIM_WRAP_LOOP) - local) <=
                      1e-7 * (1.0 + local) + fabs(ts[i]) * 1e-16,
                  "t=%.17g: %.9g vs %.17g", ts[i],
                  (double)anim_wrap_time(ts[i], d, ANIM_WRAP_LOOP), local);
    out2_t o;
    anim_mat4_t model[2];
    float st = -1.f;
    anim_sampling_job_t job = {.skeleton = s,
                               .clip = c,
                               .time = ts[i],
                               .wrap = ANIM_WRAP_LOOP,
                               .output = {o.t, o.q, o.s, 2},
                               .sampled_time = &st};
    ck_assert_int_eq(anim_sampling_job_run(&job), ANIM_OK);
    anim_local_to_model_job_t lm = {
        .skeleton = s, .input = job.output, .output = model, .output_count = 2};
    ck_assert_int_eq(anim_local_to_model_job_run(&lm), ANIM_OK);
    /* M_b = M_a * T_b * R_b, M_a = (7, 8, 9) * (pi about y). */
    const double th = 0.5 * M_PI * u, x = 1000.0 * u;
    const double want[16] = {-cos(th), sin(th), 0,  0, sin(th), cos(th), 0, 0,
                             0,        0,       -1, 0, 7 - x,   8,       9, 1};
    for (int e = 0; e < 16; e++)
      ck_assert_msg(fabs(model[1].m[e] - want[e]) <= 1e-6 * 1000.0,
                    "t=%.17g e=%d: %.9g vs %.9g", ts[i], e,
                    (double)model[1].m[e], want[e]);
    /* b's x within a few float steps of 1000 * u (3.5e-4 when the query
     * time is rounded to float first). */
    ck_assert_msg(fabs(o.t[1].x - x) <= 1e-4, "t=%.17g: x %.9g vs %.9g", ts[i],
                  (double)o.t[1].x, x);
  }
  /* Rounding to float never reaches the end of a LOOP; PINGPONG in
   * double too. */
  ck_assert_float_lt(anim_wrap_time(2.0 * 1e6 - 1e-10, 2.f, ANIM_WRAP_LOOP),
                     2.f);
  ck_assert(fabs(anim_wrap_time(3 * day + 2.77, 2.f, ANIM_WRAP_PINGPONG) -
                 1.23) <= 1e-7);
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

/* ---- context and fixed-rate lookups -------------------------------------- */

/* A clip on a random tree with every interpolation, irregular key times
 * on odd tracks and a 30 fps grid on even ones. */
typedef struct big_s {
  tf_tree_t tree;
  anim_skeleton_t *sk;
  anim_clip_t *clip;
  float *mem;
} big_t;

static void big_make(big_t *b, uint32_t n, uint64_t seed) {
  tf_rng_t rng = {seed};
  tf_tree_make(&b->tree, n, &rng, 1);
  anim_raw_skeleton_t raw = {.joints = b->tree.joints, .joint_count = n};
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &b->sk, NULL), ANIM_OK);
  uint32_t tc = 2 * n;
  anim_raw_track_t *tr = calloc(tc, sizeof *tr);
  b->mem = calloc((size_t)tc * 50 * 20, sizeof(float));
  float *m = b->mem;
  uint32_t keys = 0;
  const float *prev_times = NULL;
  for (uint32_t i = 0; i < tc; i++) {
    /* Every fourth track repeats the previous track's key times. */
    bool same = i % 4 == 1;
    if (!same) keys = 1 + (uint32_t)(tf_next(&rng) % 40);
    anim_path path = (anim_path)(i % 3);
    anim_interp ip = (anim_interp)(tf_next(&rng) % ANIM_INTERP_COUNT_);
    uint32_t comp = path == ANIM_PATH_ROTATION ? 4 : 3;
    uint32_t stride = ip == ANIM_INTERP_CUBICSPLINE ? 3 * comp : comp;
    float *times = m, *values = m + keys, *bez = values + keys * stride;
    m = bez + 4 * keys;
    float t = tf_range(&rng, 0.f, 0.2f);
    for (uint32_t k = 0; k < keys; k++) {
      times[k] = same ? prev_times[k] : (i % 2 == 0) ? (float)k / 30.f : t;
      t += tf_range(&rng, 0.01f, 0.1f);
      for (uint32_t e = 0; e < stride; e++)
        values[k * stride + e] = tf_range(&rng, -1.f, 1.f);
      for (int e = 0; e < 4; e++) bez[4 * k + e] = tf_range(&rng, 0.f, 1.f);
    }
    prev_times = times;
    /* (joint, path) = (i / 3, i % 3) is unique, and i / 3 < n. */
    tr[i] = (anim_raw_track_t){i / 3,  path,          ip, times, keys,
                               values, keys * stride, bez};
  }
  anim_raw_clip_t rc = {"big", tr, tc, 0.f, NULL, 0, NULL, 0};
  anim_build_error_t err;
  anim_result r = anim_clip_build(&rc, b->sk, NULL, &b->clip, &err);
  ck_assert_msg(r == ANIM_OK, "%s", err.message);
  free(tr);
}

static void big_free(big_t *b) {
  anim_clip_free(b->clip);
  anim_skeleton_free(b->sk);
  tf_tree_free(&b->tree);
  free(b->mem);
}

typedef struct poses_s {
  anim_vec3_t *t, *s;
  anim_quat_t *q;
  uint32_t n;
} poses_t;

static void poses_init(poses_t *p, uint32_t n) {
  p->n = n;
  p->t = calloc(n, sizeof *p->t);
  p->s = calloc(n, sizeof *p->s);
  p->q = calloc(n, sizeof *p->q);
}

static void poses_free(poses_t *p) {
  free(p->t);
  free(p->s);
  free(p->q);
}

static void run(const big_t *b, const anim_clip_t *clip,
                anim_sampling_context_t *ctx, float t, poses_t *p) {
  anim_sampling_job_t job = {.skeleton = b->sk,
                             .clip = clip,
                             .time = t,
                             .context = ctx,
                             .output = {p->t, p->q, p->s, p->n}};
  ck_assert_int_eq(anim_sampling_job_run(&job), ANIM_OK);
}

static void assert_same(const poses_t *a, const poses_t *b) {
  ck_assert(memcmp(a->t, b->t, a->n * sizeof *a->t) == 0);
  ck_assert(memcmp(a->q, b->q, a->n * sizeof *a->q) == 0);
  ck_assert(memcmp(a->s, b->s, a->n * sizeof *a->s) == 0);
}

START_TEST(test_context_identical) {
  big_t b;
  big_make(&b, 60, 0x5eedu);
  ck_assert(b.clip->tracks[0].fixed_rate || b.clip->track_count > 0);
  poses_t p0, p1;
  poses_init(&p0, 60);
  poses_init(&p1, 60);
  uint32_t *cur = malloc(b.clip->track_count * sizeof *cur);
  anim_sampling_context_t ctx;
  ck_assert_int_eq(
      anim_sampling_context_init(&ctx, b.clip, cur, b.clip->track_count),
      ANIM_OK);
  tf_rng_t rng = {77};
  float d = b.clip->duration;
  for (int seq = 0; seq < 3; seq++) {
    for (int i = 0; i < 400; i++) {
      float t = seq == 0   ? -0.1f + (float)i / 300.f * d
                : seq == 1 ? d + 0.1f - (float)i / 300.f * d
                           : tf_range(&rng, -0.2f, d + 0.2f);
      if (i % 50 == 0 && seq < 2)
        t = seq == 0 ? (float)i / 300.f * d : d - (float)i / 300.f * d;
      run(&b, b.clip, NULL, t, &p0);
      run(&b, b.clip, &ctx, t, &p1);
      assert_same(&p0, &p1);
    }
  }
  /* Garbage cursors are only a slower search. */
  for (uint32_t i = 0; i < b.clip->track_count; i++) cur[i] = 0xfffffff0u - i;
  run(&b, b.clip, NULL, 0.37f * d, &p0);
  run(&b, b.clip, &ctx, 0.37f * d, &p1);
  assert_same(&p0, &p1);
  free(cur);
  poses_free(&p0);
  poses_free(&p1);
  big_free(&b);
}
END_TEST

/* The O(1) grid lookup gives bit-identical results to binary search, and
 * sharing the previous track's segment to locating every track: the same
 * clip with fixed_rate and _same_times cleared (a copy of its track table)
 * is sampled at random times and at the keys. */
START_TEST(test_fixed_rate_equals_search) {
  big_t b;
  big_make(&b, 40, 0x99u);
  anim_clip_t copy = *b.clip;
  anim_track_t *tracks = malloc(copy.track_count * sizeof *tracks);
  memcpy(tracks, b.clip->tracks, copy.track_count * sizeof *tracks);
  uint32_t fixed = 0, shared = 0;
  for (uint32_t i = 0; i < copy.track_count; i++) {
    fixed += tracks[i].fixed_rate;
    shared += tracks[i]._same_times;
    tracks[i].fixed_rate = 0;
    tracks[i]._same_times = 0;
  }
  ck_assert_uint_gt(fixed, copy.track_count / 3);
  ck_assert_uint_ge(shared, copy.track_count / 8);
  copy.tracks = tracks;
  poses_t p0, p1;
  poses_init(&p0, 40);
  poses_init(&p1, 40);
  tf_rng_t rng = {5};
  for (int i = 0; i < 2000; i++) {
    float t = i < 80 ? (float)i / 30.f : tf_range(&rng, -0.1f, 1.6f);
    run(&b, b.clip, NULL, t, &p0);
    run(&b, &copy, NULL, t, &p1);
    assert_same(&p0, &p1);
  }
  free(tracks);
  poses_free(&p0);
  poses_free(&p1);
  big_free(&b);
}
END_TEST

/* ---- validation ---------------------------------------------------------- */

START_TEST(test_validate) {
  anim_skeleton_t *s = skel2(NULL);
  const float times[2] = {0.f, 1.f};
  const float v[6] = {0, 0, 0, 1, 1, 1};
  anim_clip_t *c = one_track(s, 0, ANIM_PATH_TRANSLATION, ANIM_INTERP_LINEAR,
                             times, 2, v, 6, NULL);
  anim_raw_joint_t j3[3] = {J("x", -1), J("y", 0), J("z", 0)};
  anim_raw_skeleton_t raw3 = {.joints = j3, .joint_count = 3};
  anim_skeleton_t *s3 = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw3, NULL, &s3, NULL), ANIM_OK);
  anim_raw_clip_t none = {"", NULL, 0, 0.f, NULL, 0, NULL, 0};
  anim_clip_t *c3 = NULL;
  ck_assert_int_eq(anim_clip_build(&none, s3, NULL, &c3, NULL), ANIM_OK);

  out2_t o;
  uint32_t cur[4];
  anim_sampling_context_t ctx, ctx3;
  ck_assert_int_eq(anim_sampling_context_init(&ctx, c, cur, 1), ANIM_OK);
  ck_assert_int_eq(anim_sampling_context_init(&ctx3, c3, cur, 0), ANIM_OK);
  ck_assert_int_eq(anim_sampling_context_init(&ctx, c, cur, 0),
                   ANIM_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(anim_sampling_context_init(&ctx, c, NULL, 1),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_sampling_context_init(NULL, c, cur, 1),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_sampling_context_init(&ctx, NULL, cur, 1),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_sampling_context_init(&ctx, c, cur, 1), ANIM_OK);

  const anim_sampling_job_t good = {.skeleton = s,
                                    .clip = c,
                                    .time = 0.5f,
                                    .context = &ctx,
                                    .output = {o.t, o.q, o.s, 2}};
  ck_assert_int_eq(anim_sampling_job_validate(&good), ANIM_OK);
  ck_assert_int_eq(anim_sampling_job_validate(NULL), ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_sampling_job_run(NULL), ANIM_ERR_INVALID_ARGUMENT);
  anim_sampling_job_t j;
#define BAD(mutation, code)                                                    \
  do {                                                                         \
    j = good;                                                                  \
    mutation;                                                                  \
    ck_assert_int_eq(anim_sampling_job_validate(&j), code);                    \
    ck_assert_int_eq(anim_sampling_job_run(&j), code);                         \
  } while (0)
  BAD(j.skeleton = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.clip = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.skeleton = s3, ANIM_ERR_MISMATCH);
  BAD(j.wrap = ANIM_WRAP_COUNT_, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.output.translation = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.output.rotation = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.output.scale = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.output.joint_count = 1, ANIM_ERR_BUFFER_TOO_SMALL);
  BAD(j.context = &ctx3, ANIM_ERR_MISMATCH);
  BAD((j.context = &ctx, ctx.cursor_count = 0), ANIM_ERR_BUFFER_TOO_SMALL);
  BAD((ctx.cursor_count = 1, ctx.cursors = NULL), ANIM_ERR_INVALID_ARGUMENT);
#undef BAD
  anim_clip_free(c);
  anim_clip_free(c3);
  anim_skeleton_free(s);
  anim_skeleton_free(s3);
}
END_TEST

Suite *sampling_suite(void) {
  Suite *s = suite_create("sampling");
  TCase *tc = tcase_create("interpolation");
  tcase_add_test(tc, test_step);
  tcase_add_test(tc, test_linear_vectors);
  tcase_add_test(tc, test_linear_slerp_shortest);
  tcase_add_test(tc, test_linear_slerp_random);
  tcase_add_test(tc, test_cubicspline);
  tcase_add_test(tc, test_bezier);
  tcase_add_test(tc, test_squad);
  tcase_add_test(tc, test_orient_applied);
  tcase_add_test(tc, test_sampled_time_and_wrap);
  tcase_add_test(tc, test_time_precision_long_clock);
  suite_add_tcase(s, tc);
  tc = tcase_create("lookup");
  tcase_add_test(tc, test_context_identical);
  tcase_add_test(tc, test_fixed_rate_equals_search);
  tcase_add_test(tc, test_validate);
  suite_add_tcase(s, tc);
  return s;
}
