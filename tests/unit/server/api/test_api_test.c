/* Tests for POST /v1/test and `animd test` (verdict/suite.h, api/test.c,
 * cli/test.c) on a three-joint arm whose poses are known by hand (the
 * spine turns 90 degrees about z over a second, the hand 0.5 out along
 * its x): 200 when every case passes, 422 tests_failed with the report
 * when one fails, 400 at the spot of a malformed suite, 404 at a name the
 * store lacks, the suite's frame budget, each format's content type; and
 * the command line: exit 0, 1 and 2, and the same report bytes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_memory.h"
#include "cli/test.h"

static const char arm[] =
    "{\"skeleton\":{\"name\":\"arm\",\"joints\":["
    "{\"name\":\"hips\",\"parent\":-1,\"translation\":[0,1,0]},"
    "{\"name\":\"spine\",\"parent\":0,\"translation\":[0,0.5,0]},"
    "{\"name\":\"hand\",\"parent\":1,\"translation\":[0.5,0,0]}]},"
    "\"clips\":[{\"name\":\"raise\",\"tracks\":[{\"joint\":\"spine\","
    "\"path\":\"rotation\",\"times\":[0,1],"
    "\"values\":[0,0,0,1,0,0,0.70710678,0.70710678]}]}]}";

/* Three passing cases (hand positions and rotation by hand, a clean
 * check, a clip equal to itself) and, with failing, a fourth that
 * expects the hand elsewhere. */
#define PASSING                                                                \
  "{\"name\":\"hand raised\",\"pose\":{\"skeleton\":\"arm\",\"layers\":[{"     \
  "\"clip\":\"raise\",\"t\":1}]},\"expect\":[{\"joint\":\"hand\","             \
  "\"position\":[0,2,0],\"tolerance\":0.001},{\"joint\":\"hand\","             \
  "\"rotation\":[0,0,0.7071068,0.7071068],\"tolerance_deg\":0.1},"             \
  "{\"joint\":\"spine\",\"position\":[0,1.5,0]}]},"                            \
  "{\"name\":\"smooth\",\"check\":{\"clip\":\"raise\"}},"                      \
  "{\"name\":\"same\",\"compare\":{\"a\":{\"clip\":\"raise\"},\"b\":{"         \
  "\"clip\":\"raise\"}}}"
#define FAILING                                                                \
  ",{\"name\":\"hand at 45\",\"pose\":{\"skeleton\":\"arm\",\"layers\":[{"     \
  "\"clip\":\"raise\",\"t\":0.5}]},\"expect\":[{\"joint\":\"hand\","           \
  "\"position\":[0.5,1.5,0]}]}"

static const char pass_suite[] = "{\"name\":\"arm\",\"cases\":[" PASSING "]}";
static const char fail_suite[] =
    "{\"name\":\"arm\",\"cases\":[" PASSING FAILING "]}";

static void upload_arm(void) {
  mem_answer_t a = api_json("POST", "/v1/assets", arm);
  ck_assert_msg(a.status == 201, "%s", a.body);
  mem_answer_free(&a);
}

