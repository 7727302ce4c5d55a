/* server: a request's unit of work, run on the pool or inline.
 *
 * A handler fills a task (embedded first in its own struct) and calls
 * srv__task_run with an estimate of its cost: cheap work runs right away on
 * the loop thread (a pose of a few dozen joints costs less than the
 * hand-off to a worker and back), the rest goes to the pool. Either way
 * respond runs on the loop thread while the client is still connected,
 * then free always runs once. The task holds the request
 * (srv_request_hold), so a client that leaves mid-job only makes respond
 * be skipped. A task's struct comes from srv__task_new and goes back with
 * srv__task_delete in its free: the loop's few kept blocks
 * (task_blocks.h), not malloc, for request after request. */
#ifndef ANIMD_SERVER_TASK_H
#define ANIMD_SERVER_TASK_H

#include <stdbool.h>

#include "server/http/http.h"
#include "server/pool.h"
#include "server/schedule.h"

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

/* A task struct of size bytes for req, zeroed, from req's loop's blocks;
 * NULL when out of memory. Loop thread. */
void *srv__task_new(srv_request_t *req, size_t size);
/* Gives back a srv__task_new struct (NULL: nothing); on the loop thread
 * it came from (a task's free runs there). */
void srv__task_delete(void *task);

/* Runs t for req as the scheduling policy says (schedule.h). A full
 * pool answers 503 with Retry-After and frees the task. */
void srv__task_run(srv_task_t *t, srv_request_t *req, unsigned long cost);

/* As srv__task_run without an answer on a full pool: returns UV_EAGAIN
 * then (the task is not freed), for work that continues a started answer
 * (ranges), which retries. 0 otherwise. */
int srv__task_submit(srv_task_t *t, unsigned long cost);

#endif
