/* tests: error kinds of the formats and store layers, and the one place
 * the server turns them into HTTP statuses. */
#include <check.h>
#include <string.h>

#include "error_status.h"
#include "formats/error.h"

START_TEST(fail_fills_kind_code_at) {
  fmt_error_t e;
  memset(&e, 0, sizeof e);
  ck_assert_int_eq(
      fmt_fail(&e, FMT_ERR_NAME_CONFLICT, "name_conflict", "clips[0]", "%d", 7),
      -1);
  ck_assert_int_eq(e.kind, FMT_ERR_NAME_CONFLICT);
  ck_assert_str_eq(e.code, "name_conflict");
  ck_assert_str_eq(e.at, "clips[0]");
  ck_assert_str_eq(e.message, "7");
  ck_assert_int_eq(fmt_fail(NULL, FMT_ERR_IO, "x", "", "y"), -1);
}
END_TEST

/* The statuses each kind had before kinds existed (DESIGN.md and the
 * error table of docs/api.md). */
START_TEST(kinds_map_to_statuses) {
  static const struct {
    fmt_error_kind kind;
    int status;
    const char *name;
  } cases[] = {
      {FMT_ERR_BAD_INPUT, 400, "bad_input"},
      {FMT_ERR_UNSUPPORTED_TYPE, 415, "unsupported_type"},
      {FMT_ERR_TOO_LARGE, 413, "too_large"},
      {FMT_ERR_NOT_FOUND, 404, "not_found"},
      {FMT_ERR_CONFLICT, 409, "conflict"},
      {FMT_ERR_NAME_CONFLICT, 409, "name_conflict"},
      {FMT_ERR_NO_ROOM, 507, "no_room"},
      {FMT_ERR_OUT_OF_MEMORY, 500, "out_of_memory"},
      {FMT_ERR_IO, 500, "io"},
      {FMT_ERR_INTERNAL, 500, "internal"},
  };
  ck_assert_int_eq(sizeof cases / sizeof cases[0], FMT_ERR_KIND_COUNT_ - 1);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(srv_error_kind_status(cases[i].kind), cases[i].status);
    ck_assert_str_eq(fmt_error_kind_name(cases[i].kind), cases[i].name);
  }
  ck_assert_str_eq(fmt_error_kind_name((fmt_error_kind)99), "unknown");
}
END_TEST

Suite *error_kind_suite(void) {
  Suite *s = suite_create("error_kind");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, fail_fills_kind_code_at);
  tcase_add_test(tc, kinds_map_to_statuses);
  suite_add_tcase(s, tc);
  return s;
}
