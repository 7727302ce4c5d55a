/* Tests for quaternion algebra: identity, conjugate, inverse, normalize,
 * the Hamilton product (against the unit-quaternion multiplication table
 * and the order of rotations) and rotating vectors (against Rodrigues'
 * formula in double precision). */
#include "test_math_util.h"

START_TEST(test_quat_identity_conjugate_inverse) {
  anim_quat_t id = anim_quat_identity();
  ck_assert(anim_quat_is_identity(id));
  ck_assert(!anim_quat_is_identity(anim_quat(0, 0, 0, -1)));
  ck_assert(!anim_quat_is_identity(anim_quat(1e-30f, 0, 0, 1)));
  ck_assert_quat(anim_quat_conjugate(anim_quat(1, 2, 3, 4)),
                 anim_quat(-1, -2, -3, 4), TOL_EXACT);
  /* (1,2,3,4): |q|^2 = 30. */
  ck_assert_quat(anim_quat_inverse(anim_quat(1, 2, 3, 4)),
                 anim_quat(-1 / 30.0f, -2 / 30.0f, -3 / 30.0f, 4 / 30.0f),
                 1e-7f);
  ck_assert_quat(anim_quat_inverse(anim_quat(0, 0, 0, 0)),
                 anim_quat(0, 0, 0, 0), TOL_EXACT);
  anim_quat_t q = anim_quat(0.5f, -1, 2, 0.25f);
  ck_assert_quat(anim_quat_mul(q, anim_quat_inverse(q)), id, TOL_Q);
  ck_assert_quat(anim_quat_mul(anim_quat_inverse(q), q), id, TOL_Q);
  ck_assert_float_eq(
      anim_quat_dot(anim_quat(1, 2, 3, 4), anim_quat(5, 6, 7, 8)), 70.0f);
  ck_assert_float_eq(anim_quat_length_sq(anim_quat(1, 2, 3, 4)), 30.0f);
  ck_assert_float_eq(anim_quat_length(anim_quat(0, 3, 0, 4)), 5.0f);
}
END_TEST

START_TEST(test_quat_normalize) {
  ck_assert_quat(anim_quat_normalize(anim_quat(0, 3, 0, 4)),
                 anim_quat(0, 0.6f, 0, 0.8f), 1e-7f);
  ck_assert_quat(anim_quat_normalize(anim_quat(0, 0, 0, 0)),
                 anim_quat_identity(), TOL_EXACT);
  ck_assert_quat(anim_quat_normalize(anim_quat(NAN, 0, 0, 1)),
                 anim_quat_identity(), TOL_EXACT);
  test_rng r = {0x1234567u};
  for (int i = 0; i < 200; i++) {
    anim_quat_t q = rng_quat(&r);
    float k = (float)rng_range(&r, 1e-3, 1e3);
    anim_quat_t n =
        anim_quat_normalize(anim_quat(q.x * k, q.y * k, q.z * k, q.w * k));
    ck_assert_unit(n);
    ck_assert_quat(n, q, TOL_Q);
  }
}
END_TEST

START_TEST(test_quat_mul_table) {
  anim_quat_t i = anim_quat(1, 0, 0, 0), j = anim_quat(0, 1, 0, 0),
              k = anim_quat(0, 0, 1, 0), one = anim_quat(0, 0, 0, 1),
              mone = anim_quat(0, 0, 0, -1);
  /* Hamilton: ij = k, jk = i, ki = j, ji = -k, i^2 = j^2 = k^2 = ijk = -1. */
  ck_assert_quat(anim_quat_mul(i, j), k, TOL_EXACT);
  ck_assert_quat(anim_quat_mul(j, k), i, TOL_EXACT);
  ck_assert_quat(anim_quat_mul(k, i), j, TOL_EXACT);
  ck_assert_quat(anim_quat_mul(j, i), anim_quat(0, 0, -1, 0), TOL_EXACT);
  ck_assert_quat(anim_quat_mul(i, i), mone, TOL_EXACT);
  ck_assert_quat(anim_quat_mul(anim_quat_mul(i, j), k), mone, TOL_EXACT);
  ck_assert_quat(anim_quat_mul(one, anim_quat(1, 2, 3, 4)),
                 anim_quat(1, 2, 3, 4), TOL_EXACT);
  /* (1,2,3,4)(5,6,7,8) by (w1 v2 + w2 v1 + v1 x v2, w1 w2 - v1.v2):
   * v = 4(5,6,7) + 8(1,2,3) + (-4,8,-4) = (24,48,48), w = 32 - 38 = -6. */
  ck_assert_quat(anim_quat_mul(anim_quat(1, 2, 3, 4), anim_quat(5, 6, 7, 8)),
                 anim_quat(24, 48, 48, -6), TOL_EXACT);
}
END_TEST

