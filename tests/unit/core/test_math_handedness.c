/* Tests for handedness conversion: every function is an involution, the
 * seed's flip is the inverse rotation of a unit quaternion, and mirrored
 * data gives mirrored results (rotating or transforming a mirrored point
 * with the mirrored rotation or matrix is the mirror of the original
 * result), checked against explicit reflection matrices. */
#include "test_math_util.h"

START_TEST(test_flip_handedness) {
  ck_assert_quat(anim_quat_flip_handedness(anim_quat(1, 2, 3, 4)),
                 anim_quat(-1, -2, -3, 4), TOL_EXACT);
  test_rng r = {1001u};
  for (int n = 0; n < 200; n++) {
    anim_quat_t q = rng_quat(&r);
    ck_assert_quat(anim_quat_flip_handedness(anim_quat_flip_handedness(q)), q,
                   TOL_EXACT);
    /* Same axis, opposite angle: the inverse rotation. */
    anim_vec3_t v = rng_vec(&r, -1, 1);
    ck_assert_vec(
        anim_quat_rotate(anim_quat_flip_handedness(q), anim_quat_rotate(q, v)),
        v, 4 * TOL_VEC);
  }
}
END_TEST

START_TEST(test_mirror) {
  test_rng r = {2002u};
  for (int axis = 0; axis < 3; axis++) {
    anim_axis a = (anim_axis)axis;
    /* The reflection S as a matrix. */
    anim_mat4_t s = anim_mat4_identity();
    s.m[axis * 5] = -1.0f;
    for (int n = 0; n < 200; n++) {
      anim_quat_t q = rng_quat(&r);
      anim_vec3_t p = rng_vec(&r, -5, 5);
      ck_assert_vec(anim_vec3_mirror(anim_vec3_mirror(p, a), a), p, TOL_EXACT);
      ck_assert_vec(anim_vec3_mirror(p, a), anim_mat4_transform_point(&s, p),
                    TOL_EXACT);
      ck_assert_quat(anim_quat_mirror(anim_quat_mirror(q, a), a), q, TOL_EXACT);
      /* Mirrored point rotated by the mirrored rotation = mirror of the
       * rotated point. */
      ck_assert_vec(
          anim_quat_rotate(anim_quat_mirror(q, a), anim_vec3_mirror(p, a)),
          anim_vec3_mirror(anim_quat_rotate(q, p), a), 8 * TOL_VEC);
      /* The mirrored quaternion's matrix is S R S. */
      anim_mat4_t rm = anim_mat4_from_quat(q);
      anim_mat4_t srs = anim_mat4_mul(&s, &rm);
      srs = anim_mat4_mul(&srs, &s);
      anim_mat4_t rq = anim_mat4_from_quat(anim_quat_mirror(q, a));
      ck_assert(mdiff(&rq, &srs) <= TOL_MAT);
      /* Matrix mirror: S M S, involution, and mirrored transform. */
      anim_transform_t tr = {rng_vec(&r, -5, 5), q, rng_vec(&r, 0.5, 2)};
      anim_mat4_t m = anim_mat4_from_transform(&tr);
      anim_mat4_t mm = anim_mat4_mirror(&m, a);
      anim_mat4_t sms = anim_mat4_mul(&s, &m);
      sms = anim_mat4_mul(&sms, &s);
      ck_assert(mdiff(&mm, &sms) == 0.0f);
      anim_mat4_t back = anim_mat4_mirror(&mm, a);
      ck_assert(mdiff(&back, &m) == 0.0f);
      ck_assert_vec(anim_mat4_transform_point(&mm, anim_vec3_mirror(p, a)),
                    anim_vec3_mirror(anim_mat4_transform_point(&m, p), a),
                    1e-5f);
    }
  }
}
END_TEST

Suite *math_handedness_suite(void) {
  Suite *s = suite_create("math_handedness");
  TCase *tc = tcase_create("handedness");
  tcase_add_test(tc, test_flip_handedness);
  tcase_add_test(tc, test_mirror);
  suite_add_tcase(s, tc);
  return s;
}
