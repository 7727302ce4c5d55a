/* Tests for the shell metric and comparisons (verdict/shell.h,
 * verdict/compare.h): the metric on closed-form cases, a comparison of a
 * clip turning its root 90 degrees about z against the rest pose (every
 * figure computed by hand from the definition), joints matched by name
 * across two skeletons, the grid's defaults and limits, and every parse
 * and resolve error with its exact `at`. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/verdict/compare.h"
#include "server/verdict/shell.h"
#include "verdict_rig.h"

/* ---- the shell metric ---------------------------------------------------- */

/* Column-major model matrix of a rotation by angle about unit axis (x, y,
 * z), then a translation. */
static void rotation(float *m, double angle, double x, double y, double z,
                     double tx, double ty, double tz) {
  double c = cos(angle), s = sin(angle), k = 1 - c;
  double r[3][3] = {{c + x * x * k, x * y * k - z * s, x * z * k + y * s},
                    {y * x * k + z * s, c + y * y * k, y * z * k - x * s},
                    {z * x * k - y * s, z * y * k + x * s, c + z * z * k}};
  memset(m, 0, 16 * sizeof *m);
  for (int col = 0; col < 3; col++)
    for (int row = 0; row < 3; row++) m[4 * col + row] = (float)r[row][col];
  m[12] = (float)tx;
  m[13] = (float)ty;
  m[14] = (float)tz;
  m[15] = 1;
}

START_TEST(test_shell_identity_is_zero) {
  float a[16], b[16];
  rotation(a, 0.7, 0, 0.6, 0.8, 1, 2, 3);
  memcpy(b, a, sizeof a);
  ck_assert_double_eq(verdict_shell_error(a, b, 0.03), 0);
}
END_TEST

START_TEST(test_shell_translation_is_its_length) {
  float a[16], b[16];
  rotation(a, 0.3, 1, 0, 0, 0, 0, 0);
  rotation(b, 0.3, 1, 0, 0, 0.3, -0.4, 1.2);
  /* Every shell point moves by the translation: |(0.3, -0.4, 1.2)| = 1.3. */
  ck_assert_double_eq_tol(verdict_shell_error(a, b, 0.03), 1.3, 1e-6);
  ck_assert_double_eq_tol(verdict_shell_error(b, a, 5.0), 1.3, 1e-6);
}
END_TEST

START_TEST(test_shell_rotation_is_a_chord) {
  /* A rotation by alpha about z moves the shell points s*x and s*y along
   * a chord of 2*s*sin(alpha/2); s*z (on the axis) and 0 do not move. */
  static const double alphas[] = {0.01, 0.5, 1.0, 2.0, 3.0};
  for (size_t i = 0; i < sizeof alphas / sizeof alphas[0]; i++) {
    for (int axis = 0; axis < 3; axis++) {
      float a[16], b[16];
      double ax[3] = {0, 0, 0};
      ax[axis] = 1;
      rotation(a, 0, 1, 0, 0, 0.5, 0.5, 0.5);
      rotation(b, alphas[i], ax[0], ax[1], ax[2], 0.5, 0.5, 0.5);
      double want = 2 * 0.03 * sin(alphas[i] / 2);
      ck_assert_double_eq_tol(verdict_shell_error(a, b, 0.03), want,
                              1e-7 + 1e-6 * want);
    }
  }
}
END_TEST

/* ---- comparisons ----------------------------------------------------------
 */

static store_t *st;

static void setup(void) {
  store_options_t o = {0};
  fmt_error_t fe = {0};
  ck_assert_int_eq(store_open(&o, &st, &fe), 0);
  verdict_rig_ingest(st, "ra", "tipA");
  verdict_rig_ingest(st, "rb", "tipB");
}

static void teardown(void) { store_close(st); }

/* Parses, resolves and runs body; 0 with *r, or the step's -1 with e. */
static int compare(const char *body, const char *prefix,
                   verdict_compare_result_t *r, srv_error_t *e) {
  json_error_t je;
  json_t *obj = json_loads(body, 0, &je);
  ck_assert_msg(obj != NULL, "%s", je.text);
  verdict_compare_t c;
  srv_lookup_miss_t miss = {0};
  int rc = verdict_compare_parse(obj, prefix, &c, e);
  json_decref(obj);
  if (rc == 0) {
    rc = verdict_compare_resolve(st, &c, e, &miss);
    if (rc == 0) rc = verdict_compare_run(&c, 1000, r, e);
    verdict_compare_free(&c);
  }
  return rc;
}

