/* server: running request tasks inline or on the pool (task.h). */
#include "server/http/task.h"

void *srv__task_new(srv_request_t *req, size_t size) {
  srv_schedule_t *s = srv_request_schedule(req);
  return srv_task_blocks_new(s ? srv_schedule_blocks(s) : NULL, size);
}

void srv__task_delete(void *task) { srv_task_blocks_delete(task); }

static void task_work(srv_job_t *job) {
  srv_task_t *t = (srv_task_t *)job;
  t->work(t);
}

static void task_done(srv_job_t *job, int status) {
  srv_task_t *t = (srv_task_t *)job;
  srv_request_t *req = t->req;
  if (status == 0 && !srv_request_gone(req)) t->respond(t);
  t->free(t);
  srv_request_release(req);
}

int srv__task_submit(srv_task_t *t, unsigned long cost) {
  srv_schedule_t *s = srv_request_schedule(t->req);
  t->job.work = task_work;
  t->job.done = task_done;
  srv_request_hold(t->req);
  if (srv_schedule_inline(s, cost)) {
    t->work(t);
    task_done(&t->job, 0);
    return 0;
  }
  int rc = srv_schedule_submit(s, &t->job);
  if (rc != 0) srv_request_release(t->req);
  return rc;
}

void srv__task_run(srv_task_t *t, srv_request_t *req, unsigned long cost) {
  t->req = req;
  if (srv__task_submit(t, cost) != 0) {
    t->free(t);
    srv_respond_fail_h(req, SRV_ERR_OVERLOADED, "Retry-After: 1\r\n", NULL,
                       "the worker queue is full; retry shortly");
  }
}
