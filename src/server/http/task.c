/* server: running request tasks inline or on the pool (task.h). */
#include "server/http/task.h"

#include "server/internal.h"

static void task_work(srv_job_t *job) {
  srv_task_t *t = (srv_task_t *)job;
  t->work(t);
}

static void task_done(srv_job_t *job, int status) {
  srv_task_t *t = (srv_task_t *)job;
  srv_conn_t *c = t->conn;
  if (status == 0 && !srv_conn_is_closing(c)) t->respond(t);
  t->free(t);
  srv_conn_unref(c);
}

int srv__task_submit(srv_task_t *t, unsigned long cost) {
  srv_conn_t *c = t->conn;
  srv_server_t *s = c->server;
  t->job.work = task_work;
  t->job.done = task_done;
  srv_conn_ref(c);
  if (srv__inline_ok(s, cost)) {
    t->work(t);
    task_done(&t->job, 0);
    return 0;
  }
  int rc = srv_pool_submit(&s->pool, &t->job);
  if (rc != 0) {
    srv_conn_unref(c);
    s->metrics.pool_rejected++;
  }
  return rc;
}

void srv__task_run(srv_task_t *t, srv_request_t *req, unsigned long cost) {
  t->req = req;
  t->conn = req->conn;
  if (srv__task_submit(t, cost) != 0) {
    t->free(t);
    srv_respond_error_h(req, 503, "Retry-After: 1\r\n", "overloaded", NULL,
                        "the worker queue is full; retry shortly");
  }
}