/* The arm's error at angle alpha: its shell point (0, 1 + s, 0) is the
 * farthest from the axis. */
static double arm_error(double alpha_deg, double s) {
  return 2 * (1 + s) * sin(alpha_deg * M_PI / 360);
}

START_TEST(test_compare_turn_against_rest) {
  verdict_compare_result_t r;
  srv_error_t e;
  ck_assert_int_eq(compare("{\"a\":{\"clip\":\"turn\",\"skeleton\":\"ra\"},"
                           "\"b\":{\"skeleton\":\"ra\"},\"fps\":4}",
                           "", &r, &e),
                   0);
  /* to defaults to the longer duration (1 s; the rest pose has none). */
  ck_assert_double_eq(r.from, 0);
  ck_assert_double_eq(r.to, 1);
  ck_assert_double_eq(r.fps, 4);
  ck_assert_uint_eq(r.frames, 5);
  ck_assert(!r.pass);
  ck_assert_str_eq(r.max_joint, "arm");
  ck_assert_double_eq(r.max_t, 1);
  double want = arm_error(90, 0.03);
  ck_assert_double_eq_tol(r.max_error, want, 1e-5 * want);
  ck_assert_uint_eq(r.joint_count, 3);
  ck_assert_str_eq(r.joints[0].joint, "arm");
  double sq = 0;
  for (int i = 0; i < 5; i++) sq += pow(arm_error(22.5 * i, 0.03), 2);
  ck_assert_double_eq_tol(r.joints[0].rms_error, sqrt(sq / 5),
                          1e-5 * sqrt(sq / 5));
  /* root and tipA: only their shell points off the axis move. */
  for (size_t j = 1; j < 3; j++) {
    ck_assert_double_eq_tol(r.joints[j].max_error, 2 * 0.03 * sin(M_PI / 4),
                            1e-6);
    ck_assert_double_eq(r.joints[j].t, 1);
  }
  /* Frame 0 matches; the four others are over 0.0001 at every joint. */
  ck_assert_uint_eq(r.failing_frames, 4);
  ck_assert_uint_eq(r.failing_joints, 3);
  ck_assert_uint_eq(r.unmatched_count[0], 0);
  ck_assert_uint_eq(r.unmatched_count[1], 0);
  char msg[128];
  verdict_compare_result_message(&r, msg, sizeof msg);
  ck_assert_str_eq(msg, "max error 1.457 > 0.0001 at arm, t=1 s");
  fmt_buf_t b;
  fmt_buf_init(&b);
  verdict_compare_result_json(&b, &r);
  json_t *j = json_loads(fmt_buf_cstr(&b), 0, NULL);
  ck_assert_ptr_nonnull(j);
  ck_assert(json_is_false(json_object_get(j, "pass")));
  ck_assert_int_eq(json_integer_value(json_object_get(j, "frames")), 5);
  ck_assert_str_eq(
      json_string_value(json_object_get(json_object_get(j, "max"), "joint")),
      "arm");
  ck_assert_uint_eq(json_array_size(json_object_get(j, "joints")), 3);
  ck_assert_int_eq(json_integer_value(json_object_get(
                       json_object_get(j, "failing"), "frames")),
                   4);
  json_decref(j);
  fmt_buf_free(&b);
  verdict_compare_result_free(&r);
}
END_TEST

START_TEST(test_compare_same_clip_passes) {
  verdict_compare_result_t r;
  srv_error_t e;
  /* The clip against itself as a one-layer pose body, looped past its
   * end: the same poses. */
  ck_assert_int_eq(
      compare("{\"a\":{\"clip\":\"turn\",\"skeleton\":\"ra\"},\"b\":{"
              "\"skeleton\":\"ra\",\"layers\":[{\"clip\":\"turn\"}]},"
              "\"to\":2.5,\"wrap\":\"loop\",\"shell\":0.1,\"tolerance\":0}",
              "", &r, &e),
      0);
  ck_assert_uint_eq(r.frames, 76);
  ck_assert_double_eq(r.shell, 0.1);
  ck_assert(r.max_error < 1e-6);
  ck_assert_uint_eq(r.joint_count, 3);
  verdict_compare_result_free(&r);
}
END_TEST