START_TEST(test_http_verdicts) {
  mem_server_start();
  upload_arm();
  mem_answer_t a = api_json("POST", "/v1/test", pass_suite);
  ck_assert_msg(a.status == 200, "%s", a.body);
  ck_assert_ptr_nonnull(strstr(a.head, "Content-Type: application/json"));
  ck_assert_ptr_nonnull(
      strstr(a.body, "{\"name\":\"arm\",\"passed\":3,\"failed\":0,"));
  mem_answer_free(&a);

  a = api_json("POST", "/v1/test", fail_suite);
  ck_assert_msg(a.status == 422, "%s", a.body);
  ck_assert_ptr_nonnull(strstr(a.body, "\"passed\":3,\"failed\":1,"));
  /* The hand at 45 degrees: (0.5 cos 45, 1.5 + 0.5 sin 45, 0), off the
   * expected (0.5, 1.5, 0) by 0.5 * sqrt(2 - sqrt(2)) = 0.38268. */
  ck_assert_ptr_nonnull(strstr(
      a.body, "{\"name\":\"hand at 45\",\"kind\":\"pose\",\"pass\":false,"
              "\"message\":\"1 of 1 expectations fail; hand position off "
              "by 0.38268"));
  mem_answer_free(&a);

  /* Each format, its content type; the verdict is the status still. */
  static const struct {
    const char *format, *ctype, *start;
  } formats[] = {
      {"junit", "application/xml", "<?xml version=\"1.0\""},
      {"tap", "text/plain; charset=utf-8", "TAP version 13\n1..4\n"},
      {"html", "text/html; charset=utf-8", "<!DOCTYPE html>"},
  };
  for (size_t i = 0; i < 3; i++) {
    char target[64], ctype[96];
    snprintf(target, sizeof target, "/v1/test?format=%s", formats[i].format);
    snprintf(ctype, sizeof ctype, "Content-Type: %s\r\n", formats[i].ctype);
    a = api_json("POST", target, fail_suite);
    ck_assert_int_eq(a.status, 422);
    ck_assert_msg(strstr(a.head, ctype) != NULL, "%s", a.head);
    ck_assert_msg(strncmp(a.body, formats[i].start, strlen(formats[i].start)) ==
                      0,
                  "%s", a.body);
    if (i == 2) /* The failing pose drawn, its hand highlighted. */
      ck_assert_ptr_nonnull(strstr(a.body, "<svg"));
    mem_answer_free(&a);
  }
  mem_server_stop();
}
END_TEST

START_TEST(test_http_refusals) {
  mem_server_start();
  upload_arm();
  mem_answer_t info = mem_get("/v1/info");
  ck_assert_ptr_nonnull(strstr(info.body, "\"max_suite_cases\":1000,"));
  ck_assert_ptr_nonnull(strstr(info.body, "\"max_answer_bytes\":67108864,"));
  mem_answer_free(&info);
  api_expect(api_json("POST", "/v1/test?format=xml", pass_suite), 400,
             "bad_parameter", "format", "format=xml");
  api_expect(api_json("POST", "/v1/test?formats=tap", pass_suite), 400,
             "unknown_parameter", "formats", "a typo");
  api_expect(api_json("POST", "/v1/test",
                      "{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"check\":{"
                      "\"clip\":\"raise\"}},{\"name\":\"a\",\"check\":{"
                      "\"clip\":\"raise\"}}]}"),
             400, "duplicate_name", "cases[1].name", "duplicate");
  api_expect(api_json("POST", "/v1/test",
                      "{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"check\":{"
                      "\"clip\":\"raise\"}},{\"name\":\"b\",\"check\":{"
                      "\"clip\":\"raise\"}},{\"name\":\"c\",\"compare\":{"
                      "\"a\":{\"clip\":\"nope\"},\"b\":{\"clip\":\"raise\"}}}"
                      "]}"),
             404, "not_found", "cases[2].compare.a.clip", "unknown clip");
  api_expect(api_json("POST", "/v1/test",
                      "{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"pose\":{"
                      "\"skeleton\":\"arm\",\"layers\":[{\"clip\":\"raise\","
                      "\"t\":0}]},\"expect\":[{\"joint\":\"foot\","
                      "\"position\":[0,0,0]}]}]}"),
             400, "unknown_joint", "cases[0].expect[0].joint", "no such joint");
  mem_server_stop();
}
END_TEST

/* All cases together evaluate at most 10 x max_frames frames: with
 * max_frames 40, twelve comparisons of 31 frames run (372), the
 * thirteenth fails alone. */
START_TEST(test_http_frame_budget) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.max_frames = 40;
  mem_server_start_cfg(&cfg);
  upload_arm();
  char body[4096] = "{\"name\":\"many\",\"cases\":[";
  for (int i = 0; i < 13; i++) {
    char one[160];
    snprintf(one, sizeof one,
             "%s{\"name\":\"c%d\",\"compare\":{\"a\":{\"clip\":\"raise\"},"
             "\"b\":{\"clip\":\"raise\"}}}",
             i ? "," : "", i);
    strcat(body, one);
  }
  strcat(body, "]}");
  mem_answer_t a = api_json("POST", "/v1/test?format=tap", body);
  ck_assert_int_eq(a.status, 422);
  ck_assert_ptr_nonnull(strstr(a.body, "ok 12 - c11\nnot ok 13 - c12\n"));
  ck_assert_ptr_nonnull(
      strstr(a.body, "(too_many_frames at cases[12].compare)"));
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

