/* Tests for goldens (verdict/golden.h): a golden recorded the way
 * `animd eval --format bin --space model` and GET /v1/pose ranges write
 * it (srv_frame_answer, binary range frames) passes against its clip and
 * fails against the clip with one key moved; a golden of another frame
 * count or joint count fails with a message; "file" and "base64" and
 * their errors. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "cli/eval.h"
#include "server/request/frame_answer.h"
#include "server/verdict/golden.h"
#include "verdict_rig.h"

static store_t *st;

static void setup(void) {
  store_options_t o = {0};
  fmt_error_t fe = {0};
  ck_assert_int_eq(store_open(&o, &st, &fe), 0);
  verdict_rig_ingest(st, "ra", "tip");
}

static void teardown(void) { store_close(st); }

/* The base64 of clip's format=bin&space=model range from 0 to `to` at fps
 * (joints: the first `joints` joints only, 0: all), as animd eval prints
 * it. malloc'd. */
static char *record(const char *clip, double to, double fps, uint32_t joints) {
  store_asset_t *skel, *c;
  srv_error_t e;
  ck_assert_int_eq(
      srv_lookup(st, STORE_SKELETON, "skeleton", "ra", NULL, &skel, &e, NULL),
      0);
  ck_assert_int_eq(srv_lookup(st, STORE_CLIP, "clip", clip, skel, &c, &e, NULL),
                   0);
  static const uint32_t first[] = {0, 1, 2};
  srv_eval_job_t job = {.skeleton = skel->skeleton,
                        .clip = c->clip,
                        .space = FMT_SPACE_MODEL,
                        .joints = joints ? first : NULL,
                        .joint_count = joints};
  srv_frame_names_t names = srv_frame_names(skel, c);
  srv_range_query_t range = {.is_range = true, .from = 0, .to = to, .fps = fps};
  range.frames = (uint32_t)(floor(to * fps + 1e-9) + 1);
  srv_eval_scratch_t scratch = {0};
  fmt_buf_t b;
  fmt_buf_init(&b);
  for (uint32_t i = 0; i < range.frames; i++) {
    job.t = srv_range_query_time(&range, i);
    ck_assert_int_eq(srv_frame_answer(&b, &job, &names, true, i, &scratch),
                     ANIM_OK);
  }
  char *out = malloc(b.len / 3 * 4 + 8);
  int n = EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)b.data,
                          (int)b.len);
  out[n] = '\0';
  fmt_buf_free(&b);
  srv_eval_scratch_free(&scratch);
  store_asset_release(c);
  store_asset_release(skel);
  return out;
}

/* Runs the golden case {"clip": clip, <grid>, "base64": golden}. */
static int run_case(const char *clip, const char *grid, const char *golden,
                    verdict_compare_result_t *r, srv_error_t *e) {
  size_t cap = strlen(golden) + 256;
  char *text = malloc(cap);
  snprintf(text, cap,
           "{\"skeleton\":\"ra\",\"clip\":\"%s\",%s\"base64\":"
           "\"%s\"}",
           clip, grid, golden);
  json_t *obj = json_loads(text, 0, NULL);
  free(text);
  ck_assert_ptr_nonnull(obj);
  verdict_golden_t g;
  int rc = verdict_golden_parse(obj, "cases[1].golden", NULL, &g, e);
  json_decref(obj);
  if (rc != 0) return rc;
  rc = verdict_golden_resolve(st, &g, e, NULL);
  if (rc == 0) {
    ck_assert_uint_gt(verdict_golden_cost(&g), 0);
    rc = verdict_golden_run(&g, 1000, r, e);
  }
  verdict_golden_free(&g);
  return rc;
}

START_TEST(test_golden_round_trip) {
  char *golden = record("turn", 1, 10, 0);
  verdict_compare_result_t r;
  srv_error_t e;
  ck_assert_int_eq(run_case("turn", "\"to\":1,\"fps\":10,", golden, &r, &e), 0);
  ck_assert(r.pass);
  ck_assert_str_eq(r.problem, "");
  ck_assert_uint_eq(r.frames, 11);
  ck_assert_uint_eq(r.joint_count, 3);
  ck_assert_double_eq(r.max_error, 0);
  verdict_compare_result_free(&r);
  /* to defaults to the clip's duration. */
  ck_assert_int_eq(run_case("turn", "\"fps\":10,", golden, &r, &e), 0);
  ck_assert(r.pass);
  verdict_compare_result_free(&r);
  free(golden);
}
END_TEST

