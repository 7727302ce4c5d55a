/* Tests for slerp, nlerp, exp/ln, squad, squad setup and barycentric:
 * closed-form rotations about one axis (where every interpolator reduces to
 * a known angle), endpoint and unit-length properties over random inputs,
 * and the D3DX reference numbers in test_quat_d3dx.c. */
#include "test_math_util.h"

static anim_quat_t rot_z(double angle) {
  return anim_quat(0, 0, (float)sin(angle / 2), (float)cos(angle / 2));
}

static anim_quat_t qneg(anim_quat_t q) {
  return anim_quat(-q.x, -q.y, -q.z, -q.w);
}

START_TEST(test_slerp_endpoints_exact) {
  test_rng r = {1u};
  for (int n = 0; n < 200; n++) {
    anim_quat_t a = rng_quat(&r), b = rng_quat(&r);
    ck_assert_quat(anim_quat_slerp(a, b, 0), a, TOL_EXACT);
    anim_quat_t e = anim_quat_slerp(a, b, 1);
    ck_assert_quat(e, anim_quat_dot(a, b) < 0 ? qneg(b) : b, TOL_EXACT);
    ck_assert_quat(anim_quat_slerp_no_invert(a, b, 1), b, TOL_EXACT);
  }
}
END_TEST

START_TEST(test_slerp_closed_form) {
  /* Between 0 and 90 degrees about z, slerp at t is t * 90 degrees. */
  for (int i = 0; i <= 8; i++) {
    float t = i / 8.0f;
    ck_assert_quat(anim_quat_slerp(rot_z(0), rot_z(TEST_PI / 2), t),
                   rot_z(t * TEST_PI / 2), TOL_Q);
  }
  /* Shortest path: 10 and 350 degrees are 20 degrees apart; the midpoint is
   * 0 (or 360) degrees, not 180. */
  anim_quat_t a = rot_z(10 * TEST_PI / 180), b = rot_z(350 * TEST_PI / 180);
  ck_assert(anim_quat_dot(a, b) < 0);
  ck_assert_quat_sign(anim_quat_slerp(a, b, 0.5f), rot_z(0), TOL_Q);
  ck_assert_quat_sign(anim_quat_slerp(a, b, 0.25f), rot_z(5 * TEST_PI / 180),
                      TOL_Q);
  /* Without the flip the arc is the long way round: 180 degrees. */
  ck_assert_quat_sign(anim_quat_slerp_no_invert(a, b, 0.5f), rot_z(TEST_PI),
                      TOL_Q);
  /* The same rotation given as -b changes nothing for slerp. */
  ck_assert_quat(anim_quat_slerp(a, b, 0.3f), anim_quat_slerp(a, qneg(b), 0.3f),
                 TOL_Q);
}
END_TEST

START_TEST(test_slerp_random_properties) {
  test_rng r = {99u};
  for (int n = 0; n < 300; n++) {
    anim_quat_t a = rng_quat(&r), b = rng_quat(&r);
    float t = (float)rng_range(&r, 0, 1);
    anim_quat_t s = anim_quat_slerp(a, b, t);
    ck_assert_unit(s);
    /* Constant angular speed along the shorter arc. */
    float total = anim_quat_angle_between(a, b);
    ck_assert_near(anim_quat_angle_between(a, s), t * total, ANIM_EPS_ANGLE);
    ck_assert_near(anim_quat_angle_between(s, b), (1 - t) * total,
                   ANIM_EPS_ANGLE);
    anim_quat_t nl = anim_quat_nlerp(a, b, t);
    ck_assert_unit(nl);
  }
}
END_TEST

START_TEST(test_slerp_small_angles) {
  /* Across the switch to normalized lerp, slerp stays on the exact arc:
   * 0 to angle about z, at t, is t * angle about z. */
  static const double angles[] = {0.5,    0.1,  0.063, 0.03, 0.0201,
                                  0.0199, 0.01, 1e-3,  1e-4, 1e-5};
  for (size_t i = 0; i < sizeof angles / sizeof angles[0]; i++)
    for (int k = 0; k <= 16; k++) {
      float t = k / 16.0f;
      anim_quat_t s = anim_quat_slerp(rot_z(0), rot_z(angles[i]), t);
      ck_assert_quat(s, rot_z(t * angles[i]), 2e-7f);
    }
}
END_TEST

