/* Tests for blend-space weights against closed forms: 1D between
 * neighbours and clamped at the ends, 2D barycentric inside a triangle,
 * the nearest hull point outside, a square's corners (weights reproduce
 * the parameter), refusals (duplicates, collinear points), and the
 * synchronized times. */
#include <check.h>
#include <math.h>

#include "animd/animd.h"

static anim_result weigh(uint32_t dim, const float *pts, uint32_t n, float x,
                         float y, float *w, int32_t *bad) {
  float param[2] = {x, y};
  anim_blend_space_job_t job = {.dimensions = dim,
                                .points = pts,
                                .point_count = n,
                                .param = param,
                                .weights = w,
                                .bad_point = bad};
  return anim_blend_space_job_run(&job);
}

static void expect(const float *w, const float *want, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    ck_assert_msg(fabsf(w[i] - want[i]) <= 1e-6f, "w[%u] = %g, want %g", i,
                  (double)w[i], (double)want[i]);
}

START_TEST(test_1d) {
  const float at[3] = {3, 0, 1}; /* Not sorted. */
  float w[3];
  ck_assert_int_eq(weigh(1, at, 3, 2, 0, w, NULL), ANIM_OK);
  expect(w, (float[]){0.5f, 0, 0.5f}, 3);
  ck_assert_int_eq(weigh(1, at, 3, 0.25f, 0, w, NULL), ANIM_OK);
  expect(w, (float[]){0, 0.75f, 0.25f}, 3);
  ck_assert_int_eq(weigh(1, at, 3, 1, 0, w, NULL), ANIM_OK);
  expect(w, (float[]){0, 0, 1}, 3);
  ck_assert_int_eq(weigh(1, at, 3, -4, 0, w, NULL), ANIM_OK);
  expect(w, (float[]){0, 1, 0}, 3);
  ck_assert_int_eq(weigh(1, at, 3, 7, 0, w, NULL), ANIM_OK);
  expect(w, (float[]){1, 0, 0}, 3);
  /* Far points: no overflow to NaN. */
  const float far[2] = {-3e38f, 3e38f};
  ck_assert_int_eq(weigh(1, far, 2, 1e38f, 0, w, NULL), ANIM_OK);
  ck_assert_float_eq_tol(w[1], 2.0f / 3.0f, 1e-6f);
  ck_assert_float_eq_tol(w[0], 1.0f / 3.0f, 1e-6f);
  const float one[1] = {2};
  ck_assert_int_eq(weigh(1, one, 1, -1, 0, w, NULL), ANIM_OK);
  ck_assert_float_eq(w[0], 1);
}
END_TEST

START_TEST(test_2d_triangle) {
  const float p[6] = {0, 0, 2, 0, 0, 2};
  float w[3];
  ck_assert_int_eq(weigh(2, p, 3, 0.5f, 0.5f, w, NULL), ANIM_OK);
  expect(w, (float[]){0.5f, 0.25f, 0.25f}, 3);
  ck_assert_int_eq(weigh(2, p, 3, 2, 0, w, NULL), ANIM_OK);
  expect(w, (float[]){0, 1, 0}, 3);
  /* Outside: the nearest hull point. Below the x edge: (1, 0). */
  ck_assert_int_eq(weigh(2, p, 3, 1, -1, w, NULL), ANIM_OK);
  expect(w, (float[]){0.5f, 0.5f, 0}, 3);
  /* Beyond the hypotenuse: (1, 1), its middle. */
  ck_assert_int_eq(weigh(2, p, 3, 3, 3, w, NULL), ANIM_OK);
  expect(w, (float[]){0, 0.5f, 0.5f}, 3);
  /* Beyond a corner: the corner. */
  ck_assert_int_eq(weigh(2, p, 3, -1, -1, w, NULL), ANIM_OK);
  expect(w, (float[]){1, 0, 0}, 3);
  ck_assert_int_eq(weigh(2, p, 3, 4, -0.5f, w, NULL), ANIM_OK);
  expect(w, (float[]){0, 1, 0}, 3);
}
END_TEST

/* A 3x3 grid (co-circular squares): inside, the weights are non-negative,
 * sum to 1, at most three are set, and they reproduce the parameter
 * (barycentric coordinates are exact for linear functions). */