START_TEST(test_golden_fails_after_a_key_moved) {
  char *golden = record("turn", 1, 10, 0);
  verdict_compare_result_t r;
  srv_error_t e;
  ck_assert_int_eq(run_case("moved", "\"to\":1,\"fps\":10,", golden, &r, &e),
                   0);
  ck_assert(!r.pass);
  /* 90 against 80 degrees at t = 1: the arm's shell point (0, 1.03, 0)
   * moves along a chord of 2 * 1.03 * sin(5 degrees). */
  double want = 2 * 1.03 * sin(5 * M_PI / 180);
  ck_assert_str_eq(r.max_joint, "arm");
  ck_assert_double_eq(r.max_t, 1);
  ck_assert_double_eq_tol(r.max_error, want, 1e-5 * want);
  ck_assert_uint_eq(r.failing_frames, 10);
  char msg[128];
  verdict_compare_result_message(&r, msg, sizeof msg);
  ck_assert_str_eq(msg, "max error 0.1795 > 0.0001 at arm, t=1 s");
  verdict_compare_result_free(&r);
  free(golden);
}
END_TEST

START_TEST(test_golden_of_another_shape_fails) {
  char *golden = record("turn", 1, 10, 0);
  verdict_compare_result_t r;
  srv_error_t e;
  ck_assert_int_eq(run_case("turn", "\"to\":0.5,\"fps\":10,", golden, &r, &e),
                   0);
  ck_assert(!r.pass);
  ck_assert_str_eq(r.problem,
                   "the golden has 11 frames; from 0 to 0.5 at 10 fps has 6");
  char msg[128];
  verdict_compare_result_message(&r, msg, sizeof msg);
  ck_assert_str_eq(msg, r.problem);
  fmt_buf_t b;
  fmt_buf_init(&b);
  verdict_compare_result_json(&b, &r);
  json_t *j = json_loads(fmt_buf_cstr(&b), 0, NULL);
  ck_assert_ptr_nonnull(j);
  ck_assert_str_eq(json_string_value(json_object_get(j, "problem")), r.problem);
  json_decref(j);
  fmt_buf_free(&b);
  verdict_compare_result_free(&r);
  free(golden);
  /* Two joints recorded (joints=root,arm) for a skeleton of three. */
  golden = record("turn", 1, 10, 2);
  ck_assert_int_eq(run_case("turn", "\"to\":1,\"fps\":10,", golden, &r, &e), 0);
  ck_assert(!r.pass);
  ck_assert(strstr(r.problem, "32 floats per frame") != NULL);
  verdict_compare_result_free(&r);
  free(golden);
  /* Cut short. */
  ck_assert_int_eq(run_case("turn", "", "AAAA", &r, &e), 0);
  ck_assert(!r.pass);
  ck_assert_str_eq(r.problem, "the golden holds 3 bytes, not one range frame");
  verdict_compare_result_free(&r);
}
END_TEST

START_TEST(test_golden_file) {
  char dir[] = "/tmp/animd-golden-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/turn.golden", dir);
  char *golden = record("turn", 1, 10, 0);
  unsigned char *raw = malloc(strlen(golden));
  int n = EVP_DecodeBlock(raw, (unsigned char *)golden, (int)strlen(golden));
  size_t len = (size_t)n - (golden[strlen(golden) - 1] == '=') -
               (golden[strlen(golden) - 2] == '=');
  FILE *f = fopen(path, "wb");
  ck_assert_uint_eq(fwrite(raw, 1, len, f), len);
  fclose(f);
  json_t *obj =
      json_pack("{s:s,s:s,s:f,s:f,s:s}", "skeleton", "ra", "clip", "turn", "to",
                1.0, "fps", 10.0, "file", "turn.golden");
  verdict_golden_t g;
  srv_error_t e;
  ck_assert_int_eq(verdict_golden_parse(obj, "", dir, &g, &e), 0);
  ck_assert_int_eq(verdict_golden_resolve(st, &g, &e, NULL), 0);
  verdict_compare_result_t r;
  ck_assert_int_eq(verdict_golden_run(&g, 1000, &r, &e), 0);
  ck_assert(r.pass);
  ck_assert_uint_eq(r.frames, 11);
  verdict_compare_result_free(&r);
  /* The golden's pose at t = 1: the arm turned to (-1, 0, 0). */
  float model[48];
  const anim_skeleton_t *sk;
  ck_assert_int_eq(verdict_golden_pose_at(&g, 0, 0.98, model, &sk), 0);
  ck_assert_uint_eq(sk->joint_count, 3);
  ck_assert_float_eq_tol(model[16 + 12], -1, 1e-6);
  ck_assert_int_eq(verdict_golden_pose_at(&g, 1, 1.0, model, &sk), 0);
  ck_assert_float_eq_tol(model[16 + 12], -1, 1e-6);
  verdict_golden_free(&g);
  /* Over HTTP a file is refused. */
  ck_assert_int_eq(verdict_golden_parse(obj, "cases[0].golden", NULL, &g, &e),
                   -1);
  ck_assert_int_eq(e.code, SRV_ERR_BAD_VALUE);
  ck_assert_str_eq(e.at, "cases[0].golden.file");
  json_decref(obj);
  unlink(path);
  rmdir(dir);
  free(raw);
  free(golden);
}
END_TEST

/* The golden as `animd eval FILE --clip turn --from 0 --to 1 --fps 10
 * --format bin --space model > turn.golden` writes it, read as a file. */
