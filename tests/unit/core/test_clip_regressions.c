/* Regression tests for clips found wrong by fuzzing the importers and the
 * store: each case is a raw clip that once built into a bad clip. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "animd/animd.h"

/* A glTF rotation key (0, 0.7071, 4.2535296e37, 0.7097) passed the
 * zero-length check, but its squared length overflows float, so the
 * stored key became (0, 0, 0, 0): sampling returned no rotation and the
 * stored clip was refused when the store reloaded it. By hand, q / |q| with
 * |q| = 4.2535296e37 (the other terms vanish next to it) is (0, 1.66e-38,
 * 1, 1.67e-38). */
START_TEST(test_rotation_key_with_huge_component) {
  anim_raw_joint_t j = {.name = "j",
                        .parent = -1,
                        .rest = {.rotation = {0, 0, 0, 1}, .scale = {1, 1, 1}}};
  anim_raw_skeleton_t rs = {.name = "s", .joints = &j, .joint_count = 1};
  anim_skeleton_t *sk = NULL;
  anim_build_error_t err;
  ck_assert_int_eq(anim_skeleton_build(&rs, NULL, &sk, &err), ANIM_OK);
  const float times[] = {0, 1};
  const float values[] = {0, 0.70709997f, 4.2535296e37f, 0.70968288f, 0, 0, 0,
                          1};
  anim_raw_track_t t = {.joint = 0,
                        .path = ANIM_PATH_ROTATION,
                        .interpolation = ANIM_INTERP_LINEAR,
                        .times = times,
                        .key_count = 2,
                        .values = values,
                        .value_count = 8};
  anim_raw_clip_t rc = {.name = "c", .tracks = &t, .track_count = 1};
  anim_clip_t *clip = NULL;
  ck_assert_int_eq(anim_clip_build(&rc, sk, NULL, &clip, &err), ANIM_OK);
  const float *q = clip->tracks[0].values;
  ck_assert_float_eq_tol(q[0], 0.0f, 1e-30f);
  ck_assert_float_eq_tol(q[1], 0.0f, 1e-30f);
  ck_assert_float_eq_tol(q[2], 1.0f, 1e-6f);
  ck_assert_float_eq_tol(q[3], 0.0f, 1e-30f);
  /* The rest key is untouched. */
  ck_assert_float_eq(q[7], 1.0f);
  anim_clip_free(clip);
  anim_skeleton_free(sk);
}
END_TEST

Suite *clip_regressions_suite(void) {
  Suite *s = suite_create("clip_regressions");
  TCase *tc = tcase_create("build");
  tcase_add_test(tc, test_rotation_key_with_huge_component);
  suite_add_tcase(s, tc);
  return s;
}