START_TEST(test_slerp_nearly_equal) {
  anim_quat_t a = anim_quat_normalize(anim_quat(0.1f, 0.2f, 0.3f, 0.9f));
  anim_quat_t b =
      anim_quat_normalize(anim_quat(0.1f, 0.2f, 0.3f + 1e-6f, 0.9f));
  for (int i = 0; i <= 10; i++) {
    anim_quat_t s = anim_quat_slerp(a, b, i / 10.0f);
    ck_assert(isfinite(s.x) && isfinite(s.y) && isfinite(s.z) && isfinite(s.w));
    ck_assert_unit(s);
    ck_assert_quat(s, a, 2e-6f);
  }
  anim_quat_t s = anim_quat_slerp(a, a, 0.5f);
  ck_assert_quat(s, a, TOL_Q);
  /* Opposite signs of the same rotation: also the nearly-equal case. */
  s = anim_quat_slerp(a, qneg(a), 0.5f);
  ck_assert_quat_sign(s, a, TOL_Q);
  /* Without the flip, opposite inputs still give finite unit results. */
  for (int i = 0; i <= 4; i++) {
    anim_quat_t o = anim_quat_slerp_no_invert(a, qneg(a), i / 4.0f);
    ck_assert_unit(o);
  }
  ck_assert_quat(anim_quat_slerp_no_invert(a, qneg(a), 1), qneg(a), TOL_EXACT);
}
END_TEST

START_TEST(test_nlerp) {
  float h = (float)sqrt(0.5);
  ck_assert_quat(anim_quat_nlerp(rot_z(0), rot_z(TEST_PI / 2), 0.5f),
                 rot_z(TEST_PI / 4), TOL_Q);
  /* Shortest path. */
  ck_assert_quat(
      anim_quat_nlerp(anim_quat(0, 0, 0, 1), anim_quat(0, 0, -h, -h), 0.5f),
      rot_z(TEST_PI / 4), TOL_Q);
  ck_assert_quat(anim_quat_nlerp(rot_z(0.3), rot_z(1.1), 0), rot_z(0.3), TOL_Q);
}
END_TEST

START_TEST(test_exp_ln) {
  /* ln of the rotation (axis, angle) is (axis * angle / 2, 0). */
  double ang = 2.0;
  double ax[3] = {2.0 / 7, 3.0 / 7, 6.0 / 7};
  anim_quat_t q =
      anim_quat((float)(ax[0] * sin(ang / 2)), (float)(ax[1] * sin(ang / 2)),
                (float)(ax[2] * sin(ang / 2)), (float)cos(ang / 2));
  anim_quat_t l = anim_quat((float)ax[0], (float)ax[1], (float)ax[2], 0);
  l = anim_quat(l.x * (float)(ang / 2), l.y * (float)(ang / 2),
                l.z * (float)(ang / 2), 0);
  ck_assert_quat(anim_quat_ln(q), l, TOL_Q);
  ck_assert_quat(anim_quat_exp(l), q, TOL_Q);
  ck_assert_quat(anim_quat_ln(anim_quat_identity()), anim_quat(0, 0, 0, 0),
                 TOL_EXACT);
  ck_assert_quat(anim_quat_exp(anim_quat(0, 0, 0, 5)), anim_quat_identity(),
                 TOL_EXACT);
  /* Tiny arguments stay accurate (sin(n)/n from its series). */
  ck_assert_quat(anim_quat_exp(anim_quat(1e-6f, 0, 0, 0)),
                 anim_quat(1e-6f, 0, 0, 1), 1e-12f);
  test_rng r = {4242u};
  for (int n = 0; n < 500; n++) {
    anim_quat_t u = rng_quat(&r);
    ck_assert_quat(anim_quat_exp(anim_quat_ln(u)), u, TOL_Q);
    anim_quat_t v = anim_quat((float)rng_range(&r, -1.5, 1.5),
                              (float)rng_range(&r, -1.5, 1.5),
                              (float)rng_range(&r, -1.5, 1.5), 0);
    if (sqrtf(v.x * v.x + v.y * v.y + v.z * v.z) < 3.1f)
      ck_assert_quat(anim_quat_ln(anim_quat_exp(v)), v, 4 * TOL_Q);
  }
}
END_TEST

