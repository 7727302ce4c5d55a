/* server: the dedicated worker pool that evaluates poses, ranges, skinning
 * and imports.
 *
 * Its own threads (not libuv's uv_queue_work pool, which file I/O and DNS
 * share), a bounded FIFO of jobs, and one uv_async_t that brings finished
 * jobs back to the loop thread, where their done callbacks run. Lock
 * order: the pool has two locks (queue, done list) and never holds both. */
#ifndef ANIMD_SERVER_POOL_H
#define ANIMD_SERVER_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

typedef struct srv_job_s srv_job_t;

/* A unit of work, embedded by the caller in its own struct (container
 * style). work runs on a worker thread and must touch only what the job
 * owns (immutable assets, copied parameters, its output buffer). done runs
 * on the loop thread exactly once per successful submit: status 0, or
 * UV_ECANCELED when the pool closed before the work ran. */
struct srv_job_s {
  void (*work)(srv_job_t *job);
  void (*done)(srv_job_t *job, int status);
  /* private */
  srv_job_t *_next;
  int _status;
};

typedef struct srv_pool_s {
  /* private */
  uv_loop_t *_loop;
  uv_async_t _async;
  pthread_t *_threads;
  unsigned _thread_count;
  unsigned _queue_max;
  pthread_mutex_t _qlock;
  pthread_cond_t _qcond;
  srv_job_t *_head, *_tail; /* Waiting jobs. */
  unsigned _queued;
  bool _stop;
  pthread_mutex_t _dlock;
  srv_job_t *_done_head, *_done_tail;
  unsigned _busy;           /* Read with atomics. */
  uint64_t _completed;      /* Loop thread. */
} srv_pool_t;

/* Starts threads workers (0 = one per CPU) with at most queue_max waiting
 * jobs. Returns 0 or a negative errno. */
int srv_pool_init(srv_pool_t *pool, uv_loop_t *loop, unsigned threads,
                  unsigned queue_max);

/* Queues a job. Returns 0, or UV_EAGAIN when the queue is full (the caller
 * answers 503 with Retry-After; done will not run). Loop thread only. */
int srv_pool_submit(srv_pool_t *pool, srv_job_t *job);

/* Stops the threads after their current job, completes waiting jobs with
 * UV_ECANCELED (their done callbacks run inside this call) and closes the
 * async handle (the loop must run once more to finish closing it). */
void srv_pool_close(srv_pool_t *pool);

unsigned srv_pool_threads(const srv_pool_t *pool);
unsigned srv_pool_queue_depth(srv_pool_t *pool);
unsigned srv_pool_busy(srv_pool_t *pool);

#endif
