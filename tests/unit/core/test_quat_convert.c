/* Tests for building rotations: axis-angle both ways, rotation matrix to
 * quaternion (random rotations and every 180-degree turn about the axes and
 * the diagonals, built with Rodrigues' formula in double), yaw-pitch-roll
 * against composed single-axis rotations and closed forms, the rotation
 * between two vectors in its degenerate cases, and arcball points. */
#include "test_math_util.h"

static anim_quat_t ref_quat(double ax, double ay, double az, double angle) {
  double l = sqrt(ax * ax + ay * ay + az * az), s = sin(angle / 2) / l;
  return anim_quat((float)(ax * s), (float)(ay * s), (float)(az * s),
                   (float)cos(angle / 2));
}

START_TEST(test_axis_angle) {
  ck_assert_quat(anim_quat_from_axis_angle(anim_vec3(0, 0, 2), TEST_PI / 2),
                 ref_quat(0, 0, 1, TEST_PI / 2), TOL_Q);
  ck_assert_quat(anim_quat_from_axis_angle(anim_vec3(1, 1, 1), 1.0f),
                 ref_quat(1, 1, 1, 1.0), TOL_Q);
  ck_assert_quat(anim_quat_from_axis_angle(anim_vec3(0, 0, 0), 1.0f),
                 anim_quat_identity(), TOL_EXACT);
  anim_vec3_t axis;
  float angle;
  anim_quat_to_axis_angle(anim_quat_identity(), &axis, &angle);
  ck_assert_vec(axis, anim_vec3(1, 0, 0), TOL_EXACT);
  ck_assert_float_eq(angle, 0.0f);
  /* -q is the same rotation: reported with angle in [0, pi]. */
  anim_quat_t q = ref_quat(0, 1, 0, 0.5);
  anim_quat_to_axis_angle(anim_quat(-q.x, -q.y, -q.z, -q.w), &axis, &angle);
  ck_assert_vec(axis, anim_vec3(0, 1, 0), TOL_VEC);
  ck_assert_near(angle, 0.5, ANIM_EPS_ANGLE);
  /* 270 degrees about z is 90 degrees about -z. */
  anim_quat_to_axis_angle(ref_quat(0, 0, 1, 1.5 * TEST_PI), &axis, &angle);
  ck_assert_vec(axis, anim_vec3(0, 0, -1), TOL_VEC);
  ck_assert_near(angle, TEST_PI / 2, ANIM_EPS_ANGLE);
  test_rng r = {555u};
  for (int n = 0; n < 300; n++) {
    anim_vec3_t ax = anim_vec3_normalize(rng_vec(&r, -1, 1));
    float an = (float)rng_range(&r, 0.01, TEST_PI - 0.01);
    anim_quat_to_axis_angle(anim_quat_from_axis_angle(ax, an), &axis, &angle);
    ck_assert_vec(axis, ax, 4 * TOL_VEC);
    ck_assert_near(angle, an, ANIM_EPS_ANGLE);
  }
  /* NULL outputs are allowed. */
  anim_quat_to_axis_angle(q, NULL, NULL);
}
END_TEST

START_TEST(test_from_mat4_random) {
  test_rng r = {0xC0FFEEu};
  for (int n = 0; n < 1000; n++) {
    anim_vec3_t ax = rng_vec(&r, -1, 1);
    double l =
        sqrt((double)ax.x * ax.x + (double)ax.y * ax.y + (double)ax.z * ax.z);
    if (l < 1e-3) ax = anim_vec3(0, 0, 1);
    double an = rng_range(&r, -TEST_PI, TEST_PI);
    anim_mat4_t m = ref_rotation(ax.x, ax.y, ax.z, an);
    anim_quat_t q = anim_quat_from_mat4(&m);
    ck_assert_unit(q);
    ck_assert_quat_sign(q, ref_quat(ax.x, ax.y, ax.z, an), 4 * TOL_Q);
    /* And back: quaternion to matrix reproduces the reference matrix. */
    anim_mat4_t back = anim_mat4_from_quat(q);
    ck_assert_msg(mdiff(&back, &m) <= 4 * TOL_MAT, "matrix %d", n);
    /* Random quaternion -> matrix -> quaternion. */
    anim_quat_t u = rng_quat(&r);
    anim_mat4_t mu = anim_mat4_from_quat(u);
    ck_assert_quat_sign(anim_quat_from_mat4(&mu), u, 4 * TOL_Q);
  }
}
END_TEST