/* Writes text to dir/name; the path into path. */
static void write_file(const char *dir, const char *name, const char *text,
                       char *path, size_t cap) {
  snprintf(path, cap, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* Runs animd test with args; the exit status, stdout in *out. */
static int run_cli(char **argv, int argc, char **out, size_t *len) {
  FILE *o = open_memstream(out, len);
  FILE *e = fopen("/dev/null", "w");
  int rc = srv_test_main(argc, argv, o, e);
  fclose(o);
  fclose(e);
  return rc;
}

START_TEST(test_cli) {
  char dir[] = "/tmp/animd-test-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char asset[96], pass[96], fail[96], bad[96];
  write_file(dir, "arm.json", arm, asset, sizeof asset);
  write_file(dir, "pass.json", pass_suite, pass, sizeof pass);
  write_file(dir, "fail.json", fail_suite, fail, sizeof fail);
  write_file(dir, "bad.json", "{\"name\":\"s\",\"cases\":[{\"name\":\"a\"}]}",
             bad, sizeof bad);
  char *out = NULL;
  size_t len = 0;
  char *a1[] = {"test", pass, asset};
  ck_assert_int_eq(run_cli(a1, 3, &out, &len), 0);
  free(out);
  char *a2[] = {"test", fail, asset, "--format", "tap"};
  ck_assert_int_eq(run_cli(a2, 5, &out, &len), 1);
  ck_assert_ptr_nonnull(strstr(out, "not ok 4 - hand at 45\n"));
  free(out);
  char *a3[] = {"test", bad, asset};
  ck_assert_int_eq(run_cli(a3, 3, &out, &len), 2);
  free(out);
  char *a4[] = {"test", pass}; /* No assets: not_found. */
  ck_assert_int_eq(run_cli(a4, 2, &out, &len), 2);
  free(out);
  char *a5[] = {"test", pass, asset, "--format", "xml"};
  ck_assert_int_eq(run_cli(a5, 5, &out, &len), 2);
  free(out);
  char *a6[] = {"test"};
  ck_assert_int_eq(run_cli(a6, 1, &out, &len), 2);
  free(out);

  /* The same report bytes as POST /v1/test, in every format but JUnit
   * (whose times are measured). */
  mem_server_start();
  upload_arm();
  static const char *const formats[] = {"json", "tap", "html"};
  for (size_t i = 0; i < 3; i++) {
    char target[64];
    snprintf(target, sizeof target, "/v1/test?format=%s", formats[i]);
    mem_answer_t a = api_json("POST", target, fail_suite);
    char *argv[] = {"test", fail, asset, "--format", (char *)formats[i]};
    ck_assert_int_eq(run_cli(argv, 5, &out, &len), 1);
    ck_assert_uint_eq(len, a.body_len);
    ck_assert_msg(memcmp(out, a.body, len) == 0, "%s differs", formats[i]);
    free(out);
    mem_answer_free(&a);
  }
  mem_server_stop();

  /* -o writes the report to a file. */
  char report[128];
  snprintf(report, sizeof report, "%s/report.xml", dir);
  char *a7[] = {"test", fail, asset, "--format", "junit", "-o", report};
  ck_assert_int_eq(run_cli(a7, 7, &out, &len), 1);
  ck_assert_uint_eq(len, 0);
  free(out);
  FILE *f = fopen(report, "r");
  ck_assert_ptr_nonnull(f);
  char head[64] = "";
  ck_assert_ptr_nonnull(fgets(head, sizeof head, f));
  fclose(f);
  ck_assert_str_eq(head, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  unlink(report);
  unlink(asset);
  unlink(pass);
  unlink(fail);
  unlink(bad);
  rmdir(dir);
}
END_TEST

Suite *api_test_suite(void) {
  Suite *s = suite_create("api_test");
  TCase *tc = tcase_create("test");
  tcase_add_test(tc, test_http_verdicts);
  tcase_add_test(tc, test_http_refusals);
  tcase_add_test(tc, test_http_frame_budget);
  tcase_add_test(tc, test_cli);
  suite_add_tcase(s, tc);
  return s;
}
