/* Tests for the vec3 functions: exact small-integer arithmetic and the
 * closed-form length/normalize cases. */
#include "test_math_util.h"

START_TEST(test_vec3_arith) {
  anim_vec3_t a = anim_vec3(1, 2, 3), b = anim_vec3(-4, 5, 0.5f);
  ck_assert_vec(anim_vec3_add(a, b), anim_vec3(-3, 7, 3.5f), TOL_EXACT);
  ck_assert_vec(anim_vec3_sub(a, b), anim_vec3(5, -3, 2.5f), TOL_EXACT);
  ck_assert_vec(anim_vec3_scale(a, -2), anim_vec3(-2, -4, -6), TOL_EXACT);
  ck_assert_vec(anim_vec3_mul(a, b), anim_vec3(-4, 10, 1.5f), TOL_EXACT);
  ck_assert_float_eq(anim_vec3_dot(a, b), -4 + 10 + 1.5f);
  /* (1,2,3) x (-4,5,0.5) by the determinant rule. */
  ck_assert_vec(anim_vec3_cross(a, b),
                anim_vec3(2 * 0.5f - 3 * 5, 3 * -4 - 1 * 0.5f, 1 * 5 - 2 * -4),
                TOL_EXACT);
  ck_assert_vec(anim_vec3_cross(anim_vec3(1, 0, 0), anim_vec3(0, 1, 0)),
                anim_vec3(0, 0, 1), TOL_EXACT);
}
END_TEST

START_TEST(test_vec3_length_normalize) {
  ck_assert_float_eq(anim_vec3_length(anim_vec3(3, 4, 12)), 13.0f);
  ck_assert_vec(anim_vec3_normalize(anim_vec3(3, 4, 12)),
                anim_vec3(3 / 13.0f, 4 / 13.0f, 12 / 13.0f), TOL_VEC);
  ck_assert_vec(anim_vec3_normalize(anim_vec3(0, 0, 0)), anim_vec3(0, 0, 0),
                TOL_EXACT);
  ck_assert_vec(anim_vec3_normalize(anim_vec3(0, -1e-20f, 0)),
                anim_vec3(0, -1, 0), TOL_VEC);
  ck_assert_vec(anim_vec3_normalize(anim_vec3(1e20f, 0, 0)), anim_vec3(1, 0, 0),
                TOL_VEC);
  ck_assert_vec(anim_vec3_normalize(anim_vec3(3e20f, 4e20f, 0)),
                anim_vec3(0.6f, 0.8f, 0), TOL_VEC);
  ck_assert_vec(anim_vec3_normalize(anim_vec3(NAN, 1, 0)), anim_vec3(0, 0, 0),
                TOL_EXACT);
  ck_assert_vec(anim_vec3_normalize(anim_vec3(INFINITY, 1, 0)),
                anim_vec3(0, 0, 0), TOL_EXACT);
}
END_TEST

START_TEST(test_vec3_lerp) {
  anim_vec3_t a = anim_vec3(1, 2, 3), b = anim_vec3(3, -2, 7);
  ck_assert_vec(anim_vec3_lerp(a, b, 0), a, TOL_EXACT);
  ck_assert_vec(anim_vec3_lerp(a, b, 1), b, TOL_EXACT);
  ck_assert_vec(anim_vec3_lerp(a, b, 0.25f), anim_vec3(1.5f, 1, 4), TOL_EXACT);
}
END_TEST

Suite *math_vec3_suite(void) {
  Suite *s = suite_create("math_vec3");
  TCase *tc = tcase_create("vec3");
  tcase_add_test(tc, test_vec3_arith);
  tcase_add_test(tc, test_vec3_length_normalize);
  tcase_add_test(tc, test_vec3_lerp);
  suite_add_tcase(s, tc);
  return s;
}
