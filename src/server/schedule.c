/* server: the scheduling policy (schedule.h). */
#include "server/schedule.h"

static void on_tick(uv_prepare_t *h) {
  ((srv_schedule_t *)h->data)->_spent = 0;
}

void srv_schedule_init(srv_schedule_t *s, uv_loop_t *loop, srv_pool_t *pool,
                       srv_pool_inbox_t *inbox, unsigned inline_cost) {
  s->_pool = pool;
  s->_inbox = inbox;
  s->_inline_cost = inline_cost;
  s->_spent = 0;
  s->_rejected = 0;
  uv_prepare_init(loop, &s->_tick);
  s->_tick.data = s;
  uv_prepare_start(&s->_tick, on_tick);
  uv_unref((uv_handle_t *)&s->_tick);
}

void srv_schedule_close(srv_schedule_t *s) {
  uv_close((uv_handle_t *)&s->_tick, NULL);
}

bool srv_schedule_inline(srv_schedule_t *s, unsigned long cost) {
  /* Cheap work runs here until this iteration's budget is spent, busy
   * pool or not: a hand-off costs more than the work. */
  if (cost >= s->_inline_cost || s->_spent + cost > SRV_INLINE_BUDGET)
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