START_TEST(test_from_mat4_half_turns) {
  /* 180 degrees about the 3 axes, the 6 face diagonals and the 4 body
   * diagonals: trace -1, where a trace-only formula divides by zero. */
  static const double axes[13][3] = {
      {1, 0, 0},  {0, 1, 0},  {0, 0, 1}, {1, 1, 0},  {1, -1, 0},
      {1, 0, 1},  {1, 0, -1}, {0, 1, 1}, {0, 1, -1}, {1, 1, 1},
      {1, 1, -1}, {1, -1, 1}, {-1, 1, 1}};
  for (int i = 0; i < 13; i++) {
    for (int sign = -1; sign <= 1; sign += 2) {
      double ax = sign * axes[i][0], ay = sign * axes[i][1],
             az = sign * axes[i][2];
      anim_mat4_t m = ref_rotation(ax, ay, az, TEST_PI);
      anim_quat_t q = anim_quat_from_mat4(&m);
      ck_assert_unit(q);
      ck_assert_quat_sign(q, ref_quat(ax, ay, az, TEST_PI), TOL_Q);
      ck_assert_near(q.w, 0.0, TOL_Q);
      /* Near 180 too: pi - 1e-3 and pi + 1e-3. */
      for (int k = -1; k <= 1; k += 2) {
        double an = TEST_PI + k * 1e-3;
        anim_mat4_t mk = ref_rotation(ax, ay, az, an);
        ck_assert_quat_sign(anim_quat_from_mat4(&mk), ref_quat(ax, ay, az, an),
                            2 * TOL_Q);
      }
    }
  }
  anim_mat4_t id = anim_mat4_identity();
  ck_assert_quat(anim_quat_from_mat4(&id), anim_quat_identity(), TOL_EXACT);
}
END_TEST

START_TEST(test_yaw_pitch_roll) {
  anim_vec3_t X = anim_vec3(1, 0, 0), Y = anim_vec3(0, 1, 0),
              Z = anim_vec3(0, 0, 1);
  test_rng r = {8086u};
  for (int n = 0; n < 300; n++) {
    float yaw = (float)rng_range(&r, -TEST_PI, TEST_PI);
    float pitch = (float)rng_range(&r, -TEST_PI, TEST_PI);
    float roll = (float)rng_range(&r, -TEST_PI, TEST_PI);
    anim_quat_t q = anim_quat_from_yaw_pitch_roll(yaw, pitch, roll);
    anim_quat_t ref = anim_quat_mul(
        ref_quat(0, 1, 0, yaw),
        anim_quat_mul(ref_quat(1, 0, 0, pitch), ref_quat(0, 0, 1, roll)));
    ck_assert_unit(q);
    ck_assert_quat_sign(q, ref, 2 * TOL_Q);
    /* As matrices: Ry * Rx * Rz from Rodrigues, applied to a vector. */
    anim_mat4_t ry = ref_rotation(0, 1, 0, yaw),
                rx = ref_rotation(1, 0, 0, pitch),
                rz = ref_rotation(0, 0, 1, roll);
    anim_vec3_t v = rng_vec(&r, -1, 1);
    anim_vec3_t w = ref_apply(&ry, ref_apply(&rx, ref_apply(&rz, v)));
    ck_assert_vec(anim_quat_rotate(q, v), w, 8 * TOL_VEC);
  }
  /* Closed forms: yaw turns z toward x, pitch turns y toward z, roll turns
   * x toward y (right-handed, counter-clockwise). */
  float a = 0.7f;
  ck_assert_vec(anim_quat_rotate(anim_quat_from_yaw_pitch_roll(a, 0, 0), Z),
                anim_vec3(sinf(a), 0, cosf(a)), TOL_VEC);
  ck_assert_vec(anim_quat_rotate(anim_quat_from_yaw_pitch_roll(0, a, 0), Y),
                anim_vec3(0, cosf(a), sinf(a)), TOL_VEC);
  ck_assert_vec(anim_quat_rotate(anim_quat_from_yaw_pitch_roll(0, 0, a), X),
                anim_vec3(cosf(a), sinf(a), 0), TOL_VEC);
  /* Roll applies first: roll 90 then yaw 90 takes x to y (roll), and y is
   * unchanged by yaw; yaw first would give -z then roll keeps -z. */
  float h = (float)(TEST_PI / 2);
  ck_assert_vec(anim_quat_rotate(anim_quat_from_yaw_pitch_roll(h, 0, h), X), Y,
                TOL_VEC);
}
END_TEST

