/* Tests for a loop's free lists of task memory (server/task_blocks.h):
 * blocks come back zeroed and reused, each size to its own list, the
 * lists are capped, sizes beyond the large block and blocks after close
 * go to malloc and free, and a kept block is poisoned under
 * AddressSanitizer. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "server/task_blocks.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

/* True when the n bytes at p are all zero. */
static bool zeroed(const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++)
    if (c[i] != 0) return false;
  return true;
}

START_TEST(test_reused_zeroed_and_aligned) {
  srv_task_blocks_t b;
  srv_task_blocks_init(&b);
  unsigned char *p = srv_task_blocks_new(&b, 776);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq((uintptr_t)p % _Alignof(max_align_t), 0);
  ck_assert(zeroed(p, 776));
  memset(p, 0xab, 776);
  srv_task_blocks_delete(p);
  ck_assert_uint_eq(srv_task_blocks_kept(&b), 1);
#if defined(__SANITIZE_ADDRESS__)
  ck_assert(__asan_address_is_poisoned(p));
  ck_assert(__asan_address_is_poisoned(p + 775));
#endif
  /* The same block, zeroed again, for any size of its list. */
  unsigned char *q = srv_task_blocks_new(&b, 900);
  ck_assert_ptr_eq(q, p);
  ck_assert(zeroed(q, 900));
  ck_assert_uint_eq(srv_task_blocks_kept(&b), 0);
  /* A large task does not take a small block. */
  srv_task_blocks_delete(q);
  unsigned char *l = srv_task_blocks_new(&b, 7688);
  ck_assert_ptr_nonnull(l);
  ck_assert_ptr_ne(l, p);
  ck_assert(zeroed(l, 7688));
  ck_assert_uint_eq(srv_task_blocks_kept(&b), 1);
  memset(l, 0xcd, 7688);
  srv_task_blocks_delete(l);
  ck_assert_uint_eq(srv_task_blocks_kept(&b), 2);
  unsigned char *l2 = srv_task_blocks_new(&b, 2000);
  ck_assert_ptr_eq(l2, l);
  ck_assert(zeroed(l2, 2000));
  srv_task_blocks_delete(l2);
  srv_task_blocks_close(&b);
  ck_assert_uint_eq(srv_task_blocks_kept(&b), 0);
}
END_TEST

START_TEST(test_lists_are_capped) {
  srv_task_blocks_t b;
  srv_task_blocks_init(&b);
  void *small[SRV_TASK_BLOCKS_SMALL_KEPT + 5];
  void *large[SRV_TASK_BLOCKS_LARGE_KEPT + 3];
  for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
    ck_assert_ptr_nonnull(small[i] = srv_task_blocks_new(&b, 64));
  for (size_t i = 0; i < sizeof large / sizeof large[0]; i++)
    ck_assert_ptr_nonnull(large[i] = srv_task_blocks_new(&b, 4096));
  for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
    srv_task_blocks_delete(small[i]);
  ck_assert_uint_eq(srv_task_blocks_kept(&b), SRV_TASK_BLOCKS_SMALL_KEPT);
  for (size_t i = 0; i < sizeof large / sizeof large[0]; i++)
    srv_task_blocks_delete(large[i]);
  ck_assert_uint_eq(srv_task_blocks_kept(&b),
                    SRV_TASK_BLOCKS_SMALL_KEPT + SRV_TASK_BLOCKS_LARGE_KEPT);
  /* The most a loop keeps. */
  ck_assert_uint_le(SRV_TASK_BLOCKS_SMALL_KEPT * SRV_TASK_BLOCK_SMALL +
                        SRV_TASK_BLOCKS_LARGE_KEPT * SRV_TASK_BLOCK_LARGE,
                    48 * 1024);
  srv_task_blocks_close(&b);
  ck_assert_uint_eq(srv_task_blocks_kept(&b), 0);
}
END_TEST

START_TEST(test_heap_blocks) {
  srv_task_blocks_t b;
  srv_task_blocks_init(&b);
  /* Beyond the large block: malloc and free, never kept. */
  unsigned char *p = srv_task_blocks_new(&b, SRV_TASK_BLOCK_LARGE);
  ck_assert_ptr_nonnull(p);
  ck_assert(zeroed(p, SRV_TASK_BLOCK_LARGE));
  srv_task_blocks_delete(p);
  ck_assert_uint_eq(srv_task_blocks_kept(&b), 0);
  /* Without lists. */
  p = srv_task_blocks_new(NULL, 100);
  ck_assert_ptr_nonnull(p);
  ck_assert(zeroed(p, 100));
  srv_task_blocks_delete(p);
  srv_task_blocks_delete(NULL);
  /* A block given back after close is freed, not kept. */
  p = srv_task_blocks_new(&b, 100);
  srv_task_blocks_close(&b);
  srv_task_blocks_delete(p);
  ck_assert_uint_eq(srv_task_blocks_kept(&b), 0);
  p = srv_task_blocks_new(&b, 100);
  ck_assert_ptr_nonnull(p);
  srv_task_blocks_delete(p);
  ck_assert_uint_eq(srv_task_blocks_kept(&b), 0);
  /* A size that would overflow. */
  ck_assert_ptr_null(srv_task_blocks_new(&b, SIZE_MAX - 8));
}
END_TEST

Suite *server_task_blocks_suite(void) {
  Suite *s = suite_create("server_task_blocks");
  TCase *tc = tcase_create("blocks");
  tcase_add_test(tc, test_reused_zeroed_and_aligned);
  tcase_add_test(tc, test_lists_are_capped);
  tcase_add_test(tc, test_heap_blocks);
  suite_add_tcase(s, tc);
  return s;
}
