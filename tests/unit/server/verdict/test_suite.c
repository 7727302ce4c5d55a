/* Tests for parsing a test suite (verdict/suite.h): every malformed
 * suite is refused with the code and the exact spot inside it, down into
 * the bodies a case holds (a pose body, a comparison, a check, a golden);
 * a well-formed one parses every kind. Running suites is tested over
 * HTTP and `animd test` (api/test_api_test.c). */
#include <check.h>
#include <string.h>

#include "server/verdict/suite.h"

/* Parses text with at most max_cases cases, over HTTP (no suite folder):
 * expects the error code and at, or success when code is NULL. */
static void parse(const char *text, unsigned max_cases, const char *code,
                  const char *at) {
  verdict_suite_t s;
  srv_error_t err = {0};
  int rc = verdict_suite_parse(text, strlen(text), NULL, max_cases, &s, &err);
  if (code == NULL) {
    ck_assert_msg(rc == 0, "%s: %s at %s", text, err.message, err.at);
    verdict_suite_free(&s);
    return;
  }
  ck_assert_msg(rc == -1, "%s parsed", text);
  ck_assert_msg(strcmp(srv_error_name(err.code), code) == 0,
                "%s: %s (%s at %s)", text, srv_error_name(err.code),
                err.message, err.at);
  ck_assert_msg(strcmp(err.at, at) == 0, "%s: at '%s', want '%s'", text, err.at,
                at);
}

#define POSE                                                                   \
  "\"pose\":{\"skeleton\":\"arm\",\"layers\":[{\"clip\":\"wave\",\"t\":0}]},"  \
  "\"expect\":[{\"joint\":\"hand\",\"position\":[0,0,0]}]"

START_TEST(test_suite_parse_ok) {
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"p\"," POSE
        "},{\"name\":\"c\",\"compare\":{\"a\":{\"clip\":\"wave\"},\"b\":{"
        "\"clip\":\"wave\"}}},{\"name\":\"k\",\"check\":{\"clip\":\"wave\","
        "\"fps\":30,\"feet\":[\"hand\"]}},{\"name\":\"g\",\"golden\":{"
        "\"clip\":\"wave\",\"base64\":\"\"}}]}",
        10, NULL, NULL);
}
END_TEST

START_TEST(test_suite_parse_errors) {
  parse("", 10, "empty_body", "");
  parse("{\"name\":", 10, "bad_json", "line 1, column 8");
  parse("[]", 10, "wrong_type", "");
  parse("{\"cases\":[]}", 10, "missing_field", "name");
  parse("{\"name\":\"s\"}", 10, "missing_field", "cases");
  parse("{\"name\":\"s\",\"cases\":{}}", 10, "wrong_type", "cases");
  parse("{\"name\":\"s\",\"cases\":[]}", 10, "bad_value", "cases");
  parse("{\"name\":\"s\",\"cases\":[],\"x\":1}", 10, "unknown_field", "x");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"check\":{\"clip\":\"w\"}"
        "},{\"name\":\"b\",\"check\":{\"clip\":\"w\"}},{\"name\":\"c\","
        "\"check\":{\"clip\":\"w\"}}]}",
        2, "too_large", "cases");
  parse("{\"name\":\"s\",\"cases\":[7]}", 10, "wrong_type", "cases[0]");
  parse("{\"name\":\"s\",\"cases\":[{\"check\":{\"clip\":\"w\"}}]}", 10,
        "missing_field", "cases[0].name");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\"}]}", 10, "bad_value",
        "cases[0]");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"check\":{\"clip\":\"w\""
        "},\"golden\":{\"clip\":\"w\"}}]}",
        10, "bad_value", "cases[0]");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"check\":{\"clip\":\"w\""
        "},\"bogus\":1}]}",
        10, "unknown_field", "cases[0].bogus");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"check\":{\"clip\":\"w\""
        "}},{\"name\":\"a\",\"check\":{\"clip\":\"w\"}}]}",
        10, "duplicate_name", "cases[1].name");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"pose\":{\"skeleton\":"
        "\"arm\",\"layers\":[{\"clip\":\"w\",\"t\":0}]}}]}",
        10, "missing_field", "cases[0].expect");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"check\":{\"clip\":\"w\""
        "},\"expect\":[]}]}",
        10, "unknown_field", "cases[0].expect");
  /* Inside the bodies a case holds. */
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"check\":{\"clip\":\"w\""
        "}},{\"name\":\"b\",\"pose\":{\"skeleton\":\"arm\",\"layers\":[{"
        "\"clip\":\"w\"}]},\"expect\":[{\"joint\":\"j\",\"position\":[0,0,0]}]"
        "}]}",
        10, "missing_field", "cases[1].pose.layers[0].t");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"p\"," POSE
        "},{\"name\":\"q\",\"pose\":{\"skeleton\":\"arm\",\"layers\":[{\"clip\""
        ":\"w\",\"t\":0}]},\"expect\":[{\"joint\":\"j\",\"position\":[0,0]}]}]"
        "}",
        10, "value_count", "cases[1].expect[0].position");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"check\":{\"clip\":\"w\""
        "}},{\"name\":\"b\",\"check\":{\"clip\":\"w\"}},{\"name\":\"c\","
        "\"compare\":{\"a\":{\"clip\":5},\"b\":{\"clip\":\"w\"}}}]}",
        10, "wrong_type", "cases[2].compare.a.clip");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"check\":{\"fps\":30}}]}",
        10, "missing_field", "cases[0].check.clip");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"check\":{\"clip\":\"w\","
        "\"fps\":\"x\"}}]}",
        10, "wrong_type", "cases[0].check.fps");
  parse("{\"name\":\"s\",\"cases\":[{\"name\":\"a\",\"golden\":{\"clip\":\"w\","
        "\"file\":\"w.golden\"}}]}",
        10, "bad_value", "cases[0].golden.file");
}
END_TEST

Suite *verdict_suite_suite(void) {
  Suite *s = suite_create("verdict_suite");
  TCase *tc = tcase_create("parse");
  tcase_add_test(tc, test_suite_parse_ok);
  tcase_add_test(tc, test_suite_parse_errors);
  suite_add_tcase(s, tc);
  return s;
}
