/* Tests for a suite's reports (verdict/report.h): the exact text of each
 * format for a small fixed result set built by hand (one passing case,
 * one failing), and XML escaping. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "server/verdict/report.h"

/* Two cases: "walk" (a pose, passing) and "hand <\"grip\"> & #2" (a
 * compare, failing), in a suite named "exports & co". */
static void fixed(verdict_suite_result_t *r, verdict_case_result_t *c) {
  memset(c, 0, 2 * sizeof *c);
  c[0].name = "walk";
  c[0].kind = VERDICT_CASE_POSE;
  c[0].pass = true;
  c[0].seconds = 0.00125;
  fmt_buf_puts(&c[0].detail, "{\"expect\":[]}");
  c[1].name = "hand <\"grip\"> & #2";
  c[1].kind = VERDICT_CASE_COMPARE;
  c[1].pass = false;
  c[1].seconds = 0.5;
  strcpy(c[1].message, "max error 0.5 > 0.1 at a&b, t=1 s");
  fmt_buf_puts(&c[1].detail, "{\"pass\":false,\"j\":\"<x>\"}");
  fmt_buf_puts(&c[1].picture, "<svg width=\"2\" height=\"2\"></svg>");
  strcpy(c[1].caption, "a (blue) & b");
  *r = (verdict_suite_result_t){.name = "exports & co",
                                .cases = c,
                                .case_count = 2,
                                .passed = 1,
                                .failed = 1,
                                .seconds = 0.75};
}

static void free_fixed(verdict_case_result_t *c) {
  for (int i = 0; i < 2; i++) {
    fmt_buf_free(&c[i].detail);
    fmt_buf_free(&c[i].picture);
  }
}

/* The fixed results' report in format f (malloc'd). */
static char *report_text(verdict_report_format f) {
  verdict_case_result_t c[2];
  verdict_suite_result_t r;
  fixed(&r, c);
  fmt_buf_t b = FMT_BUF_INIT;
  verdict_report_write(&b, f, &r);
  free_fixed(c);
  ck_assert(fmt_buf_cstr(&b) != NULL);
  return fmt_buf_steal(&b, &(size_t){0});
}

static void expect_text(verdict_report_format f, const char *want) {
  char *got = report_text(f);
  ck_assert_msg(strcmp(got, want) == 0, "got:\n%s\nwant:\n%s", got, want);
  free(got);
}

START_TEST(test_report_json) {
  expect_text(VERDICT_REPORT_JSON,
              "{\"name\":\"exports & co\",\"passed\":1,\"failed\":1,"
              "\"cases\":[{\"name\":\"walk\",\"kind\":\"pose\",\"pass\":true,"
              "\"detail\":{\"expect\":[]}},{\"name\":\"hand <\\\"grip\\\"> & "
              "#2\",\"kind\":\"compare\",\"pass\":false,\"message\":\"max "
              "error 0.5 > 0.1 at a&b, t=1 s\",\"detail\":{\"pass\":false,"
              "\"j\":\"<x>\"}}]}\n");
}
END_TEST

START_TEST(test_report_junit) {
  expect_text(
      VERDICT_REPORT_JUNIT,
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"exports &amp; co\" tests=\"2\" failures=\"1\" "
      "errors=\"0\" time=\"0.750\">\n"
      "  <testsuite name=\"exports &amp; co\" tests=\"2\" failures=\"1\" "
      "errors=\"0\" time=\"0.750\">\n"
      "    <testcase name=\"walk\" classname=\"exports &amp; co.pose\" "
      "time=\"0.001\"/>\n"
      "    <testcase name=\"hand &lt;&quot;grip&quot;&gt; &amp; #2\" "
      "classname=\"exports &amp; co.compare\" time=\"0.500\">\n"
      "      <failure message=\"max error 0.5 &gt; 0.1 at a&amp;b, t=1 s\" "
      "type=\"compare\">max error 0.5 &gt; 0.1 at a&amp;b, t=1 s</failure>\n"
      "    </testcase>\n"
      "  </testsuite>\n"
      "</testsuites>\n");
}
END_TEST

START_TEST(test_report_tap) {
  expect_text(VERDICT_REPORT_TAP,
              "TAP version 13\n"
              "1..2\n"
              "ok 1 - walk\n"
              "not ok 2 - hand <\"grip\"> & \\#2\n"
              "  ---\n"
              "  kind: compare\n"
              "  message: \"max error 0.5 > 0.1 at a&b, t=1 s\"\n"
              "  ...\n"
              "# exports & co: 1 passed, 1 failed\n");
}
END_TEST

