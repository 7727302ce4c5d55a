/* server: a request's unit of work, run on the pool or inline.
 *
 * A handler fills a task (embedded first in its own struct) and calls
 * srv__task_run with an estimate of its cost: cheap work runs right away on
 * the loop thread (a pose of a few dozen joints costs less than the
 * hand-off to a worker and back), the rest goes to the pool. Either way
 * respond runs on the loop thread while the client is still connected,
 * then free always runs once. The task holds the request
 * (srv_request_hold), so a client that leaves mid-job only makes respond
 * be skipped. */
#ifndef ANIMD_SERVER_TASK_H
#define ANIMD_SERVER_TASK_H

#include <stdbool.h>

#include "server/http/http.h"
#include "server/pool.h"

/* Cost units one loop iteration may run inline (work below inline_cost
 * each); beyond the budget work goes to the pool, so the loop never stalls
 * for long on a burst. A 67-joint binary pose (cost 67) evaluates in about
 * 1 us, while handing it to a worker and back costs tens of microseconds
 * of wake-ups and locking, so under load inline is faster too
 * (scripts/bench-http: about 65,000 against 35,000-60,000 requests/s on
 * 2 cores). */
#define SRV_INLINE_BUDGET 8192

/* A JSON answer prints every float as text: about 50 times the cost of
 * evaluating it (71 us against 1.2 us for 67 joints), so JSON work counts
 * this many times its evaluation cost. */
#define SRV_JSON_COST 32

/* The scheduling cost of work of evaluation cost `cost` answered in binary
 * or JSON. */
static inline unsigned long srv__answer_cost(unsigned long cost, bool bin) {
  return bin ? cost : cost * SRV_JSON_COST;
}

typedef struct srv_task_s srv_task_t;
struct srv_task_s {
  srv_job_t job; /* First member. */
  srv_request_t *req;
  /* Worker thread (or loop thread when inline): touches only the task. */
  void (*work)(srv_task_t *t);
  /* Loop thread, client connected: answers req. */
  void (*respond)(srv_task_t *t);
  /* Loop thread, always, last: frees the task. */
  void (*free)(srv_task_t *t);
};

/* Runs t for req: inline when cost < inline_cost, else on the pool. A full
 * pool answers 503 with Retry-After and frees the task. */
void srv__task_run(srv_task_t *t, srv_request_t *req, unsigned long cost);

/* As srv__task_run without an answer on a full pool: returns UV_EAGAIN
 * then (the task is not freed), for work that continues a started answer
 * (ranges), which retries. 0 otherwise. */
int srv__task_submit(srv_task_t *t, unsigned long cost);

#endif