START_TEST(test_golden_recorded_by_animd_eval) {
  char dir[] = "/tmp/animd-golden-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char rig_path[64], golden_path[64];
  snprintf(rig_path, sizeof rig_path, "%s/rig.json", dir);
  snprintf(golden_path, sizeof golden_path, "%s/turn.golden", dir);
  char text[2048];
  verdict_rig(text, sizeof text, "ra", "tip");
  FILE *f = fopen(rig_path, "w");
  fputs(text, f);
  fclose(f);
  char *argv[] = {"eval",     rig_path, "--clip",  "turn",  "--from",
                  "0",        "--to",   "1",       "--fps", "10",
                  "--format", "bin",    "--space", "model", NULL};
  f = fopen(golden_path, "wb");
  ck_assert_int_eq(srv_eval_main(14, argv, f, stderr), 0);
  fclose(f);
  static const struct {
    const char *clip;
    bool pass;
  } runs[] = {{"turn", true}, {"moved", false}};
  for (size_t i = 0; i < 2; i++) {
    json_t *obj = json_pack("{s:s,s:f,s:f,s:s}", "clip", runs[i].clip, "to",
                            1.0, "fps", 10.0, "file", "turn.golden");
    verdict_golden_t g;
    srv_error_t e;
    ck_assert_int_eq(verdict_golden_parse(obj, "", dir, &g, &e), 0);
    json_decref(obj);
    ck_assert_int_eq(verdict_golden_resolve(st, &g, &e, NULL), 0);
    verdict_compare_result_t r;
    ck_assert_int_eq(verdict_golden_run(&g, 1000, &r, &e), 0);
    ck_assert_str_eq(r.problem, "");
    ck_assert_uint_eq(r.frames, 11);
    ck_assert(r.pass == runs[i].pass);
    if (runs[i].pass) ck_assert_double_eq(r.max_error, 0);
    verdict_compare_result_free(&r);
    verdict_golden_free(&g);
  }
  unlink(golden_path);
  unlink(rig_path);
  rmdir(dir);
}
END_TEST

START_TEST(test_golden_errors) {
  static const struct {
    const char *body;
    srv_error_code code;
    const char *at;
  } cases[] = {
      {"{\"clip\":\"turn\",\"base64\":\"A\"}", SRV_ERR_BAD_BASE64, "g.base64"},
      {"{\"clip\":\"turn\",\"base64\":\"!!!!\"}", SRV_ERR_BAD_BASE64,
       "g.base64"},
      {"{\"clip\":\"turn\"}", SRV_ERR_MISSING_FIELD, "g.base64"},
      {"{\"base64\":\"\"}", SRV_ERR_MISSING_FIELD, "g.clip"},
      {"{\"clip\":\"turn\",\"base64\":\"\",\"fps\":-1}", SRV_ERR_BAD_VALUE,
       "g.fps"},
      {"{\"clip\":\"turn\",\"base64\":\"\",\"golden\":1}",
       SRV_ERR_UNKNOWN_FIELD, "g.golden"},
      {"{\"clip\":\"turn\",\"base64\":\"\",\"file\":\"x\"}", SRV_ERR_BAD_VALUE,
       "g.file"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    json_t *obj = json_loads(cases[i].body, 0, NULL);
    verdict_golden_t g;
    srv_error_t e;
    ck_assert_int_eq(verdict_golden_parse(obj, "g", NULL, &g, &e), -1);
    json_decref(obj);
    ck_assert_msg(e.code == cases[i].code, "case %zu: %s", i, e.message);
    ck_assert_str_eq(e.at, cases[i].at);
  }
  /* Resolving: an unknown clip, at its field. */
  json_t *obj = json_loads("{\"clip\":\"gone\",\"base64\":\"\"}", 0, NULL);
  verdict_golden_t g;
  srv_error_t e;
  srv_lookup_miss_t miss = {0};
  ck_assert_int_eq(verdict_golden_parse(obj, "g", NULL, &g, &e), 0);
  json_decref(obj);
  ck_assert_int_eq(verdict_golden_resolve(st, &g, &e, &miss), -1);
  ck_assert_int_eq(e.code, SRV_ERR_NOT_FOUND);
  ck_assert_str_eq(e.at, "g.clip");
  ck_assert(miss.missed);
  verdict_golden_free(&g);
}
END_TEST

Suite *verdict_golden_suite(void) {
  Suite *s = suite_create("verdict_golden");
  TCase *tc = tcase_create("golden");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_golden_round_trip);
  tcase_add_test(tc, test_golden_fails_after_a_key_moved);
  tcase_add_test(tc, test_golden_of_another_shape_fails);
  tcase_add_test(tc, test_golden_file);
  tcase_add_test(tc, test_golden_recorded_by_animd_eval);
  tcase_add_test(tc, test_golden_errors);
  suite_add_tcase(s, tc);
  return s;
}