START_TEST(test_quat_rotate_reference) {
  /* 90 degrees about z takes x to y; about x takes y to z. */
  float h = (float)(sqrt(0.5));
  ck_assert_vec(anim_quat_rotate(anim_quat(0, 0, h, h), anim_vec3(1, 0, 0)),
                anim_vec3(0, 1, 0), TOL_VEC);
  ck_assert_vec(anim_quat_rotate(anim_quat(h, 0, 0, h), anim_vec3(0, 1, 0)),
                anim_vec3(0, 0, 1), TOL_VEC);
  test_rng r = {0xBADC0DEu};
  for (int n = 0; n < 500; n++) {
    anim_vec3_t axis = rng_vec(&r, -1, 1);
    double angle = rng_range(&r, -TEST_PI, TEST_PI);
    double l = sqrt((double)axis.x * axis.x + (double)axis.y * axis.y +
                    (double)axis.z * axis.z);
    if (l < 1e-3) continue;
    double s = sin(angle / 2) / l;
    anim_quat_t q = anim_quat((float)(axis.x * s), (float)(axis.y * s),
                              (float)(axis.z * s), (float)cos(angle / 2));
    anim_mat4_t m = ref_rotation(axis.x, axis.y, axis.z, angle);
    anim_vec3_t v = rng_vec(&r, -2, 2);
    ck_assert_vec(anim_quat_rotate(q, v), ref_apply(&m, v), 4 * TOL_VEC);
  }
}
END_TEST

START_TEST(test_quat_mul_order) {
  /* rotate(a * b, v) = rotate(a, rotate(b, v)): b applies first. */
  test_rng r = {77u};
  for (int n = 0; n < 300; n++) {
    anim_quat_t a = rng_quat(&r), b = rng_quat(&r);
    anim_vec3_t v = rng_vec(&r, -1, 1);
    ck_assert_vec(anim_quat_rotate(anim_quat_mul(a, b), v),
                  anim_quat_rotate(a, anim_quat_rotate(b, v)), 4 * TOL_VEC);
    ck_assert_unit(anim_quat_mul(a, b));
  }
  /* Concrete: rz * rx (90 about x first) takes y to z, which z keeps;
   * rx * rz (90 about z first) takes y to -x, which x keeps. */
  float h = (float)sqrt(0.5);
  anim_quat_t rx = anim_quat(h, 0, 0, h), rz = anim_quat(0, 0, h, h);
  ck_assert_vec(anim_quat_rotate(anim_quat_mul(rz, rx), anim_vec3(0, 1, 0)),
                anim_vec3(0, 0, 1), TOL_VEC);
  ck_assert_vec(anim_quat_rotate(anim_quat_mul(rx, rz), anim_vec3(0, 1, 0)),
                anim_vec3(-1, 0, 0), TOL_VEC);
}
END_TEST

START_TEST(test_quat_angle_between) {
  float h = (float)sqrt(0.5);
  anim_quat_t id = anim_quat_identity();
  ck_assert_near(anim_quat_angle_between(id, anim_quat(0, 0, h, h)),
                 TEST_PI / 2, ANIM_EPS_ANGLE);
  ck_assert_near(anim_quat_angle_between(id, anim_quat(1, 0, 0, 0)), TEST_PI,
                 ANIM_EPS_ANGLE);
  ck_assert_near(
      anim_quat_angle_between(anim_quat(0, 0, h, h), anim_quat(0, 0, -h, -h)),
      0.0, TOL_EXACT);
  /* A small angle keeps its precision: 1e-3 rad about y. */
  anim_quat_t s = anim_quat(0, (float)sin(0.5e-3), 0, (float)cos(0.5e-3));
  ck_assert_near(anim_quat_angle_between(id, s), 1e-3, 1e-8);
}
END_TEST

Suite *quat_suite(void) {
  Suite *s = suite_create("quat");
  TCase *tc = tcase_create("algebra");
  tcase_add_test(tc, test_quat_identity_conjugate_inverse);
  tcase_add_test(tc, test_quat_normalize);
  tcase_add_test(tc, test_quat_mul_table);
  tcase_add_test(tc, test_quat_rotate_reference);
  tcase_add_test(tc, test_quat_mul_order);
  tcase_add_test(tc, test_quat_angle_between);
  suite_add_tcase(s, tc);
  return s;
}
