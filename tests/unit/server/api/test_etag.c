/* Tests for the ETags of answers (api/etag.h): the digits of
 * srv__etag_hex against snprintf's over edge and pseudo-random hashes; a
 * tag's form ("\"" + 32 lowercase hex digits + "\""), the same parts
 * giving the same tag and one bit of them another. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "server/api/etag.h"

START_TEST(test_etag_digits) {
  char got[40], want[40];
  uint64_t x = 0x243f6a8885a308d3ull;
  for (int n = 0; n < 2000; n++) {
    uint64_t h1 = n == 0 ? 0 : n == 1 ? UINT64_MAX : x, h2 = x * 31 + n;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    srv__etag_hex(got, h1, h2);
    snprintf(want, sizeof want, "\"%016" PRIx64 "%016" PRIx64 "\"", h1, h2);
    ck_assert_str_eq(got, want);
  }
  unsigned char parts[300];
  for (size_t i = 0; i < sizeof parts; i++)
    parts[i] = (unsigned char)(i * 37 + 11);
  for (size_t len = 0; len <= sizeof parts; len += 7) {
    srv__etag(got, parts, len);
    srv__etag(want, parts, len);
    ck_assert_str_eq(got, want);
    ck_assert_uint_eq(strlen(got), 34);
    ck_assert(got[0] == '"' && got[33] == '"');
    for (int i = 1; i < 33; i++)
      ck_assert_msg((got[i] >= '0' && got[i] <= '9') ||
                        (got[i] >= 'a' && got[i] <= 'f'),
                    "%s", got);
  }
  /* One bit of the parts changes the tag. */
  char other[40];
  srv__etag(got, parts, 100);
  parts[50] ^= 1;
  srv__etag(other, parts, 100);
  ck_assert_str_ne(got, other);
}
END_TEST

Suite *api_etag_suite(void) {
  Suite *s = suite_create("api_etag");
  TCase *tc = tcase_create("etag");
  tcase_add_test(tc, test_etag_digits);
  suite_add_tcase(s, tc);
  return s;
}
