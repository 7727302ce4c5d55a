/* Tests for the HTTP loop's scheduling policy: the inline budget of one
 * loop iteration and its reset before each poll, work above inline_cost
 * never inline, the yield after an iteration that ran work inline (only
 * then, and only when enabled), and the pause after slow yields; on a
 * pool, refused submits counted, and at most one memory trim queued at a
 * time (skipped by a full pool, without counting as a rejection). */
#include <check.h>
#include <stdatomic.h>
#include <unistd.h>
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
  /* At least one more, unless a yield was slow (then a pause is set). */
  ck_assert(srv_schedule_yields(&on) >= 2 || on._yield_pause > 0);
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

/* ---- on a pool ------------------------------------------------------------
 */

static atomic_bool gate_open;
static atomic_bool gate_in;
static int gate_done_count;

static void gate_work(srv_job_t *j) {
  (void)j;
  atomic_store(&gate_in, true);
  for (int i = 0; i < 5000 && !atomic_load(&gate_open); i++) usleep(1000);
}

static void gate_done(srv_job_t *j, int status) {
  (void)j;
  (void)status;
  gate_done_count++;
}

/* Holds the pool's one worker until gate_open. */
static void hold_worker(uv_loop_t *loop, srv_pool_t *pool, srv_job_t *job) {
  atomic_store(&gate_open, false);
  atomic_store(&gate_in, false);
  *job = (srv_job_t){.work = gate_work, .done = gate_done};
  ck_assert_int_eq(srv_pool_submit(pool, job), 0);
  for (int i = 0; i < 5000 && !atomic_load(&gate_in); i++) {
    uv_run(loop, UV_RUN_NOWAIT);
    usleep(1000);
  }
  ck_assert(atomic_load(&gate_in));
}

/* Lets it go and runs the loop until the pool is idle and want jobs of
 * the gate's kind have completed. */
static void release_worker(uv_loop_t *loop, srv_pool_t *pool, int want) {
  atomic_store(&gate_open, true);
  uint64_t end = uv_hrtime() + 5000000000ull;
  while ((gate_done_count < want || srv_pool_queue_depth(pool) > 0 ||
          srv_pool_busy(pool) > 0) &&
         uv_hrtime() < end)
    uv_run(loop, UV_RUN_NOWAIT);
  /* The trim job's done runs from the same loop. */
  for (int i = 0; i < 20; i++) uv_run(loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(gate_done_count, want);
}

START_TEST(test_rejections_counted) {
  fixture_t f;
  fixture_open(&f);
  srv_pool_t pool;
  ck_assert_int_eq(srv_pool_init(&pool, &f.loop, 1, 2), 0);
  srv_schedule_t s;
  srv_schedule_init(&s, &f.loop, &pool, NULL, 100, false);
  gate_done_count = 0;
  srv_job_t hold, waiting[3];
  hold_worker(&f.loop, &pool, &hold);
  for (int i = 0; i < 3; i++)
    waiting[i] = (srv_job_t){.work = gate_work, .done = gate_done};
  ck_assert_int_eq(srv_schedule_submit(&s, &waiting[0]), 0);
  ck_assert_int_eq(srv_schedule_submit(&s, &waiting[1]), 0);
  ck_assert_uint_eq(srv_schedule_rejected(&s), 0);
  ck_assert_int_eq(srv_schedule_submit(&s, &waiting[2]), UV_EAGAIN);
  ck_assert_int_eq(srv_schedule_submit(&s, &waiting[2]), UV_EAGAIN);
  ck_assert_uint_eq(srv_schedule_rejected(&s), 2);
  release_worker(&f.loop, &pool, 3);
  ck_assert_int_eq(srv_schedule_submit(&s, &waiting[2]), 0);
  release_worker(&f.loop, &pool, 4);
  ck_assert_uint_eq(srv_schedule_rejected(&s), 2);
  srv_schedule_close(&s);
  srv_pool_close(&pool);
  fixture_close(&f);
}
END_TEST

START_TEST(test_one_trim_at_a_time) {
  fixture_t f;
  fixture_open(&f);
  srv_pool_t pool;
  ck_assert_int_eq(srv_pool_init(&pool, &f.loop, 1, 3), 0);
  srv_schedule_t s;
  srv_schedule_init(&s, &f.loop, &pool, NULL, 100, false);
  gate_done_count = 0;
  srv_job_t hold;
  hold_worker(&f.loop, &pool, &hold);
  /* Asked three times while one waits: one job. */
  srv_schedule_release_memory(&s);
  srv_schedule_release_memory(&s);
  srv_schedule_release_memory(&s);
  ck_assert_uint_eq(srv_pool_queue_depth(&pool), 1);
  release_worker(&f.loop, &pool, 1);
  /* Once it is done, it may be asked again. */
  hold_worker(&f.loop, &pool, &hold);
  srv_schedule_release_memory(&s);
  ck_assert_uint_eq(srv_pool_queue_depth(&pool), 1);
  release_worker(&f.loop, &pool, 2);
  /* A full pool skips it, and it is not counted as a rejected request. */
  hold_worker(&f.loop, &pool, &hold);
  srv_job_t fill[3];
  for (int i = 0; i < 3; i++) {
    fill[i] = (srv_job_t){.work = gate_work, .done = gate_done};
    ck_assert_int_eq(srv_pool_submit(&pool, &fill[i]), 0);
  }
  srv_schedule_release_memory(&s);
  ck_assert_uint_eq(srv_pool_queue_depth(&pool), 3);
  ck_assert_uint_eq(srv_schedule_rejected(&s), 0);
  release_worker(&f.loop, &pool, 6);
  /* Not left marked as queued: the next one goes. */
  hold_worker(&f.loop, &pool, &hold);
  srv_schedule_release_memory(&s);
  ck_assert_uint_eq(srv_pool_queue_depth(&pool), 1);
  release_worker(&f.loop, &pool, 7);
  srv_schedule_close(&s);
  srv_pool_close(&pool);
  fixture_close(&f);
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
  TCase *pool = tcase_create("on_pool");
  tcase_set_timeout(pool, 30);
  tcase_add_test(pool, test_rejections_counted);
  tcase_add_test(pool, test_one_trim_at_a_time);
  suite_add_tcase(s, pool);
  return s;
}
