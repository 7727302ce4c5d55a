/* server: the worker pool (see pool.h).
 *
 * Workers sleep on a condition variable; a finished job is pushed on its
 * inbox's done list under the inbox's lock and that loop is woken with
 * uv_async_send, which coalesces: the async callback swaps the whole list
 * out and runs the done callbacks unlocked, in completion order. The
 * pool's own loop is served by an inbox like any other. */
#include "server/pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* ---- inboxes: done callbacks back on the loop that submitted ------------- */

/* Any thread. */
static void inbox_push(srv_pool_inbox_t *in, srv_job_t *job) {
  job->_next = NULL;
  pthread_mutex_lock(&in->_lock);
  if (in->_tail)
    in->_tail->_next = job;
  else
    in->_head = job;
  in->_tail = job;
  pthread_mutex_unlock(&in->_lock);
  uv_async_send(&in->_async);
}

/* Runs the done callbacks of what came back. Owner thread. */
static void inbox_run(srv_pool_inbox_t *in) {
  pthread_mutex_lock(&in->_lock);
  srv_job_t *job = in->_head;
  in->_head = in->_tail = NULL;
  pthread_mutex_unlock(&in->_lock);
  while (job != NULL) {
    srv_job_t *next = job->_next;
    in->_pending--;
    job->done(job, job->_status);
    job = next;
  }
}

static void on_inbox(uv_async_t *handle) { inbox_run(handle->data); }

int srv_pool_inbox_init(srv_pool_inbox_t *in, uv_loop_t *loop) {
  *in = (srv_pool_inbox_t){0};
  int rc = uv_async_init(loop, &in->_async, on_inbox);
  if (rc != 0) return rc;
  in->_async.data = in;
  pthread_mutex_init(&in->_lock, NULL);
  return 0;
}

unsigned srv_pool_inbox_pending(const srv_pool_inbox_t *in) {
  return in->_pending;
}

static void on_inbox_closed(uv_handle_t *h) {
  srv_pool_inbox_t *in = h->data;
  pthread_mutex_destroy(&in->_lock);
}

void srv_pool_inbox_close(srv_pool_inbox_t *in) {
  uv_close((uv_handle_t *)&in->_async, on_inbox_closed);
}

/* ---- workers ----------------------------------------------------------------
 */

static void *worker_main(void *arg) {
  srv_pool_t *pool = arg;
  for (;;) {
    pthread_mutex_lock(&pool->_qlock);
    while (pool->_head == NULL && !pool->_stop)
      pthread_cond_wait(&pool->_qcond, &pool->_qlock);
    if (pool->_stop) {
      pthread_mutex_unlock(&pool->_qlock);
      return NULL;
    }
    srv_job_t *job = pool->_head;
    pool->_head = job->_next;
    if (pool->_head == NULL) pool->_tail = NULL;
    pool->_queued--;
    __atomic_add_fetch(&pool->_busy, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pool->_qlock);

    job->work(job);
    job->_status = 0;
    job->_next = NULL;
    __atomic_sub_fetch(&pool->_busy, 1, __ATOMIC_RELAXED);

    inbox_push(job->_inbox, job); /* job may be gone from here on. */
  }
}

/* Tells the workers to stop after their current job; returns the jobs
 * that never started. */
static srv_job_t *signal_stop(srv_pool_t *pool) {
  pthread_mutex_lock(&pool->_qlock);
  pool->_stop = true;
  srv_job_t *waiting = pool->_head;
  pool->_head = pool->_tail = NULL;
  pool->_queued = 0;
  pthread_cond_broadcast(&pool->_qcond);
  pthread_mutex_unlock(&pool->_qlock);
  return waiting;
}

/* Joins the workers, by the absolute CLOCK_REALTIME deadline when given.
 * Returns 0, or UV_ETIMEDOUT with the rest still running. */
static int join_workers(srv_pool_t *pool, const struct timespec *deadline) {
  for (; pool->_joined < pool->_thread_count; pool->_joined++) {
    pthread_t t = pool->_threads[pool->_joined];
    if (deadline == NULL)
      pthread_join(t, NULL);
    else if (pthread_timedjoin_np(t, NULL, deadline) != 0)
      return UV_ETIMEDOUT;
  }
  free(pool->_threads);
  pool->_threads = NULL;
  return 0;
}

static srv_job_t *stop_workers(srv_pool_t *pool) {
  srv_job_t *waiting = signal_stop(pool);
  join_workers(pool, NULL);
  return waiting;
}

