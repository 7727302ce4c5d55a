/* tests: the one error table (formats/error_codes.h): every code has one
 * wire string, one status and a message, and the decoders and the store
 * report codes of it, with the spot at fault. */
#include <check.h>
#include <string.h>

#include "formats/bundle.h"
#include "formats/error.h"

START_TEST(table_rows_are_well_formed) {
  for (int i = 0; i < FMT_ERR_COUNT_; i++) {
    fmt_error_code c = (fmt_error_code)i;
    const char *name = fmt_error_name(c);
    ck_assert_ptr_nonnull(name);
    ck_assert_int_gt((int)strlen(name), 0);
    for (const char *p = name; *p; p++)
      ck_assert_msg((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
                        *p == '_',
                    "%s is not snake_case", name);
    /* Unique: the lookup finds this row and no other. */
    ck_assert_int_eq(fmt_error_lookup(name), i);
    for (int j = 0; j < i; j++)
      ck_assert_str_ne(fmt_error_name((fmt_error_code)j), name);
    ck_assert_int_ge(fmt_error_status(c), 400);
    ck_assert_int_le(fmt_error_status(c), 599);
    ck_assert_ptr_nonnull(fmt_error_message(c));
    ck_assert_int_gt((int)strlen(fmt_error_message(c)), 0);
    ck_assert_int_le(fmt_error_ws_kind(c), FMT_WS_HANDSHAKE);
  }
  ck_assert_int_eq(fmt_error_lookup("no_such_code"), -1);
  ck_assert_int_eq(fmt_error_lookup(NULL), -1);
  ck_assert_str_eq(fmt_error_name(FMT_ERR_COUNT_), "internal");
  ck_assert_int_eq(fmt_error_status((fmt_error_code)-1), 500);
}
END_TEST

START_TEST(fail_fills_code_at_message) {
  fmt_error_t e;
  memset(&e, 0, sizeof e);
  ck_assert_int_eq(
      fmt_fail(&e, FMT_ERR_NAME_CONFLICT, "clips[0]", "%d clips", 7), -1);
  ck_assert_int_eq(e.code, FMT_ERR_NAME_CONFLICT);
  ck_assert_str_eq(fmt_error_name(e.code), "name_conflict");
  ck_assert_int_eq(fmt_error_status(e.code), 409);
  ck_assert_str_eq(e.at, "clips[0]");
  ck_assert_str_eq(e.message, "7 clips");
  /* No format: the default message; no at: "". */
  fmt_fail(&e, FMT_ERR_INSUFFICIENT_STORAGE, NULL, NULL);
  ck_assert_str_eq(e.at, "");
  ck_assert_str_eq(e.message, "the store is full");
  ck_assert_int_eq(fmt_error_status(e.code), 507);
  ck_assert_int_eq(fmt_fail(NULL, FMT_ERR_IO_ERROR, "", "y"), -1);
}
END_TEST

START_TEST(core_results_map_to_codes) {
  ck_assert_int_eq(fmt_error_of_result(ANIM_ERR_CYCLE), FMT_ERR_CYCLE);
  ck_assert_int_eq(fmt_error_of_result(ANIM_ERR_TOO_MANY_JOINTS),
                   FMT_ERR_TOO_MANY_JOINTS);
  ck_assert_int_eq(fmt_error_of_result(ANIM_OK), FMT_ERR_INTERNAL);
  /* Every result names a code whose wire string is the core's name. */
  for (int r = 1; r < ANIM_RESULT_COUNT_; r++)
    ck_assert_str_eq(fmt_error_name(fmt_error_of_result((anim_result)r)),
                     anim_result_str((anim_result)r));
}
END_TEST

/* Decodes body as ctype, expecting failure with code at at. */
static void expect_fail(const char *ctype, const char *body,
                        fmt_error_code code, const char *at) {
  fmt_bundle_t b;
  fmt_error_t e;
  memset(&e, 0, sizeof e);
  ck_assert_int_eq(fmt_decode(ctype, body, strlen(body), NULL, &b, &e), -1);
  ck_assert_msg(e.code == code && strcmp(e.at, at) == 0,
                "%s: got %s at \"%s\" (%s), expected %s at \"%s\"", body,
                fmt_error_name(e.code), e.at, e.message, fmt_error_name(code),
                at);
}

START_TEST(decoders_report_table_codes) {
  expect_fail("application/json", "{", FMT_ERR_BAD_JSON, "line 1, column 1");
  expect_fail("application/json", "{\"skeleton\":[]}", FMT_ERR_WRONG_TYPE,
              "skeleton");
  expect_fail("application/json",
              "{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":3}]}}",
              FMT_ERR_PARENT_RANGE, "skeleton.joints[0].parent");
  expect_fail("model/gltf+json", "{\"asset\":{\"version\":\"1.0\"}}",
              FMT_ERR_UNSUPPORTED_GLTF_VERSION, "asset.version");
  expect_fail("application/x-bvh", "HIERARCHY\nROOT", FMT_ERR_BVH_SYNTAX,
              "line 2");
  expect_fail("text/plain", "x", FMT_ERR_UNSUPPORTED_MEDIA_TYPE,
              "Content-Type");
  expect_fail("model/gltf-binary", "glTF", FMT_ERR_TRUNCATED, "glb");
  expect_fail("application/x-md5anim", "MD5Version 10\n",
              FMT_ERR_SKELETON_REQUIRED, "skeleton");
  ck_assert_int_eq(fmt_error_status(FMT_ERR_UNSUPPORTED_MEDIA_TYPE), 415);
  ck_assert_int_eq(fmt_error_status(FMT_ERR_TOO_MANY_JOINTS), 413);
}
END_TEST

Suite *error_codes_suite(void) {
  Suite *s = suite_create("error_codes");
  TCase *tc = tcase_create("table");
  tcase_add_test(tc, table_rows_are_well_formed);
  tcase_add_test(tc, fail_fills_code_at_message);
  tcase_add_test(tc, core_results_map_to_codes);
  tcase_add_test(tc, decoders_report_table_codes);
  suite_add_tcase(s, tc);
  return s;
}
