/* server: the scheduling policy (schedule.h). */
#include "server/schedule.h"

#include <sched.h>
#include <stddef.h>

#include "formats/release_memory.h"

uint64_t srv_schedule_next_pause(uint64_t pause_ns, uint64_t took_ns) {
  if (took_ns <= SRV_YIELD_SLOW_NS) return pause_ns / 2;
  uint64_t next = 2 * pause_ns + SRV_YIELD_SLOW_NS;
  return next < SRV_YIELD_PAUSE_MAX_NS ? next : SRV_YIELD_PAUSE_MAX_NS;
}

/* Before each poll: the budget starts again, and a loop that ran work
 * inline lets threads waiting for its CPU run first, unless a recent
 * yield found threads that keep the CPU. */
static void on_tick(uv_prepare_t *h) {
  srv_schedule_t *s = h->data;
  if (s->_before_poll != NULL) s->_before_poll(s->_before_poll_arg);
  if (s->_yield && s->_spent > 0) {
    uint64_t before = uv_hrtime();
    if (before >= s->_yield_resume) {
      sched_yield();
      uint64_t after = uv_hrtime();
      s->_yield_pause =
          srv_schedule_next_pause(s->_yield_pause, after - before);
      s->_yield_resume = after + s->_yield_pause;
      atomic_fetch_add_explicit(&s->_yields, 1, memory_order_relaxed);
    }
  }
  s->_spent = 0;
}

void srv_schedule_init(srv_schedule_t *s, uv_loop_t *loop, srv_pool_t *pool,
                       srv_pool_inbox_t *inbox, unsigned inline_cost,
                       bool yield) {
  s->_pool = pool;
  s->_inbox = inbox;
  s->_inline_cost = inline_cost;
  s->_spent = 0;
  s->_yield = yield;
  s->_rejected = 0;
  s->_yields = 0;
  s->_yield_pause = 0;
  s->_yield_resume = 0;
  s->_trim_queued = false;
  srv_task_blocks_init(&s->_blocks);
  s->_before_poll = NULL;
  s->_before_poll_arg = NULL;
  uv_prepare_init(loop, &s->_tick);
  s->_tick.data = s;
  uv_prepare_start(&s->_tick, on_tick);
  uv_unref((uv_handle_t *)&s->_tick);
}

void srv_schedule_before_poll(srv_schedule_t *s, void (*fn)(void *arg),
                              void *arg) {
  s->_before_poll = fn;
  s->_before_poll_arg = arg;
}

void srv_schedule_close(srv_schedule_t *s) {
  uv_close((uv_handle_t *)&s->_tick, NULL);
  srv_task_blocks_close(&s->_blocks);
}

bool srv_schedule_inline(srv_schedule_t *s, unsigned long cost) {
  /* Cheap work runs here until this iteration's budget is spent, busy
   * pool or not: a hand-off costs more than the work. */
  if (!srv_cost_inline(cost, s->_inline_cost) ||
      s->_spent + cost > SRV_INLINE_BUDGET)
    return false;
  s->_spent += cost;
  return true;
}

int srv_schedule_submit(srv_schedule_t *s, srv_job_t *job) {
  int rc = srv_pool_submit_to(s->_pool, job, s->_inbox);
  if (rc != 0) s->_rejected++;
  return rc;
}

uint64_t srv_schedule_rejected(srv_schedule_t *s) {
  return atomic_load(&s->_rejected);
}

uint64_t srv_schedule_yields(srv_schedule_t *s) {
  return atomic_load_explicit(&s->_yields, memory_order_relaxed);
}

static void trim_work(srv_job_t *job) {
  (void)job;
  fmt_release_memory(FMT_RELEASE_THRESHOLD);
}

static void trim_done(srv_job_t *job, int status) {
  (void)status;
  srv_schedule_t *s =
      (srv_schedule_t *)((char *)job - offsetof(srv_schedule_t, _trim));
  s->_trim_queued = false;
}

void srv_schedule_release_memory(srv_schedule_t *s) {
  if (s->_trim_queued) return;
  s->_trim.work = trim_work;
  s->_trim.done = trim_done;
  if (srv_pool_submit_to(s->_pool, &s->_trim, s->_inbox) == 0)
    s->_trim_queued = true;
}
