/* Tests for the ETags of answers (api/etag.h): the form ("\"" + 32
 * lowercase hex digits + "\""), the digits against snprintf's of the two
 * 64-bit hashes computed here the same way, and different parts giving
 * different tags. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "server/api/etag.h"

static uint64_t mix(uint64_t h, uint64_t w, uint64_t k) {
  h = (h ^ w) * k;
  return h ^ (h >> 31);
}

/* The ETag of parts as etag.c's comment describes it, printed by
 * snprintf. */
static void reference(char *out, const void *parts, size_t len) {
  const unsigned char *p = parts;
  const uint64_t k1 = 0x9e3779b97f4a7c15ull, k2 = 0xc2b2ae3d27d4eb4full;
  uint64_t h1 = 0xcbf29ce484222325ull ^ len, h2 = 0x84222325cbf29ce4ull;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h1 = mix(h1, w, k1);
    h2 = mix(h2, w, k2);
  }
  uint64_t w = 0;
  memcpy(&w, p + i, len - i);
  h1 = mix(mix(h1, w, k1), len, k2);
  h2 = mix(mix(h2, w, k2), len, k1);
  snprintf(out, 40, "\"%016" PRIx64 "%016" PRIx64 "\"", h1, h2);
}

START_TEST(test_etag_digits) {
  unsigned char parts[300];
  for (size_t i = 0; i < sizeof parts; i++)
    parts[i] = (unsigned char)(i * 37 + 11);
  char got[40], want[40];
  for (size_t len = 0; len <= sizeof parts; len += 7) {
    srv__etag(got, parts, len);
    reference(want, parts, len);
    ck_assert_str_eq(got, want);
    ck_assert_uint_eq(strlen(got), 34);
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
