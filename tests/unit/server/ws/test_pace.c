/* Tests for stream pacing arithmetic against hand-computed values: due
 * times of frame n at fps f are n * 1e9 / f ns after the start (rounded to
 * the nanosecond), clip times t0 + n * speed / f, late ticks skip to the
 * latest due frame, and the three wrap modes of DESIGN.md. */
#include <check.h>

#include "server/ws/pace.h"

#define T0 1000000000ull /* An arbitrary start on the monotonic clock. */

START_TEST(test_due_and_time) {
  srv_ws_clock_t c;
  srv_ws_clock_init(&c, T0, 60, 1, 0.25);
  ck_assert_uint_eq(srv_ws_clock_due(&c, 0), T0);
  ck_assert_uint_eq(srv_ws_clock_due(&c, 1), T0 + 16666667);
  ck_assert_uint_eq(srv_ws_clock_due(&c, 3), T0 + 50000000);
  ck_assert_uint_eq(srv_ws_clock_due(&c, 600), T0 + 10000000000ull);
  /* No drift after a day of frames: 60 * 86400 frames is 86400 s. */
  ck_assert_uint_eq(srv_ws_clock_due(&c, 5184000), T0 + 86400000000000ull);
  ck_assert_double_eq_tol(srv_ws_clock_time(&c, 0), 0.25, 1e-12);
  ck_assert_double_eq_tol(srv_ws_clock_time(&c, 30), 0.75, 1e-12);
  srv_ws_clock_init(&c, T0, 30, -2, 1);
  ck_assert_double_eq_tol(srv_ws_clock_time(&c, 15), 0, 1e-12);
  ck_assert_double_eq_tol(srv_ws_clock_time(&c, 45), -2, 1e-12);
}
END_TEST

START_TEST(test_frame_at_boundaries) {
  srv_ws_clock_t c;
  srv_ws_clock_init(&c, T0, 60, 1, 0);
  ck_assert_int_eq(srv_ws_clock_frame_at(&c, T0 - 1), -1);
  ck_assert_int_eq(srv_ws_clock_frame_at(&c, T0), 0);
  ck_assert_int_eq(srv_ws_clock_frame_at(&c, T0 + 16666666), 0);
  ck_assert_int_eq(srv_ws_clock_frame_at(&c, T0 + 16666667), 1);
  /* 2e9 / 60 = 33333333.3 rounds down: frame 2 is due at +33333333. */
  ck_assert_int_eq(srv_ws_clock_frame_at(&c, T0 + 33333332), 1);
  ck_assert_int_eq(srv_ws_clock_frame_at(&c, T0 + 33333333), 2);
  for (int64_t n = 0; n < 2000; n++) {
    uint64_t d = srv_ws_clock_due(&c, n);
    ck_assert_int_eq(srv_ws_clock_frame_at(&c, d), n);
    ck_assert_int_eq(srv_ws_clock_frame_at(&c, d - 1), n - 1);
  }
}
END_TEST

START_TEST(test_tick_skips_late_frames) {
  srv_ws_clock_t c;
  srv_ws_clock_init(&c, T0, 50, 1, 0); /* 20 ms per frame. */
  srv_ws_tick_t t = srv_ws_clock_tick(&c, 0, T0 + 1000);
  ck_assert_int_eq(t.frame, 0);
  ck_assert_int_eq(t.skipped, 0);
  ck_assert_int_eq(t.late_ns, 1000);
  /* Early wake-up: frame 1 is due at +20 ms. */
  t = srv_ws_clock_tick(&c, 1, T0 + 19999999);
  ck_assert_int_eq(t.frame, -1);
  /* 75 ms late: frames 1, 2 and 3 are due; 3 is sent, 1 and 2 skipped. */
  t = srv_ws_clock_tick(&c, 1, T0 + 75000000);
  ck_assert_int_eq(t.frame, 3);
  ck_assert_int_eq(t.skipped, 2);
  ck_assert_int_eq(t.late_ns, 15000000);
}
END_TEST

START_TEST(test_rebase) {
  srv_ws_clock_t c;
  srv_ws_clock_init(&c, T0, 60, 1, 0);
  /* At frame 60 (t = 1 s) the speed doubles: frame 90 is 30 frames of
   * 2/60 s later, t = 2 s, due 0.5 s after frame 60. */
  srv_ws_clock_rebase(&c, 60, srv_ws_clock_due(&c, 60),
                      srv_ws_clock_time(&c, 60));
  c.speed = 2;
  ck_assert_double_eq_tol(srv_ws_clock_time(&c, 90), 2, 1e-12);
  ck_assert_uint_eq(srv_ws_clock_due(&c, 90), T0 + 1500000000ull);
  /* fps 30 from frame 90: frame 120 is 1 s later. */
  srv_ws_clock_rebase(&c, 90, srv_ws_clock_due(&c, 90),
                      srv_ws_clock_time(&c, 90));
  c.fps = 30;
  ck_assert_uint_eq(srv_ws_clock_due(&c, 120), T0 + 2500000000ull);
  ck_assert_double_eq_tol(srv_ws_clock_time(&c, 120), 4, 1e-12);
}
END_TEST

START_TEST(test_wrap) {
  /* clamp */
  ck_assert_double_eq(srv_ws_wrap(-1, 2, 0), 0);
  ck_assert_double_eq(srv_ws_wrap(1.5, 2, 0), 1.5);
  ck_assert_double_eq(srv_ws_wrap(3, 2, 0), 2);
  /* loop: t = d gives 0, negative times wrap */
  ck_assert_double_eq(srv_ws_wrap(2, 2, 1), 0);
  ck_assert_double_eq_tol(srv_ws_wrap(2.5, 2, 1), 0.5, 1e-12);
  ck_assert_double_eq_tol(srv_ws_wrap(-0.5, 2, 1), 1.5, 1e-12);
  ck_assert_double_eq_tol(srv_ws_wrap(1e6 + 0.25, 2, 1), 0.25, 1e-9);
  /* pingpong: forward then backward, period 2d */
  ck_assert_double_eq_tol(srv_ws_wrap(0.5, 2, 2), 0.5, 1e-12);
  ck_assert_double_eq_tol(srv_ws_wrap(2.5, 2, 2), 1.5, 1e-12);
  ck_assert_double_eq_tol(srv_ws_wrap(4.5, 2, 2), 0.5, 1e-12);
  ck_assert_double_eq_tol(srv_ws_wrap(-0.5, 2, 2), 0.5, 1e-12);
  ck_assert_double_eq(srv_ws_wrap(2, 2, 2), 2);
  /* A zero-length clip always gives 0. */
  ck_assert_double_eq(srv_ws_wrap(5, 0, 1), 0);
}
END_TEST

Suite *ws_pace_suite(void) {
  Suite *s = suite_create("ws_pace");
  TCase *tc = tcase_create("pace");
  tcase_add_test(tc, test_due_and_time);
  tcase_add_test(tc, test_frame_at_boundaries);
  tcase_add_test(tc, test_tick_skips_late_frames);
  tcase_add_test(tc, test_rebase);
  tcase_add_test(tc, test_wrap);
  suite_add_tcase(s, tc);
  return s;
}
