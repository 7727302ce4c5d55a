/* Tests for a pose case's expectations (verdict/expect.h): the position
 * error is the distance of the matrix's translation, the rotation error
 * the angle between quaternions (q and -q alike, a scaled joint's
 * rotation found), on matrices built by hand; parse errors at their
 * exact spots. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "server/verdict/expect.h"

/* A column-major matrix: rotation of deg degrees about z, scaled by s,
 * translated by (x, y, z). */
static void matrix(float *m, double deg, double s, double x, double y,
                   double z) {
  double a = deg * M_PI / 180;
  memset(m, 0, 16 * sizeof *m);
  m[0] = (float)(s * cos(a));
  m[1] = (float)(s * sin(a));
  m[4] = (float)(-s * sin(a));
  m[5] = (float)(s * cos(a));
  m[10] = (float)s;
  m[12] = (float)x;
  m[13] = (float)y;
  m[14] = (float)z;
  m[15] = 1;
}

START_TEST(test_expect_position) {
  float m[16];
  matrix(m, 30, 1, 1, 2, 3);
  double got[3];
  double want[3] = {1, 2, 3.25};
  ck_assert_double_eq_tol(verdict_expect_position_error(m, want, got), 0.25,
                          1e-6);
  ck_assert_double_eq_tol(got[2], 3, 1e-7);
  double w2[3] = {4, 6, 3};
  ck_assert_double_eq_tol(verdict_expect_position_error(m, w2, got), 5, 1e-6);
  /* Pass at the tolerance, fail past it. */
  verdict_expect_t e = {.joint = "j", .want = {1, 2, 3.25}, .tolerance = 0.25};
  verdict_expect_result_t r;
  verdict_expect_check(&e, m, &r);
  ck_assert(r.pass);
  e.tolerance = 0.2499;
  verdict_expect_check(&e, m, &r);
  ck_assert(!r.pass);
}
END_TEST

START_TEST(test_expect_rotation) {
  float m[16];
  double got[4];
  /* 90 degrees about z, scaled by 2: its rotation is still 90 degrees. */
  matrix(m, 90, 2, 0, 0, 0);
  double q90[4] = {0, 0, sin(M_PI / 4), cos(M_PI / 4)};
  ck_assert_double_eq_tol(verdict_expect_rotation_error(m, q90, got), 0, 1e-4);
  /* -q is the same rotation; got takes want's sign. */
  double neg[4] = {0, 0, -sin(M_PI / 4), -cos(M_PI / 4)};
  ck_assert_double_eq_tol(verdict_expect_rotation_error(m, neg, got), 0, 1e-4);
  ck_assert(got[3] < 0);
  /* 89 degrees expected: 1 degree off; 0 degrees expected: 90 off. */
  double q89[4] = {0, 0, sin(89 * M_PI / 360), cos(89 * M_PI / 360)};
  ck_assert_double_eq_tol(verdict_expect_rotation_error(m, q89, got), 1, 1e-4);
  double id[4] = {0, 0, 0, 1};
  ck_assert_double_eq_tol(verdict_expect_rotation_error(m, id, got), 90, 1e-4);
  /* 0.05 degrees: small angles stay exact. */
  matrix(m, 0.05, 1, 0, 0, 0);
  ck_assert_double_eq_tol(verdict_expect_rotation_error(m, id, got), 0.05,
                          1e-4);
  /* 180 degrees about z against the identity. */
  matrix(m, 180, 1, 0, 0, 0);
  ck_assert_double_eq_tol(verdict_expect_rotation_error(m, id, got), 180, 1e-4);
  verdict_expect_t e = {
      .joint = "j", .rotation = true, .want = {0, 0, 0, 1}, .tolerance = 179.9};
  verdict_expect_result_t r;
  verdict_expect_check(&e, m, &r);
  ck_assert(!r.pass);
}
END_TEST

/* Parses text as the expect array at "cases[0].expect": the error's code
 * and at, or "ok". */
