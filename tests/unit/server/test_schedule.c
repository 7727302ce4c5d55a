/* Tests for the HTTP loop's scheduling policy: the inline budget of one
 * loop iteration and its reset before each poll, work above inline_cost
 * never inline, the yield after an iteration that ran work inline (only
 * then, and only when enabled), and the pause after slow yields. */
#include <check.h>
#include <uv.h>

#include "server/schedule.h"

static void idle_noop(uv_idle_t *h) { (void)h; }

/* A loop kept alive by an idle handle, so that UV_RUN_NOWAIT runs one
 * iteration (the policy's own handle does not keep a loop alive). */
typedef struct {
  uv_loop_t loop;
  uv_idle_t idle;
} fixture_t;

static void fixture_open(fixture_t *f) {
  ck_assert_int_eq(uv_loop_init(&f->loop), 0);
  uv_idle_init(&f->loop, &f->idle);
  uv_idle_start(&f->idle, idle_noop);
}

static void fixture_close(fixture_t *f) {
  uv_close((uv_handle_t *)&f->idle, NULL);
  uv_run(&f->loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(uv_loop_close(&f->loop), 0);
}

START_TEST(test_budget_resets_each_iteration) {
  fixture_t f;
  fixture_open(&f);
  srv_schedule_t s;
  srv_schedule_init(&s, &f.loop, NULL, NULL, 2000, true);
  /* 1999 is below inline_cost; 2000 is not. */
  ck_assert(srv_schedule_inline(&s, 1999));
  ck_assert(!srv_schedule_inline(&s, 2000));
  /* Four poses of 1999 fit the budget of 8192; a fifth does not. */
  for (int i = 0; i < 3; i++) ck_assert(srv_schedule_inline(&s, 1999));
  ck_assert(!srv_schedule_inline(&s, 1999));
  ck_assert(srv_schedule_inline(&s, SRV_INLINE_BUDGET - 4 * 1999));
  ck_assert(!srv_schedule_inline(&s, 1));
  uv_run(&f.loop, UV_RUN_NOWAIT);
  ck_assert(srv_schedule_inline(&s, 1999));
  srv_schedule_close(&s);
  fixture_close(&f);
}
END_TEST

START_TEST(test_inline_cost_zero_runs_nothing_inline) {
  fixture_t f;
  fixture_open(&f);
  srv_schedule_t s;
  srv_schedule_init(&s, &f.loop, NULL, NULL, 0, true);
  ck_assert(!srv_schedule_inline(&s, 0));
  ck_assert(!srv_schedule_inline(&s, 67));
  uv_run(&f.loop, UV_RUN_NOWAIT);
  ck_assert_uint_eq(srv_schedule_yields(&s), 0);
  srv_schedule_close(&s);
  fixture_close(&f);
}
END_TEST

START_TEST(test_yields_after_inline_work_only) {
  fixture_t f;
  fixture_open(&f);
  srv_schedule_t on, off;
  srv_schedule_init(&on, &f.loop, NULL, NULL, 2000, true);
  srv_schedule_init(&off, &f.loop, NULL, NULL, 2000, false);
  /* An iteration without inline work does not yield. */
  uv_run(&f.loop, UV_RUN_NOWAIT);
  ck_assert_uint_eq(srv_schedule_yields(&on), 0);
  /* One with inline work does, once, where enabled. */
  ck_assert(srv_schedule_inline(&on, 67));
  ck_assert(srv_schedule_inline(&off, 67));
  uv_run(&f.loop, UV_RUN_NOWAIT);
  ck_assert_uint_eq(srv_schedule_yields(&on), 1);
  ck_assert_uint_eq(srv_schedule_yields(&off), 0);
  /* Work sent to the pool spends nothing on the loop: no yield. */
  ck_assert(!srv_schedule_inline(&on, 5000));
  uv_run(&f.loop, UV_RUN_NOWAIT);
  ck_assert_uint_eq(srv_schedule_yields(&on), 1);
  /* Three iterations with inline work: up to three more (a yield slower
   * than SRV_YIELD_SLOW_NS, on a machine busy with other work, pauses
   * the next ones). */
  for (int i = 0; i < 3; i++) {
    ck_assert(srv_schedule_inline(&on, 1));
    ck_assert(srv_schedule_inline(&off, 1));
    uv_run(&f.loop, UV_RUN_NOWAIT);
  }
  ck_assert_uint_ge(srv_schedule_yields(&on), 2);
  ck_assert_uint_le(srv_schedule_yields(&on), 4);
  ck_assert_uint_eq(srv_schedule_yields(&off), 0);
  srv_schedule_close(&on);
  srv_schedule_close(&off);
  fixture_close(&f);
}
END_TEST

START_TEST(test_pause_after_slow_yields) {
  const uint64_t ms = 1000000, slow = SRV_YIELD_SLOW_NS;
  /* Quick yields: no pause, or a pause that halves. */
  ck_assert_uint_eq(srv_schedule_next_pause(0, 0), 0);
  ck_assert_uint_eq(srv_schedule_next_pause(0, slow), 0);
  ck_assert_uint_eq(srv_schedule_next_pause(8 * ms, 50000), 4 * ms);
  ck_assert_uint_eq(srv_schedule_next_pause(1, 0), 0);
  /* Slow ones: 1, 3, 7, 15 ms ... up to the cap. */
  uint64_t p = 0;
  const uint64_t want[] = {1, 3, 7, 15, 31, 63, 127, 128, 128};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    p = srv_schedule_next_pause(p, slow + 1);
    ck_assert_uint_eq(p, want[i] * ms);
  }
  ck_assert_uint_eq(SRV_YIELD_PAUSE_MAX_NS, 128 * ms);
  /* From the cap, seven quick yields bring it to 1 ms. */
  for (int i = 0; i < 7; i++) p = srv_schedule_next_pause(p, 0);
  ck_assert_uint_eq(p, ms);
}
END_TEST

Suite *server_schedule_suite(void) {
  Suite *s = suite_create("server_schedule");
  TCase *tc = tcase_create("schedule");
  tcase_add_test(tc, test_budget_resets_each_iteration);
  tcase_add_test(tc, test_inline_cost_zero_runs_nothing_inline);
  tcase_add_test(tc, test_yields_after_inline_work_only);
  tcase_add_test(tc, test_pause_after_slow_yields);
  suite_add_tcase(s, tc);
  return s;
}