static void check_from_to(anim_vec3_t f, anim_vec3_t t) {
  anim_quat_t q = anim_quat_from_to(f, t);
  ck_assert(isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w));
  ck_assert_unit(q);
  anim_vec3_t fn = anim_vec3_normalize(f), tn = anim_vec3_normalize(t);
  ck_assert_vec(anim_quat_rotate(q, fn), tn, 8 * TOL_VEC);
  /* Shortest: the rotation angle equals the angle between the vectors. */
  double d = (double)fn.x * tn.x + (double)fn.y * tn.y + (double)fn.z * tn.z;
  double ang = acos(fmax(-1.0, fmin(1.0, d)));
  ck_assert_near(anim_quat_angle_between(anim_quat_identity(), q), ang, 1e-3);
}

START_TEST(test_from_to) {
  anim_vec3_t axes[3] = {anim_vec3(1, 0, 0), anim_vec3(0, 1, 0),
                         anim_vec3(0, 0, 1)};
  for (int i = 0; i < 3; i++) {
    for (int s = -1; s <= 1; s += 2) {
      anim_vec3_t f = anim_vec3_scale(axes[i], (float)s);
      /* Parallel: identity. */
      ck_assert_quat(anim_quat_from_to(f, anim_vec3_scale(f, 3)),
                     anim_quat_identity(), TOL_Q);
      /* Anti-parallel: half a turn about an axis perpendicular to f. */
      anim_quat_t q = anim_quat_from_to(f, anim_vec3_scale(f, -2));
      ck_assert_unit(q);
      ck_assert_near(q.w, 0.0, TOL_Q);
      ck_assert_near(anim_vec3_dot(anim_vec3(q.x, q.y, q.z), f), 0.0, TOL_Q);
      check_from_to(f, anim_vec3_scale(f, -1));
      /* 90 degrees to each other axis. */
      for (int j = 0; j < 3; j++)
        if (j != i) check_from_to(f, axes[j]);
    }
  }
  /* Zero-length inputs: identity, never NaN. */
  ck_assert_quat(anim_quat_from_to(anim_vec3(0, 0, 0), anim_vec3(1, 0, 0)),
                 anim_quat_identity(), TOL_EXACT);
  ck_assert_quat(anim_quat_from_to(anim_vec3(1, 0, 0), anim_vec3(0, 0, 0)),
                 anim_quat_identity(), TOL_EXACT);
  ck_assert_quat(anim_quat_from_to(anim_vec3(0, 0, 0), anim_vec3(0, 0, 0)),
                 anim_quat_identity(), TOL_EXACT);
  /* The documented perpendicular for opposite directions: x picks y, so the
   * axis is x cross y = z; z picks x, so the axis is z cross x = y. */
  ck_assert_quat(anim_quat_from_to(anim_vec3(2, 0, 0), anim_vec3(-1, 0, 0)),
                 anim_quat(0, 0, 1, 0), TOL_EXACT);
  ck_assert_quat(anim_quat_from_to(anim_vec3(0, 0, 1), anim_vec3(0, 0, -1)),
                 anim_quat(0, 1, 0, 0), TOL_EXACT);
  /* Extreme magnitudes and non-finite input. */
  ck_assert_quat(
      anim_quat_from_to(anim_vec3(3e38f, 0, 0), anim_vec3(0, 3e38f, 0)),
      ref_quat(0, 0, 1, TEST_PI / 2), TOL_Q);
  ck_assert_quat(
      anim_quat_from_to(anim_vec3(1e-5f, 0, 0), anim_vec3(0, 0, 1e-5f)),
      ref_quat(0, -1, 0, TEST_PI / 2), TOL_Q);
  ck_assert_quat(anim_quat_from_to(anim_vec3(1e-7f, 0, 0), anim_vec3(0, 1, 0)),
                 anim_quat_identity(), TOL_EXACT);
  ck_assert_quat(anim_quat_from_to(anim_vec3(NAN, 0, 0), anim_vec3(0, 1, 0)),
                 anim_quat_identity(), TOL_EXACT);
  ck_assert_quat(
      anim_quat_from_to(anim_vec3(1, 0, 0), anim_vec3(INFINITY, 1, 0)),
      anim_quat_identity(), TOL_EXACT);
  /* Non-unit inputs: the same rotation as their directions (the seed's
   * acos(dot) of unnormalized vectors gets this wrong). */
  ck_assert_quat(anim_quat_from_to(anim_vec3(5, 0, 0), anim_vec3(0, 0.01f, 0)),
                 ref_quat(0, 0, 1, TEST_PI / 2), TOL_Q);
  test_rng r = {6502u};
  for (int n = 0; n < 300; n++) {
    anim_vec3_t f = rng_vec(&r, -1, 1), t = rng_vec(&r, -1, 1);
    if (anim_vec3_length(f) < 1e-2f || anim_vec3_length(t) < 1e-2f) continue;
    float k = (float)rng_range(&r, 1e-3, 1e3);
    check_from_to(anim_vec3_scale(f, k), t);
    /* Random anti-parallel and nearly anti-parallel. */
    check_from_to(f, anim_vec3_scale(f, -k));
    anim_vec3_t g =
        anim_vec3_add(anim_vec3_scale(f, -1), anim_vec3(1e-6f, -1e-6f, 0));
    anim_quat_t q = anim_quat_from_to(f, g);
    ck_assert_unit(q);
    ck_assert_vec(anim_quat_rotate(q, anim_vec3_normalize(f)),
                  anim_vec3_normalize(g), 1e-4f);
    /* Nearly parallel. */
    check_from_to(f, anim_vec3_add(f, anim_vec3(1e-6f, 0, -1e-6f)));
  }
}
END_TEST

