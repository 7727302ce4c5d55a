/* Tests for anim_result_str: every code has a distinct, stable name. */
#include <check.h>
#include <string.h>

#include "animd/base.h"

START_TEST(test_result_names_distinct) {
  for (int a = 0; a < ANIM_RESULT_COUNT_; a++) {
    const char *na = anim_result_str((anim_result)a);
    ck_assert_str_ne(na, "unknown");
    for (int b = a + 1; b < ANIM_RESULT_COUNT_; b++)
      ck_assert_str_ne(na, anim_result_str((anim_result)b));
  }
  ck_assert_str_eq(anim_result_str(ANIM_OK), "ok");
  ck_assert_str_eq(anim_result_str(ANIM_ERR_CYCLE), "cycle");
  ck_assert_str_eq(anim_result_str((anim_result)999), "unknown");
}
END_TEST

Suite *result_suite(void) {
  Suite *s = suite_create("result");
  TCase *tc = tcase_create("names");
  tcase_add_test(tc, test_result_names_distinct);
  suite_add_tcase(s, tc);
  return s;
}