START_TEST(test_compare_wrap_per_source) {
  verdict_compare_result_t r;
  srv_error_t e;
  /* At t = 1.5: a loops back to 45 degrees, b clamps at 90; a layer's
   * own wrap wins over the comparison's. */
  ck_assert_int_eq(
      compare("{\"a\":{\"clip\":\"turn\",\"skeleton\":\"ra\",\"wrap\":"
              "\"loop\"},\"b\":{"
              "\"skeleton\":\"ra\",\"layers\":[{\"clip\":\"turn\",\"wrap\":"
              "\"clamp\"}]},\"from\":1.5,\"to\":1.5,\"wrap\":\"loop\"}",
              "", &r, &e),
      0);
  ck_assert_uint_eq(r.frames, 1);
  ck_assert_str_eq(r.max_joint, "arm");
  double want = arm_error(45, 0.03);
  ck_assert_double_eq_tol(r.max_error, want, 1e-5 * want);
  ck_assert_double_eq(r.max_t, 1.5);
  verdict_compare_result_free(&r);
}
END_TEST

START_TEST(test_compare_masks) {
  verdict_compare_result_t r;
  srv_error_t e;
  /* Masked out, the turning root keeps its rest pose: nothing moves. */
  ck_assert_int_eq(
      compare("{\"a\":{\"skeleton\":\"ra\",\"layers\":[{\"clip\":\"turn\","
              "\"mask\":[\"arm\"]}]},\"b\":{\"skeleton\":\"ra\"},\"fps\":1}",
              "", &r, &e),
      0);
  ck_assert(r.pass);
  ck_assert(r.max_error < 1e-6);
  verdict_compare_result_free(&r);
  ck_assert_int_eq(
      compare("{\"a\":{\"skeleton\":\"ra\",\"layers\":[{\"clip\":\"turn\","
              "\"mask\":[\"root\"]}]},\"b\":{\"skeleton\":\"ra\"},\"fps\":1}",
              "", &r, &e),
      0);
  ck_assert_str_eq(r.max_joint, "arm");
  ck_assert_double_eq_tol(r.max_error, arm_error(90, 0.03), 1e-5);
  verdict_compare_result_free(&r);
}
END_TEST

START_TEST(test_compare_matches_by_name) {
  verdict_compare_result_t r;
  srv_error_t e;
  ck_assert_int_eq(compare("{\"a\":{\"clip\":\"turn\",\"skeleton\":\"ra\"},"
                           "\"b\":{\"clip\":\"turn\",\"skeleton\":\"rb\"}}",
                           "", &r, &e),
                   0);
  ck_assert_uint_eq(r.frames, 31);
  ck_assert(r.pass);
  ck_assert_uint_eq(r.joint_count, 2);
  ck_assert_uint_eq(r.unmatched_count[0], 1);
  ck_assert_str_eq(r.unmatched[0][0], "tipA");
  ck_assert_uint_eq(r.unmatched_count[1], 1);
  ck_assert_str_eq(r.unmatched[1][0], "tipB");
  verdict_compare_result_free(&r);
  /* joints restricts: one name on a side only is unmatched there. */
  ck_assert_int_eq(compare("{\"a\":{\"clip\":\"turn\",\"skeleton\":\"ra\"},"
                           "\"b\":{\"skeleton\":\"rb\"},\"joints\":[\"tipB\","
                           "\"root\"],\"fps\":1}",
                           "", &r, &e),
                   0);
  ck_assert_uint_eq(r.joint_count, 1);
  ck_assert_str_eq(r.joints[0].joint, "root");
  ck_assert_double_eq_tol(r.joints[0].max_error, 2 * 0.03 * sin(M_PI / 4),
                          1e-6);
  ck_assert_uint_eq(r.unmatched_count[0], 0);
  ck_assert_uint_eq(r.unmatched_count[1], 1);
  ck_assert_str_eq(r.unmatched[1][0], "tipB");
  verdict_compare_result_free(&r);
}
END_TEST

START_TEST(test_compare_request_fields) {
  verdict_compare_result_t r;
  srv_error_t e;
  /* A blend space is a pose body too: two points of one clip blend into
   * that clip. */
  ck_assert_int_eq(
      compare("{\"a\":{\"skeleton\":\"ra\",\"blend_space\":{\"param\":[0.3],"
              "\"clips\":[{\"clip\":\"turn\",\"at\":[0]},{\"clip\":\"turn\","
              "\"at\":[1]}],\"sync\":false}},\"b\":{\"clip\":\"turn\","
              "\"skeleton\":\"ra\"},\"fps\":4}",
              "", &r, &e),
      0);
  ck_assert_uint_eq(r.frames, 5);
  ck_assert(r.max_error < 1e-6);
  verdict_compare_result_free(&r);
  /* A clip source's structured fields bind to its skeleton when it is
   * resolved: a bad joint is a typed error at its member. */
  ck_assert_int_eq(
      compare("{\"a\":{\"clip\":\"turn\",\"skeleton\":\"ra\",\"ik\":[{"
              "\"type\":\"aim\",\"joint\":\"nope\",\"target\":[1,0,0]}]},"
              "\"b\":{\"clip\":\"turn\",\"skeleton\":\"ra\"}}",
              "cases[1].compare", &r, &e),
      -1);
  ck_assert_int_eq(e.code, SRV_ERR_UNKNOWN_JOINT);
  ck_assert_str_eq(e.at, "cases[1].compare.a.ik[0].joint");
}
END_TEST