int srv_pool_init(srv_pool_t *pool, uv_loop_t *loop, unsigned threads,
                  unsigned queue_max) {
  *pool = (srv_pool_t){0};
  if (threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n > 0 ? (unsigned)n : 1;
  }
  pool->_loop = loop;
  pool->_queue_max = queue_max ? queue_max : 1;
  pthread_mutex_init(&pool->_qlock, NULL);
  pthread_cond_init(&pool->_qcond, NULL);
  int rc = srv_pool_inbox_init(&pool->_own, loop);
  if (rc != 0) goto fail;
  pool->_threads = calloc(threads, sizeof *pool->_threads);
  if (pool->_threads == NULL) {
    rc = UV_ENOMEM;
    goto fail_async;
  }
  for (unsigned i = 0; i < threads; i++) {
    int e = pthread_create(&pool->_threads[i], NULL, worker_main, pool);
    if (e != 0) {
      rc = -e;
      goto fail_threads;
    }
    char name[16];
    snprintf(name, sizeof name, "animd-w%u", i % 100000u);
    pthread_setname_np(pool->_threads[i], name);
    pool->_thread_count++;
  }
  return 0;

fail_threads:
  stop_workers(pool); /* Nothing was submitted yet. */
fail_async:
  srv_pool_inbox_close(&pool->_own);
fail:
  pthread_cond_destroy(&pool->_qcond);
  pthread_mutex_destroy(&pool->_qlock);
  return rc;
}

int srv_pool_submit(srv_pool_t *pool, srv_job_t *job) {
  return srv_pool_submit_to(pool, job, NULL);
}

int srv_pool_submit_to(srv_pool_t *pool, srv_job_t *job,
                       srv_pool_inbox_t *inbox) {
  if (inbox == NULL) inbox = &pool->_own;
  job->_inbox = inbox;
  pthread_mutex_lock(&pool->_qlock);
  if (pool->_stop || pool->_queued >= pool->_queue_max) {
    pthread_mutex_unlock(&pool->_qlock);
    return UV_EAGAIN;
  }
  job->_next = NULL;
  job->_status = 0;
  if (pool->_tail)
    pool->_tail->_next = job;
  else
    pool->_head = job;
  pool->_tail = job;
  pool->_queued++;
  inbox->_pending++;
  pthread_cond_signal(&pool->_qcond);
  pthread_mutex_unlock(&pool->_qlock);
  return 0;
}

int srv_pool_close_within(srv_pool_t *pool, uint64_t timeout_ms) {
  if (pool->_threads == NULL) return 0;
  if (!pool->_stop) pool->_waiting = signal_stop(pool);
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += (time_t)(timeout_ms / 1000);
  deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000L;
  }
  if (join_workers(pool, &deadline) != 0) {
    /* The loop may end while a job still runs: the process exits with
     * it. */
    uv_unref((uv_handle_t *)&pool->_own._async);
    return UV_ETIMEDOUT;
  }
  srv_pool_close(pool);
  return 0;
}

void srv_pool_close(srv_pool_t *pool) {
  if (pool->_threads == NULL && !pool->_stop) return;
  if (pool->_closed) return;
  pool->_closed = true;
  srv_job_t *waiting;
  if (pool->_stop) {
    waiting = pool->_waiting;
    pool->_waiting = NULL;
    join_workers(pool, NULL);
  } else {
    waiting = stop_workers(pool);
  }
  /* Jobs that finished before the stop, then the cancelled ones: here for
   * this loop's, through their inbox for other loops'. */
  inbox_run(&pool->_own);
  while (waiting != NULL) {
    srv_job_t *next = waiting->_next;
    waiting->_status = UV_ECANCELED;
    if (waiting->_inbox != &pool->_own) {
      inbox_push(waiting->_inbox, waiting);
    } else {
      pool->_own._pending--;
      waiting->done(waiting, UV_ECANCELED);
    }
    waiting = next;
  }
  srv_pool_inbox_close(&pool->_own);
  pthread_cond_destroy(&pool->_qcond);
  pthread_mutex_destroy(&pool->_qlock);
}

unsigned srv_pool_threads(const srv_pool_t *pool) {
  return pool->_thread_count;
}

unsigned srv_pool_queue_depth(srv_pool_t *pool) {
  pthread_mutex_lock(&pool->_qlock);
  unsigned n = pool->_queued;
  pthread_mutex_unlock(&pool->_qlock);
  return n;
}

unsigned srv_pool_busy(srv_pool_t *pool) {
  return __atomic_load_n(&pool->_busy, __ATOMIC_RELAXED);
}