START_TEST(test_ball_points) {
  /* Arc of 90 degrees from x to y: a 180-degree turn about z. */
  ck_assert_quat_sign(
      anim_quat_from_ball_points(anim_vec3(1, 0, 0), anim_vec3(0, 1, 0)),
      anim_quat(0, 0, 1, 0), TOL_Q);
  /* Arc of 45 degrees: 90 degrees; inputs need not be unit length. */
  ck_assert_quat_sign(
      anim_quat_from_ball_points(anim_vec3(2, 0, 0), anim_vec3(3, 3, 0)),
      ref_quat(0, 0, 1, TEST_PI / 2), TOL_Q);
  ck_assert_quat(
      anim_quat_from_ball_points(anim_vec3(0, 0, 1), anim_vec3(0, 0, 1)),
      anim_quat_identity(), TOL_EXACT);
  anim_quat_t z =
      anim_quat_from_ball_points(anim_vec3(0, 0, 0), anim_vec3(0, 0, 1));
  ck_assert_unit(z);
}
END_TEST

Suite *quat_convert_suite(void) {
  Suite *s = suite_create("quat_convert");
  TCase *tc = tcase_create("convert");
  tcase_add_test(tc, test_axis_angle);
  tcase_add_test(tc, test_from_mat4_random);
  tcase_add_test(tc, test_from_mat4_half_turns);
  tcase_add_test(tc, test_yaw_pitch_roll);
  tcase_add_test(tc, test_from_to);
  tcase_add_test(tc, test_ball_points);
  suite_add_tcase(s, tc);
  return s;
}