START_TEST(test_compare_errors) {
  static const struct {
    const char *body, *prefix;
    srv_error_code code;
    const char *at;
  } cases[] = {
      {"[]", "", SRV_ERR_WRONG_TYPE, ""},
      {"{\"b\":{\"clip\":\"turn\"}}", "", SRV_ERR_MISSING_FIELD, "a"},
      {"{\"a\":{\"clip\":\"turn\"}}", "", SRV_ERR_MISSING_FIELD, "b"},
      {"{\"a\":{\"clip\":\"turn\"},\"b\":{\"clip\":\"turn\"},\"tolerence\":1}",
       "", SRV_ERR_UNKNOWN_FIELD, "tolerence"},
      {"{\"a\":{\"clip\":\"turn\",\"wrop\":1},\"b\":{}}", "",
       SRV_ERR_UNKNOWN_FIELD, "a.wrop"},
      {"{\"a\":{\"clip\":\"turn\"},\"b\":{}}", "", SRV_ERR_MISSING_FIELD,
       "b.clip"},
      {"{\"a\":{\"skeleton\":\"ra\",\"layers\":[{}]},\"b\":{\"clip\":\"t\"}}",
       "", SRV_ERR_MISSING_FIELD, "a.layers[0].clip"},
      {"{\"a\":{\"skeleton\":\"ra\",\"layers\":[{\"clip\":\"turn\",\"t\":0}]}"
       ",\"b\":{\"clip\":\"t\"}}",
       "cases[2].compare", SRV_ERR_UNKNOWN_FIELD,
       "cases[2].compare.a.layers[0].t"},
      {"{\"a\":{\"clip\":\"turn\"},\"b\":{\"clip\":\"turn\"},\"fps\":0}", "",
       SRV_ERR_BAD_VALUE, "fps"},
      {"{\"a\":{\"clip\":\"turn\"},\"b\":{\"clip\":\"turn\"},\"shell\":-1}",
       "x", SRV_ERR_BAD_VALUE, "x.shell"},
      {"{\"a\":{\"clip\":\"turn\"},\"b\":{\"clip\":\"turn\"},\"shell\":\"1\"}",
       "", SRV_ERR_WRONG_TYPE, "shell"},
      {"{\"a\":{\"clip\":\"turn\"},\"b\":{\"clip\":\"turn\"},\"tolerance\":"
       "-0.1}",
       "", SRV_ERR_BAD_VALUE, "tolerance"},
      {"{\"a\":{\"clip\":\"turn\"},\"b\":{\"clip\":\"turn\"},\"from\":2,"
       "\"to\":1}",
       "", SRV_ERR_BAD_VALUE, "to"},
      {"{\"a\":{\"clip\":\"turn\"},\"b\":{\"clip\":\"turn\"},\"wrap\":\"x\"}",
       "", SRV_ERR_BAD_VALUE, "wrap"},
      {"{\"a\":{\"clip\":\"turn\"},\"b\":{\"clip\":\"turn\"},\"joints\":[1]}",
       "", SRV_ERR_WRONG_TYPE, "joints[0]"},
      /* Resolving. */
      {"{\"a\":{\"clip\":\"turn\",\"skeleton\":\"ra\"},\"b\":{\"clip\":"
       "\"nope\"}}",
       "", SRV_ERR_NOT_FOUND, "b.clip"},
      {"{\"a\":{\"clip\":\"turn\"},\"b\":{\"clip\":\"turn\"}}", "",
       SRV_ERR_AMBIGUOUS, "a.clip"},
      {"{\"a\":{\"skeleton\":\"ra\",\"layers\":[{\"clip\":\"turn\",\"mask\":"
       "[\"arm\",\"leg\"]}]},\"b\":{\"skeleton\":\"ra\"}}",
       "s", SRV_ERR_UNKNOWN_JOINT, "s.a.layers[0].mask[1]"},
      {"{\"a\":{\"skeleton\":\"ra\"},\"b\":{\"skeleton\":\"rb\"},\"joints\":"
       "[\"root\",\"leg\"]}",
       "", SRV_ERR_UNKNOWN_JOINT, "joints[1]"},
      {"{\"a\":{\"skeleton\":\"ra\"},\"b\":{\"skeleton\":\"rb\"},\"from\":1}",
       "", SRV_ERR_BAD_VALUE, "from"},
      /* Running. */
      {"{\"a\":{\"skeleton\":\"ra\"},\"b\":{\"skeleton\":\"rb\"},\"to\":10,"
       "\"fps\":100}",
       "", SRV_ERR_TOO_MANY_FRAMES, "fps"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    verdict_compare_result_t r;
    srv_error_t e;
    ck_assert_msg(compare(cases[i].body, cases[i].prefix, &r, &e) == -1,
                  "case %zu", i);
    ck_assert_msg(e.code == cases[i].code, "case %zu: %s", i, e.message);
    ck_assert_str_eq(e.at, cases[i].at);
  }
}
END_TEST

START_TEST(test_compare_miss_names_the_asset) {
  json_t *obj = json_loads("{\"a\":{\"skeleton\":\"ra\"},\"b\":{\"skeleton\":"
                           "\"ra\",\"layers\":[{\"clip\":\"gone\"}]}}",
                           0, NULL);
  verdict_compare_t c;
  srv_error_t e;
  srv_lookup_miss_t miss = {0};
  ck_assert_int_eq(verdict_compare_parse(obj, "", &c, &e), 0);
  json_decref(obj);
  ck_assert_int_eq(verdict_compare_resolve(st, &c, &e, &miss), -1);
  ck_assert(miss.missed);
  ck_assert_int_eq(miss.kind, STORE_CLIP);
  ck_assert_str_eq(miss.name, "gone");
  ck_assert_str_eq(e.at, "b.layers[0].clip");
  verdict_compare_free(&c);
}
END_TEST

START_TEST(test_compare_pose_at) {
  json_t *obj = json_loads("{\"a\":{\"clip\":\"turn\",\"skeleton\":\"ra\"},"
                           "\"b\":{\"skeleton\":\"rb\"}}",
                           0, NULL);
  verdict_compare_t c;
  srv_error_t e;
  ck_assert_int_eq(verdict_compare_parse(obj, "", &c, &e), 0);
  json_decref(obj);
  ck_assert_int_eq(verdict_compare_resolve(st, &c, &e, NULL), 0);
  ck_assert_uint_gt(verdict_compare_cost(&c), 0);
  float model[48];
  const anim_skeleton_t *sk = NULL;
  ck_assert_int_eq(verdict_compare_pose_at(&c, 0, 1.0, model, &sk), 0);
  ck_assert_uint_eq(sk->joint_count, 3);
  /* The arm, turned 90 degrees about z from (0, 1, 0): at (-1, 0, 0). */
  ck_assert_float_eq_tol(model[16 + 12], -1, 1e-6);
  ck_assert_float_eq_tol(model[16 + 13], 0, 1e-6);
  ck_assert_int_eq(verdict_compare_pose_at(&c, 1, 1.0, model, &sk), 0);
  ck_assert_float_eq_tol(model[16 + 13], 1, 1e-6);
  ck_assert_int_eq(verdict_compare_pose_at(&c, 2, 1.0, model, &sk), -1);
  verdict_compare_free(&c);
}
END_TEST

Suite *verdict_compare_suite(void) {
  Suite *s = suite_create("verdict_compare");
  TCase *tc = tcase_create("shell");
  tcase_add_test(tc, test_shell_identity_is_zero);
  tcase_add_test(tc, test_shell_translation_is_its_length);
  tcase_add_test(tc, test_shell_rotation_is_a_chord);
  suite_add_tcase(s, tc);
  tc = tcase_create("compare");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_compare_turn_against_rest);
  tcase_add_test(tc, test_compare_same_clip_passes);
  tcase_add_test(tc, test_compare_wrap_per_source);
  tcase_add_test(tc, test_compare_masks);
  tcase_add_test(tc, test_compare_matches_by_name);
  tcase_add_test(tc, test_compare_request_fields);
  tcase_add_test(tc, test_compare_errors);
  tcase_add_test(tc, test_compare_miss_names_the_asset);
  tcase_add_test(tc, test_compare_pose_at);
  suite_add_tcase(s, tc);
  return s;
}
