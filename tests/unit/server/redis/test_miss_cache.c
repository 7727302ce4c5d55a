/* Tests for the miss cache of the Redis backend (redis/miss_cache.h): a
 * miss is found again until its time is up, a clear forgets every miss at
 * once, a miss looked up before a clear is not remembered, keys differ by
 * their bytes (a NUL inside included), and a ttl of 0 keeps nothing. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "server/redis/miss_cache.h"

#define KEY(s) s, sizeof s - 1

START_TEST(test_remembered_then_expired) {
  srv_miss_cache_t *c = srv_miss_cache_new(50);
  ck_assert_ptr_nonnull(c);
  ck_assert(!srv_miss_cache_has(c, KEY("clip\0nope\0")));
  srv_miss_cache_add(c, KEY("clip\0nope\0"), srv_miss_cache_generation(c));
  ck_assert(srv_miss_cache_has(c, KEY("clip\0nope\0")));
  ck_assert(!srv_miss_cache_has(c, KEY("clip\0nope\0x")));
  ck_assert(!srv_miss_cache_has(c, KEY("mesh\0nope\0")));
  ck_assert_uint_eq(srv_miss_cache_hits(c), 1);
  /* Past the ttl (50 ms): bounded wait of 40 x 5 ms. */
  bool gone = false;
  for (int i = 0; i < 40 && !gone; i++) {
    nanosleep(&(struct timespec){.tv_nsec = 5 * 1000 * 1000}, NULL);
    gone = !srv_miss_cache_has(c, KEY("clip\0nope\0"));
  }
  ck_assert(gone);
  srv_miss_cache_free(c);
}
END_TEST

START_TEST(test_clear_forgets_and_refuses_older_misses) {
  srv_miss_cache_t *c = srv_miss_cache_new(60000);
  uint64_t g = srv_miss_cache_generation(c);
  srv_miss_cache_add(c, KEY("clip\0a\0"), g);
  srv_miss_cache_add(c, KEY("clip\0b\0"), g);
  ck_assert(srv_miss_cache_has(c, KEY("clip\0a\0")));
  srv_miss_cache_clear(c);
  ck_assert(!srv_miss_cache_has(c, KEY("clip\0a\0")));
  ck_assert(!srv_miss_cache_has(c, KEY("clip\0b\0")));
  /* Looked up before the clear: it may have been published since. */
  srv_miss_cache_add(c, KEY("clip\0a\0"), g);
  ck_assert(!srv_miss_cache_has(c, KEY("clip\0a\0")));
  srv_miss_cache_add(c, KEY("clip\0a\0"), srv_miss_cache_generation(c));
  ck_assert(srv_miss_cache_has(c, KEY("clip\0a\0")));
  ck_assert_uint_eq(srv_miss_cache_generation(c), g + 1);
  srv_miss_cache_free(c);
}
END_TEST

START_TEST(test_ttl_zero_keeps_nothing) {
  srv_miss_cache_t *c = srv_miss_cache_new(0);
  srv_miss_cache_add(c, KEY("clip\0a\0"), srv_miss_cache_generation(c));
  ck_assert(!srv_miss_cache_has(c, KEY("clip\0a\0")));
  ck_assert_uint_eq(srv_miss_cache_hits(c), 0);
  srv_miss_cache_free(c);
}
END_TEST

START_TEST(test_bounded_slots) {
  /* Twice as many misses as slots: each key is found or forgotten, never
   * confused with another, and memory stays one key per slot. */
  srv_miss_cache_t *c = srv_miss_cache_new(60000);
  uint64_t g = srv_miss_cache_generation(c);
  char key[32];
  for (int i = 0; i < 2 * SRV_MISS_CACHE_SLOTS; i++) {
    int n = snprintf(key, sizeof key, "clip%c%d%c", 0, i, 0);
    srv_miss_cache_add(c, key, (size_t)n, g);
  }
  size_t found = 0;
  for (int i = 0; i < 2 * SRV_MISS_CACHE_SLOTS; i++) {
    int n = snprintf(key, sizeof key, "clip%c%d%c", 0, i, 0);
    found += srv_miss_cache_has(c, key, (size_t)n);
  }
  ck_assert_uint_le(found, SRV_MISS_CACHE_SLOTS);
  ck_assert_uint_gt(found, 0);
  srv_miss_cache_free(c);
}
END_TEST

Suite *server_miss_cache_suite(void) {
  Suite *s = suite_create("server_miss_cache");
  TCase *tc = tcase_create("miss_cache");
  tcase_add_test(tc, test_remembered_then_expired);
  tcase_add_test(tc, test_clear_forgets_and_refuses_older_misses);
  tcase_add_test(tc, test_ttl_zero_keeps_nothing);
  tcase_add_test(tc, test_bounded_slots);
  suite_add_tcase(s, tc);
  return s;
}
