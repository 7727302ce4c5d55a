/* server: the dedicated worker pool that evaluates poses, ranges, skinning
 * and imports.
 *
 * Its own threads (not libuv's uv_queue_work pool, which file I/O and DNS
 * share), a bounded FIFO of jobs, and an inbox (a done list and a
 * uv_async_t) that brings finished jobs back to the loop thread, where
 * their done callbacks run. Another loop (a stream loop, ws/loops.h)
 * submits through an inbox of its own, which brings its jobs back to it.
 * Lock order: the queue's lock and an inbox's are never held together. */
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
  struct srv_pool_inbox_s *_inbox; /* Where done runs. */
};

/* The way back to a loop other than the pool's: jobs submitted with
 * srv_pool_submit_to(pool, job, inbox) have their done callbacks run on
 * the inbox's loop. The inbox belongs to that loop's thread: it is
 * initialized and closed there, and closed only once no job submitted
 * through it is still out (srv_pool_inbox_pending is 0). */
typedef struct srv_pool_inbox_s {
  /* private */
  uv_async_t _async;
  pthread_mutex_t _lock;
  srv_job_t *_head, *_tail;
  unsigned _pending; /* Owner thread: submitted, done not yet run. */
} srv_pool_inbox_t;

typedef struct srv_pool_s {
  /* private */
  uv_loop_t *_loop;
  srv_pool_inbox_t _own; /* Back to the pool's loop. */
  pthread_t *_threads;
  unsigned _thread_count;
  unsigned _queue_max;
  pthread_mutex_t _qlock;
  pthread_cond_t _qcond;
  srv_job_t *_head, *_tail; /* Waiting jobs. */
  unsigned _queued;
  bool _stop;
  bool _closed;
  unsigned _joined;    /* Workers joined so far. */
  srv_job_t *_waiting; /* Never started (after a timed close). */
  unsigned _busy;      /* Read with atomics. */
} srv_pool_t;

/* Starts threads workers (0 = one per CPU) with at most queue_max waiting
 * jobs. Returns 0 or a negative errno. */
int srv_pool_init(srv_pool_t *pool, uv_loop_t *loop, unsigned threads,
                  unsigned queue_max);

/* Queues a job. Returns 0, or UV_EAGAIN when the queue is full (the caller
 * answers 503 with Retry-After; done will not run). Loop thread only. */
int srv_pool_submit(srv_pool_t *pool, srv_job_t *job);

/* The same from the thread of inbox's loop: done runs there (inbox NULL:
 * the pool's own loop, as srv_pool_submit). The pool must not be closed
 * yet. */
int srv_pool_submit_to(srv_pool_t *pool, srv_job_t *job,
                       srv_pool_inbox_t *inbox);

int srv_pool_inbox_init(srv_pool_inbox_t *inbox, uv_loop_t *loop);
unsigned srv_pool_inbox_pending(const srv_pool_inbox_t *inbox);
/* Closes the inbox's handle (the loop must run to finish closing it). */
void srv_pool_inbox_close(srv_pool_inbox_t *inbox);

/* Stops the threads after their current job, completes waiting jobs with
 * UV_ECANCELED (their done callbacks run inside this call, or on their
 * inbox's loop) and closes the async handle (the loop must run once more
 * to finish closing it). */
void srv_pool_close(srv_pool_t *pool);

/* The same, waiting at most timeout_ms for the jobs running now. Returns
 * 0 (closed), or UV_ETIMEDOUT: some job is still running, and the pool is
 * stopped but not closed; srv_pool_close finishes the close later (after
 * joining), or the process exits. */
int srv_pool_close_within(srv_pool_t *pool, uint64_t timeout_ms);

unsigned srv_pool_threads(const srv_pool_t *pool);
unsigned srv_pool_queue_depth(srv_pool_t *pool);
unsigned srv_pool_busy(srv_pool_t *pool);

#endif