START_TEST(test_report_html) {
  char *got = report_text(VERDICT_REPORT_HTML);
  static const char *const parts[] = {
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>exports &amp; co: 1 passed, 1 failed</title>\n<style>",
      "</style>\n</head>\n<body>\n<h1>exports &amp; co</h1>\n"
      "<p class=\"summary\">1 passed, 1 failed</p>\n"
      "<table id=\"cases\">\n<thead><tr><th>#</th><th>case</th><th>kind</th>"
      "<th>verdict</th><th>message</th></tr></thead>\n<tbody>\n"
      "<tr class=\"pass\"><td>1</td><td>walk</td><td>pose</td>"
      "<td class=\"verdict\">pass</td><td></td></tr>\n"
      "<tr class=\"fail\"><td>2</td><td><a href=\"#case-2\">hand "
      "&lt;&quot;grip&quot;&gt; &amp; #2</a></td><td>compare</td>"
      "<td class=\"verdict\">fail</td><td>max error 0.5 &gt; 0.1 at a&amp;b, "
      "t=1 s</td></tr>\n</tbody>\n</table>\n"
      "<section class=\"case\" id=\"case-2\">\n<h2>hand "
      "&lt;&quot;grip&quot;&gt; &amp; #2</h2>\n<p>max error 0.5 &gt; 0.1 at "
      "a&amp;b, t=1 s</p>\n<figure>\n<svg width=\"2\" height=\"2\"></svg>\n"
      "<figcaption>a (blue) &amp; b</figcaption>\n</figure>\n"
      "<details><summary>detail</summary><pre>{&quot;pass&quot;:false,"
      "&quot;j&quot;:&quot;&lt;x&gt;&quot;}</pre></details>\n</section>\n"
      "</body>\n</html>\n"};
  const char *style_end = strstr(got, "</style>");
  ck_assert_ptr_nonnull(style_end);
  ck_assert_msg(strncmp(got, parts[0], strlen(parts[0])) == 0, "%s", got);
  ck_assert_msg(strcmp(style_end, parts[1]) == 0, "%s", style_end);
  /* Self-contained: nothing loaded from elsewhere. */
  ck_assert_ptr_null(strstr(got, "src="));
  ck_assert_ptr_null(strstr(got, "http"));
  free(got);
}
END_TEST

START_TEST(test_report_escaping) {
  fmt_buf_t b = FMT_BUF_INIT;
  /* XML: a name with markup and a control character XML cannot carry. */
  verdict_case_result_t x = {.name = "<a b='c'>\x01",
                             .kind = VERDICT_CASE_POSE};
  strcpy(x.message, "1 & 2");
  verdict_suite_result_t xr = {
      .name = "s", .cases = &x, .case_count = 1, .failed = 1};
  verdict_report_write(&b, VERDICT_REPORT_JUNIT, &xr);
  ck_assert_ptr_nonnull(strstr(
      fmt_buf_cstr(&b),
      "<testcase name=\"&lt;a b=&apos;c&apos;&gt;&#xFFFD;\" "
      "classname=\"s.pose\" "
      "time=\"0.000\">\n      <failure message=\"1 &amp; 2\" type=\"pose\">1 "
      "&amp; 2</failure>"));
  fmt_buf_free(&b);
  /* JSON strings of names and messages: control characters escaped. */
  verdict_case_result_t c = {.name = "a\"\n\\", .kind = VERDICT_CASE_CHECK};
  strcpy(c.message, "x\ty");
  verdict_suite_result_t r = {
      .name = "s", .cases = &c, .case_count = 1, .failed = 1};
  verdict_report_write(&b, VERDICT_REPORT_JSON, &r);
  ck_assert_str_eq(fmt_buf_cstr(&b),
                   "{\"name\":\"s\",\"passed\":0,\"failed\":1,\"cases\":[{"
                   "\"name\":\"a\\\"\\n\\\\\",\"kind\":\"check\",\"pass\":"
                   "false,\"message\":\"x\\ty\",\"detail\":null}]}\n");
  fmt_buf_free(&b);
  /* TAP: one line per test, # escaped. */
  verdict_report_write(&b, VERDICT_REPORT_TAP, &r);
  ck_assert_ptr_nonnull(strstr(fmt_buf_cstr(&b), "not ok 1 - a\" \\\\\n"));
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_report_formats) {
  verdict_report_format f;
  srv_error_t err;
  ck_assert_int_eq(verdict_report_format_parse(NULL, "format", &f, &err), 0);
  ck_assert_int_eq(f, VERDICT_REPORT_JSON);
  ck_assert_int_eq(verdict_report_format_parse("junit", "format", &f, &err), 0);
  ck_assert_int_eq(f, VERDICT_REPORT_JUNIT);
  ck_assert_str_eq(verdict_report_content_type(f), "application/xml");
  ck_assert_int_eq(verdict_report_format_parse("xml", "format", &f, &err), -1);
  ck_assert_int_eq(err.code, SRV_ERR_BAD_PARAMETER);
  ck_assert_str_eq(err.at, "format");
  ck_assert_str_eq(verdict_report_content_type(VERDICT_REPORT_TAP),
                   "text/plain; charset=utf-8");
  ck_assert_str_eq(verdict_report_content_type(VERDICT_REPORT_HTML),
                   "text/html; charset=utf-8");
}
END_TEST

Suite *verdict_report_suite(void) {
  Suite *s = suite_create("verdict_report");
  TCase *tc = tcase_create("report");
  tcase_add_test(tc, test_report_json);
  tcase_add_test(tc, test_report_junit);
  tcase_add_test(tc, test_report_tap);
  tcase_add_test(tc, test_report_html);
  tcase_add_test(tc, test_report_escaping);
  tcase_add_test(tc, test_report_formats);
  suite_add_tcase(s, tc);
  return s;
}
