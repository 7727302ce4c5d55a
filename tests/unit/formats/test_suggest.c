/* Tests for "did you mean" (formats/suggest.h): distances against values
 * worked out by hand (optimal string alignment), the case-only match
 * first, the threshold, ties, the cap of candidates, and a store-sized
 * list of names. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/suggest.h"

START_TEST(test_distances) {
  static const struct {
    const char *a, *b;
    unsigned d;
  } cases[] = {
      {"lisen", "listen", 1},   /* one insertion */
      {"wav", "wave", 1},       /* one insertion at the end */
      {"hand_R", "hand_r", 0},  /* case only */
      {"spaec", "space", 1},    /* a swap of neighbours */
      {"kitten", "sitting", 3}, /* the textbook case */
      {"flaw", "lawn", 2},
      {"", "abc", 3},
      {"abc", "", 3},
      /* A shared stem or ending changes nothing. */
      {"character_clip_4242x", "character_clip_42420", 1},
      {"xab", "xba", 1},
      {"aab", "aba", 1},
      {"walk_Left", "WALK_left", 0},
      {"run_fast", "ran_fast", 1},
      {"same", "same", 0},
      {"ca", "abc", 3}, /* OSA, not Damerau: no edit
                           of a swapped pair */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ck_assert_msg(fmt_suggest_distance(cases[i].a, cases[i].b, 5) == cases[i].d,
                  "%s/%s: %u, want %u", cases[i].a, cases[i].b,
                  fmt_suggest_distance(cases[i].a, cases[i].b, 5), cases[i].d);
  /* Beyond max: max + 1, whatever the true distance. */
  ck_assert_uint_eq(fmt_suggest_distance("kitten", "sitting", 2), 3);
  ck_assert_uint_eq(fmt_suggest_distance("a", "abcdefgh", 2), 3);
  char longer[FMT_SUGGEST_NAME_MAX + 2];
  memset(longer, 'x', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  ck_assert_uint_eq(fmt_suggest_distance(longer, longer, 3), 4);
}
END_TEST

START_TEST(test_nearest) {
  static const char *const options[] = {
      "listen", "ready_file", "data_dir", "demo", "workers", "store", NULL};
  ck_assert_str_eq(fmt_suggest_list("lisen", options), "listen");
  ck_assert_str_eq(fmt_suggest_list("LISTEN", options), "listen");
  ck_assert_str_eq(fmt_suggest_list("worker", options), "workers");
  ck_assert_str_eq(fmt_suggest_list("data-dir", options), "data_dir");
  /* Far-off names get nothing: 1 edit up to 4 bytes, 2 up to 8, 3 beyond. */
  ck_assert_ptr_null(fmt_suggest_list("port", options));
  ck_assert_ptr_null(fmt_suggest_list("xyz", options));
  ck_assert_str_eq(fmt_suggest_list("dmeoo", options), "demo"); /* 2 edits */
  ck_assert_ptr_null(fmt_suggest_list("", options));
  ck_assert_ptr_null(fmt_suggest_list("lisen", NULL));
  /* The exact name is no suggestion of itself. */
  ck_assert_ptr_null(
      fmt_suggest_list("demo", (const char *const[]){"demo", NULL}));
  /* Case first, even after a closer-looking name was offered. */
  static const char *const clips[] = {"wave", "Wave2", "Wave", NULL};
  ck_assert_str_eq(fmt_suggest_list("WAVE", clips), "wave");
  ck_assert_str_eq(fmt_suggest_list("wav", clips), "wave");
  static const char *const joints[] = {"hand_l", "hand_r", "Hand_R", NULL};
  ck_assert_str_eq(fmt_suggest_list("hand_R", joints), "hand_r");
  /* Ties go to the first offered. */
  static const char *const tie[] = {"abce", "abcf", NULL};
  ck_assert_str_eq(fmt_suggest_list("abcd", tie), "abce");
  /* The thresholds: "abcdefghij" (10 bytes) takes 3 edits, not 4. */
  ck_assert_str_eq(
      fmt_suggest_list("abcdefghij", (const char *const[]){"abcdefgxyz", NULL}),
      "abcdefgxyz");
  ck_assert_ptr_null(fmt_suggest_list(
      "abcdefghij", (const char *const[]){"abcdefwxyz", NULL}));
}
END_TEST

START_TEST(test_cap) {
  fmt_suggest_t s;
  fmt_suggest_init(&s, "wave", 2);
  fmt_suggest_offer(&s, "idle");
  ck_assert(!fmt_suggest_full(&s));
  fmt_suggest_offer(&s, "run");
  ck_assert(fmt_suggest_full(&s));
  fmt_suggest_offer(&s, "wav"); /* beyond the cap: ignored */
  ck_assert_ptr_null(fmt_suggest_best(&s));
  ck_assert_uint_eq(s.offered, 2);
}
END_TEST

/* 60,000 names like a big store's: the nearest is found among them. */
START_TEST(test_many_names) {
  enum { N = 60000 };
  char(*names)[24] = malloc(N * sizeof *names);
  ck_assert_ptr_nonnull(names);
  for (int i = 0; i < N; i++)
    snprintf(names[i], sizeof names[i], "clip_%05d", i);
  fmt_suggest_t s;
  fmt_suggest_init(&s, "clip_4242x", 0);
  for (int i = 0; i < N; i++) fmt_suggest_offer(&s, names[i]);
  /* clip_42420 is one substitution away; clip_04242 two edits. */
  ck_assert_str_eq(fmt_suggest_best(&s), "clip_42420");
  ck_assert_uint_eq(s.offered, N);
  free(names);
}
END_TEST

Suite *formats_suggest_suite(void) {
  Suite *s = suite_create("formats_suggest");
  TCase *tc = tcase_create("suggest");
  tcase_add_test(tc, test_distances);
  tcase_add_test(tc, test_nearest);
  tcase_add_test(tc, test_cap);
  tcase_add_test(tc, test_many_names);
  suite_add_tcase(s, tc);
  return s;
}