static void expect_parse(const char *text, const char *code, const char *at) {
  json_t *arr = json_loads(text, 0, NULL);
  ck_assert_ptr_nonnull(arr);
  verdict_expect_t *e;
  size_t n;
  srv_error_t err = {0};
  int rc = verdict_expect_parse(arr, "cases[0].expect", &e, &n, &err);
  if (code == NULL) {
    ck_assert_msg(rc == 0, "%s: %s", text, err.message);
    free(e);
  } else {
    ck_assert_msg(rc == -1, "%s parsed", text);
    ck_assert_msg(strcmp(srv_error_name(err.code), code) == 0, "%s: %s", text,
                  srv_error_name(err.code));
    ck_assert_msg(strcmp(err.at, at) == 0, "%s: at %s", text, err.at);
  }
  json_decref(arr);
}

START_TEST(test_expect_parse_errors) {
  expect_parse("[{\"joint\":\"a\",\"position\":[1,2,3]}]", NULL, NULL);
  expect_parse("[{\"joint\":\"a\",\"rotation\":[0,0,0,2],"
               "\"tolerance_deg\":1}]",
               NULL, NULL);
  expect_parse("[]", "bad_value", "cases[0].expect");
  expect_parse("[1]", "wrong_type", "cases[0].expect[0]");
  expect_parse("[{\"position\":[1,2,3]}]", "missing_field",
               "cases[0].expect[0].joint");
  expect_parse("[{\"joint\":\"a\",\"position\":[1,2,3]},{\"joint\":\"b\"}]",
               "bad_value", "cases[0].expect[1]");
  expect_parse("[{\"joint\":\"a\",\"position\":[1,2]}]", "value_count",
               "cases[0].expect[0].position");
  expect_parse("[{\"joint\":\"a\",\"rotation\":[0,0,0,0]}]", "bad_value",
               "cases[0].expect[0].rotation");
  expect_parse("[{\"joint\":\"a\",\"rotation\":[0,0,0,1],\"tolerance\":1}]",
               "unknown_field", "cases[0].expect[0].tolerance");
  expect_parse("[{\"joint\":\"a\",\"position\":[0,0,0],\"tolerance\":-1}]",
               "bad_value", "cases[0].expect[0].tolerance");
  expect_parse("[{\"joint\":\"a\",\"position\":[0,0,0],\"tol\":1}]",
               "unknown_field", "cases[0].expect[0].tol");
}
END_TEST

START_TEST(test_expect_defaults_and_json) {
  json_t *arr = json_loads("[{\"joint\":\"a\",\"rotation\":[0,0,0,2]},"
                           "{\"joint\":\"b\",\"position\":[1,2,3]}]",
                           0, NULL);
  verdict_expect_t *e;
  size_t n;
  srv_error_t err;
  ck_assert_int_eq(verdict_expect_parse(arr, "x", &e, &n, &err), 0);
  ck_assert_uint_eq(n, 2);
  ck_assert_double_eq(e[0].tolerance, VERDICT_EXPECT_TOLERANCE_DEG);
  ck_assert_double_eq(e[0].want[3], 1); /* Normalized. */
  ck_assert_double_eq(e[1].tolerance, VERDICT_EXPECT_TOLERANCE);
  float m[16];
  matrix(m, 0, 1, 1, 2, 3.5);
  verdict_expect_result_t r;
  verdict_expect_check(&e[1], m, &r);
  fmt_buf_t b = FMT_BUF_INIT;
  verdict_expect_result_json(&b, &e[1], &r);
  ck_assert_str_eq(fmt_buf_cstr(&b),
                   "{\"joint\":\"b\",\"position\":[1,2,3.5],\"expected\":[1,"
                   "2,3],\"error\":0.5,\"tolerance\":0.0001,\"pass\":false}");
  fmt_buf_free(&b);
  free(e);
  json_decref(arr);
}
END_TEST

Suite *verdict_expect_suite(void) {
  Suite *s = suite_create("verdict_expect");
  TCase *tc = tcase_create("expect");
  tcase_add_test(tc, test_expect_position);
  tcase_add_test(tc, test_expect_rotation);
  tcase_add_test(tc, test_expect_parse_errors);
  tcase_add_test(tc, test_expect_defaults_and_json);
  suite_add_tcase(s, tc);
  return s;
}