START_TEST(test_2d_grid) {
  float p[18];
  for (int i = 0; i < 9; i++) {
    p[2 * i] = (float)(i % 3) - 1;
    p[2 * i + 1] = (float)(i / 3) - 1;
  }
  float w[9];
  for (int a = 0; a <= 20; a++)
    for (int b = 0; b <= 20; b++) {
      float x = -1 + a * 0.1f, y = -1 + b * 0.1f;
      ck_assert_int_eq(weigh(2, p, 9, x, y, w, NULL), ANIM_OK);
      double sx = 0, sy = 0, sum = 0;
      int set = 0;
      for (int i = 0; i < 9; i++) {
        ck_assert_float_ge(w[i], 0);
        sum += w[i], sx += w[i] * p[2 * i], sy += w[i] * p[2 * i + 1];
        set += w[i] > 0;
      }
      ck_assert_int_le(set, 3);
      ck_assert_double_eq_tol(sum, 1, 1e-6);
      ck_assert_double_eq_tol(sx, x, 1e-6);
      ck_assert_double_eq_tol(sy, y, 1e-6);
    }
  /* A triangulation made once gives the same weights as the job's own. */
  uint8_t tris[3 * 19];
  uint32_t count = anim_blend_space_triangulate(p, 9, tris, 19);
  ck_assert_uint_eq(count, 8); /* 2 per square. */
  for (int a = -3; a <= 23; a++) {
    float param[2] = {-1 + a * 0.1f, 1.2f - a * 0.11f}, w1[9];
    anim_blend_space_job_t job = {.dimensions = 2,
                                  .points = p,
                                  .point_count = 9,
                                  .param = param,
                                  .weights = w1,
                                  .triangles = tris,
                                  .triangle_count = count};
    ck_assert_int_eq(anim_blend_space_job_run(&job), ANIM_OK);
    ck_assert_int_eq(weigh(2, p, 9, param[0], param[1], w, NULL), ANIM_OK);
    ck_assert_mem_eq(w, w1, sizeof w);
  }
  ck_assert_uint_eq(anim_blend_space_triangulate(p, 9, tris, 7), 0);
  /* The same call twice gives the same weights (one diagonal per square). */
  float w2[9];
  weigh(2, p, 9, 0.5f, 0.5f, w, NULL);
  weigh(2, p, 9, 0.5f, 0.5f, w2, NULL);
  ck_assert_mem_eq(w, w2, sizeof w);
}
END_TEST

START_TEST(test_refused) {
  float w[4];
  int32_t bad = 7;
  const float line[6] = {0, 0, 1, 1, 2, 2};
  ck_assert_int_eq(weigh(2, line, 3, 0, 0, w, &bad), ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(bad, -1);
  const float two[4] = {0, 0, 1, 0};
  ck_assert_int_eq(weigh(2, two, 2, 0, 0, w, NULL), ANIM_ERR_INVALID_ARGUMENT);
  const float dup[8] = {0, 0, 1, 0, 0, 1, 1, 0};
  ck_assert_int_eq(weigh(2, dup, 4, 0, 0, w, &bad), ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(bad, 3);
  const float d1[3] = {0, 1, 1};
  ck_assert_int_eq(weigh(1, d1, 3, 0, 0, w, &bad), ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(bad, 2);
  const float nan2[6] = {0, 0, 1, 0, NAN, 1};
  ck_assert_int_eq(weigh(2, nan2, 3, 0, 0, w, NULL), ANIM_ERR_NOT_FINITE);
  ck_assert_int_eq(weigh(2, two, 2, NAN, 0, w, NULL), ANIM_ERR_NOT_FINITE);
  ck_assert_int_eq(weigh(3, two, 2, 0, 0, w, NULL), ANIM_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(test_times) {
  const float d[3] = {1, 2, 4};
  const float w[3] = {0.5f, 0.5f, 0};
  double t[3];
  anim_blend_space_times(d, w, 3, 0.75, true, t);
  /* D = 1.5, phase 0.5. */
  ck_assert_double_eq(t[0], 0.5);
  ck_assert_double_eq(t[1], 1.0);
  ck_assert_double_eq(t[2], 2.0);
  anim_blend_space_times(d, w, 3, 0.75, false, t);
  ck_assert_double_eq(t[0], 0.75);
  ck_assert_double_eq(t[2], 0.75);
}
END_TEST

Suite *blend_space_suite(void) {
  Suite *s = suite_create("blend_space");
  TCase *tc = tcase_create("weights");
  tcase_add_test(tc, test_1d);
  tcase_add_test(tc, test_2d_triangle);
  tcase_add_test(tc, test_2d_grid);
  tcase_add_test(tc, test_refused);
  tcase_add_test(tc, test_times);
  suite_add_tcase(s, tc);
  return s;
}
