/* server: the worker pool (see pool.h).
 *
 * Workers sleep on a condition variable; a finished job is pushed on the
 * done list under its own lock and the loop is woken with uv_async_send,
 * which coalesces: the async callback swaps the whole list out and runs the
 * done callbacks unlocked, in completion order. */
#include "server/pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

    pthread_mutex_lock(&pool->_dlock);
    if (pool->_done_tail) pool->_done_tail->_next = job;
    else pool->_done_head = job;
    pool->_done_tail = job;
    pthread_mutex_unlock(&pool->_dlock);
    uv_async_send(&pool->_async);
  }
}

static void run_done(srv_pool_t *pool) {
  pthread_mutex_lock(&pool->_dlock);
  srv_job_t *job = pool->_done_head;
  pool->_done_head = pool->_done_tail = NULL;
  pthread_mutex_unlock(&pool->_dlock);
  while (job != NULL) {
    srv_job_t *next = job->_next;
    pool->_completed++;
    job->done(job, job->_status);
    job = next;
  }
}

static void on_async(uv_async_t *handle) {
  run_done(handle->data);
}

/* Stops and joins the workers; returns the jobs that never started. */
static srv_job_t *stop_workers(srv_pool_t *pool) {
  pthread_mutex_lock(&pool->_qlock);
  pool->_stop = true;
  srv_job_t *waiting = pool->_head;
  pool->_head = pool->_tail = NULL;
  pool->_queued = 0;
  pthread_cond_broadcast(&pool->_qcond);
  pthread_mutex_unlock(&pool->_qlock);
  for (unsigned i = 0; i < pool->_thread_count; i++)
    pthread_join(pool->_threads[i], NULL);
  free(pool->_threads);
  pool->_threads = NULL;
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
  pthread_mutex_init(&pool->_dlock, NULL);
  pthread_cond_init(&pool->_qcond, NULL);
  int rc = uv_async_init(loop, &pool->_async, on_async);
  if (rc != 0) goto fail;
  pool->_async.data = pool;
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
  uv_close((uv_handle_t *)&pool->_async, NULL);
fail:
  pthread_cond_destroy(&pool->_qcond);
  pthread_mutex_destroy(&pool->_qlock);
  pthread_mutex_destroy(&pool->_dlock);
  return rc;
}

int srv_pool_submit(srv_pool_t *pool, srv_job_t *job) {
  pthread_mutex_lock(&pool->_qlock);
  if (pool->_stop || pool->_queued >= pool->_queue_max) {
    pthread_mutex_unlock(&pool->_qlock);
    return UV_EAGAIN;
  }
  job->_next = NULL;
  job->_status = 0;
  if (pool->_tail) pool->_tail->_next = job;
  else pool->_head = job;
  pool->_tail = job;
  pool->_queued++;
  pthread_cond_signal(&pool->_qcond);
  pthread_mutex_unlock(&pool->_qlock);
  return 0;
}

void srv_pool_close(srv_pool_t *pool) {
  if (pool->_threads == NULL) return;
  srv_job_t *waiting = stop_workers(pool);
  /* Jobs that finished before the stop, then the cancelled ones. */
  run_done(pool);
  while (waiting != NULL) {
    srv_job_t *next = waiting->_next;
    waiting->done(waiting, UV_ECANCELED);
    waiting = next;
  }
  uv_close((uv_handle_t *)&pool->_async, NULL);
  pthread_cond_destroy(&pool->_qcond);
  pthread_mutex_destroy(&pool->_qlock);
  pthread_mutex_destroy(&pool->_dlock);
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