START_TEST(test_squad_through_keys) {
  test_rng r = {2024u};
  for (int n = 0; n < 100; n++) {
    anim_quat_t q0 = rng_quat(&r), q1 = rng_quat(&r), q2 = rng_quat(&r),
                q3 = rng_quat(&r);
    anim_quat_t a, b, c;
    anim_quat_squad_setup(&a, &b, &c, q0, q1, q2, q3);
    ck_assert_quat_sign(c, q2, TOL_EXACT);
    ck_assert(anim_quat_dot(q1, c) >= 0);
    ck_assert_unit(a);
    ck_assert_unit(b);
    ck_assert_quat(anim_quat_squad(q1, a, b, c, 0), q1, TOL_EXACT);
    ck_assert_quat_sign(anim_quat_squad(q1, a, b, c, 1), q2, TOL_Q);
    for (int i = 1; i < 8; i++)
      ck_assert_unit(anim_quat_squad(q1, a, b, c, i / 8.0f));
  }
}
END_TEST

START_TEST(test_squad_uniform_axis) {
  /* Keys evenly spaced about one axis: the control points equal the keys
   * (the two ln terms cancel), so squad is slerp, i.e. uniform rotation. */
  double step = 0.4;
  anim_quat_t a, b, c;
  anim_quat_squad_setup(&a, &b, &c, rot_z(0), rot_z(step), rot_z(2 * step),
                        rot_z(3 * step));
  ck_assert_quat(a, rot_z(step), TOL_Q);
  ck_assert_quat(b, rot_z(2 * step), TOL_Q);
  ck_assert_quat(c, rot_z(2 * step), TOL_EXACT);
  for (int i = 0; i <= 10; i++) {
    float t = i / 10.0f;
    ck_assert_quat(anim_quat_squad(rot_z(step), a, b, c, t),
                   rot_z(step * (1 + t)), TOL_Q);
  }
  /* Sign alignment: negated neighbours give the same control points. */
  anim_quat_t a2, b2, c2;
  anim_quat_squad_setup(&a2, &b2, &c2, qneg(rot_z(0)), rot_z(step),
                        qneg(rot_z(2 * step)), rot_z(3 * step));
  ck_assert_quat(a2, a, TOL_Q);
  ck_assert_quat(b2, b, TOL_Q);
  ck_assert_quat(c2, c, TOL_EXACT);
}
END_TEST

START_TEST(test_barycentric) {
  test_rng r = {31337u};
  for (int n = 0; n < 50; n++) {
    anim_quat_t q1 = rng_quat(&r), q2 = rng_quat(&r), q3 = rng_quat(&r);
    ck_assert_quat(anim_quat_barycentric(q1, q2, q3, 0, 0), q1, TOL_EXACT);
    ck_assert_quat_sign(anim_quat_barycentric(q1, q2, q3, 1, 0), q2, TOL_Q);
    ck_assert_quat_sign(anim_quat_barycentric(q1, q2, q3, 0, 1), q3, TOL_Q);
    ck_assert_unit(anim_quat_barycentric(q1, q2, q3, 0.3f, 0.4f));
  }
  /* About one axis: angles 0, 0.6, 1.2 with f = 0.25, g = 0.5 gives
   * slerp(0.45, 0.9, 2/3) = 0.75 = 0.25 * 0.6 + 0.5 * 1.2. */
  ck_assert_quat(
      anim_quat_barycentric(rot_z(0), rot_z(0.6), rot_z(1.2), 0.25f, 0.5f),
      rot_z(0.75), TOL_Q);
}
END_TEST

Suite *quat_interp_suite(void) {
  Suite *s = suite_create("quat_interp");
  TCase *tc = tcase_create("interp");
  tcase_add_test(tc, test_slerp_endpoints_exact);
  tcase_add_test(tc, test_slerp_closed_form);
  tcase_add_test(tc, test_slerp_random_properties);
  tcase_add_test(tc, test_slerp_small_angles);
  tcase_add_test(tc, test_slerp_nearly_equal);
  tcase_add_test(tc, test_nlerp);
  tcase_add_test(tc, test_exp_ln);
  tcase_add_test(tc, test_squad_through_keys);
  tcase_add_test(tc, test_squad_uniform_axis);
  tcase_add_test(tc, test_barycentric);
  suite_add_tcase(s, tc);
  return s;
}
