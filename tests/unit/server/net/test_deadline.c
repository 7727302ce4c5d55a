/* Tests for deadlines (server/deadline.h), both the timerfd kind and the
 * millisecond fallback: a deadline never fires before its instant on
 * uv_hrtime's clock, fires once, at once when already past, not at all
 * when stopped, re-arming replaces the instant, and closing calls back;
 * re-armed from its own callback, armed for instant 0, closed while
 * armed, and several on one loop (both kinds mixed). */
#include <check.h>
#include <string.h>

#include "server/net/deadline.h"

typedef struct fired_s {
  int count;
  uint64_t due, at;
  int closed;
} fired_t;

static void on_fire(srv_deadline_t *d) {
  fired_t *f = d->data;
  f->count++;
  f->at = uv_hrtime();
}

static void on_closed(srv_deadline_t *d) {
  fired_t *f = d->data;
  f->closed++;
}

typedef int (*init_fn)(uv_loop_t *, srv_deadline_t *);
static const init_fn inits[2] = {srv_deadline_init, srv_deadline_init_ms};

/* Runs loop until f fired or closed, at most 2 s of loop turns. */
static void run_until(uv_loop_t *loop, fired_t *f, int count) {
  uint64_t start = uv_hrtime();
  while (f->count < count && uv_hrtime() - start < 2000000000ull)
    uv_run(loop, UV_RUN_ONCE);
}

START_TEST(test_never_early) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  srv_deadline_t d;
  fired_t f = {0};
  ck_assert_int_eq(inits[_i](&loop, &d), 0);
  d.data = &f;
  /* Instants off the millisecond grid, 0.3 to 3.3 ms ahead. */
  for (int k = 0; k < 20; k++) {
    f.due = uv_hrtime() + 300000 + (uint64_t)k * 150001;
    srv_deadline_start(&d, f.due, on_fire);
    run_until(&loop, &f, k + 1);
    ck_assert_int_eq(f.count, k + 1);
    ck_assert_uint_ge(f.at, f.due);
  }
  srv_deadline_close(&d, on_closed);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(f.closed, 1);
  ck_assert_int_eq(f.count, 20);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(test_past_restart_and_stop) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  srv_deadline_t d;
  fired_t f = {0};
  ck_assert_int_eq(inits[_i](&loop, &d), 0);
  d.data = &f;
  /* Already past: fires on the next loop turn. */
  srv_deadline_start(&d, uv_hrtime() - 1000000, on_fire);
  run_until(&loop, &f, 1);
  ck_assert_int_eq(f.count, 1);
  /* Re-arming replaces: armed far ahead, then moved near, fires once at
   * the near instant. */
  srv_deadline_start(&d, uv_hrtime() + 60000000000ull, on_fire);
  f.due = uv_hrtime() + 1000000;
  srv_deadline_start(&d, f.due, on_fire);
  run_until(&loop, &f, 2);
  ck_assert_int_eq(f.count, 2);
  ck_assert_uint_ge(f.at, f.due);
  /* Stopped: the loop has nothing left to wait for and ends. */
  srv_deadline_start(&d, uv_hrtime() + 1000000, on_fire);
  srv_deadline_stop(&d);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(f.count, 2);
  /* Unreferenced: an armed deadline does not keep the loop running. */
  srv_deadline_unref(&d);
  srv_deadline_start(&d, uv_hrtime() + 60000000000ull, on_fire);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(f.count, 2);
  srv_deadline_close(&d, on_closed);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(f.closed, 1);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* Re-armed from its own callback, as a pacer does: each fires once, never
 * before its instant. */
static int rearm_left;
static uint64_t rearm_due;
static int rearm_early;

static void on_rearm(srv_deadline_t *d) {
  fired_t *f = d->data;
  f->count++;
  if (uv_hrtime() < rearm_due) rearm_early++;
  if (--rearm_left > 0) {
    rearm_due = uv_hrtime() + 200000;
    srv_deadline_start(d, rearm_due, on_rearm);
  }
}

START_TEST(test_rearm_from_callback) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  srv_deadline_t d;
  fired_t f = {0};
  ck_assert_int_eq(inits[_i](&loop, &d), 0);
  d.data = &f;
  rearm_left = 10;
  rearm_early = 0;
  rearm_due = uv_hrtime() + 200000;
  srv_deadline_start(&d, rearm_due, on_rearm);
  /* The loop runs while the chain is armed, and ends with it. */
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(f.count, 10);
  ck_assert_int_eq(rearm_early, 0);
  srv_deadline_close(&d, NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(test_zero_stop_and_close_armed) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  srv_deadline_t d;
  fired_t f = {0};
  ck_assert_int_eq(inits[_i](&loop, &d), 0);
  d.data = &f;
  /* Stopping what is not armed does nothing. */
  srv_deadline_stop(&d);
  /* Instant 0 is long past: at once. */
  srv_deadline_start(&d, 0, on_fire);
  run_until(&loop, &f, 1);
  ck_assert_int_eq(f.count, 1);
  /* Stopped, then armed again: fires once. */
  srv_deadline_start(&d, uv_hrtime() + 500000, on_fire);
  srv_deadline_stop(&d);
  srv_deadline_stop(&d);
  f.due = uv_hrtime() + 500000;
  srv_deadline_start(&d, f.due, on_fire);
  run_until(&loop, &f, 2);
  ck_assert_int_eq(f.count, 2);
  ck_assert_uint_ge(f.at, f.due);
  /* Closed while armed: never fires, the close callback runs once. */
  srv_deadline_start(&d, uv_hrtime() + 1000000, on_fire);
  srv_deadline_close(&d, on_closed);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(f.count, 2);
  ck_assert_int_eq(f.closed, 1);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* Several deadlines on one loop, each its own instant. */
START_TEST(test_several_on_one_loop) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  srv_deadline_t d[4];
  fired_t f[4];
  memset(f, 0, sizeof f);
  uint64_t now = uv_hrtime();
  for (int k = 0; k < 4; k++) {
    ck_assert_int_eq(inits[(k + _i) % 2](&loop, &d[k]), 0);
    d[k].data = &f[k];
    f[k].due = now + (uint64_t)(4 - k) * 700000;
    srv_deadline_start(&d[k], f[k].due, on_fire);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  for (int k = 0; k < 4; k++) {
    ck_assert_int_eq(f[k].count, 1);
    ck_assert_uint_ge(f[k].at, f[k].due);
    srv_deadline_close(&d[k], on_closed);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  for (int k = 0; k < 4; k++) ck_assert_int_eq(f[k].closed, 1);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

Suite *deadline_suite(void) {
  Suite *s = suite_create("deadline");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_never_early, 0, 2);
  tcase_add_loop_test(tc, test_past_restart_and_stop, 0, 2);
  tcase_add_loop_test(tc, test_rearm_from_callback, 0, 2);
  tcase_add_loop_test(tc, test_zero_stop_and_close_armed, 0, 2);
  tcase_add_loop_test(tc, test_several_on_one_loop, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}
