/* Tests for the worker pool: every job runs once and completes on the loop
 * thread; a full queue refuses with UV_EAGAIN; closing cancels waiting
 * jobs with UV_ECANCELED; jobs submitted through an inbox complete on the
 * inbox's loop and thread, cancelled ones too; the loops close clean.
 * Edges: threads 0 (one per CPU), queue_max 0 (one), first in first out,
 * a done callback submitting again, and an inbox's pending count. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "server/pool.h"

typedef struct tjob_s {
  srv_job_t job; /* First member: the job is the struct. */
  int value;
  int result;
  pthread_t ran_on;
  int done_status;
  int done_count;
} tjob_t;

static pthread_t loop_thread;
static int done_total;
static srv_pool_t *close_after_n_pool;
static int close_after_n;

static void square(srv_job_t *j) {
  tjob_t *t = (tjob_t *)j;
  t->result = t->value * t->value;
  t->ran_on = pthread_self();
}

static void on_done(srv_job_t *j, int status) {
  tjob_t *t = (tjob_t *)j;
  ck_assert(pthread_equal(pthread_self(), loop_thread));
  t->done_status = status;
  t->done_count++;
  done_total++;
  if (close_after_n_pool && done_total == close_after_n) {
    srv_pool_close(close_after_n_pool);
    close_after_n_pool = NULL;
  }
}

START_TEST(test_jobs_complete_on_loop) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  loop_thread = pthread_self();
  done_total = 0;
  srv_pool_t pool;
  ck_assert_int_eq(srv_pool_init(&pool, &loop, 3, 1000), 0);
  ck_assert_uint_eq(srv_pool_threads(&pool), 3);
  enum { N = 500 };
  tjob_t *jobs = calloc(N, sizeof *jobs);
  for (int i = 0; i < N; i++) {
    jobs[i].job.work = square;
    jobs[i].job.done = on_done;
    jobs[i].value = i;
    ck_assert_int_eq(srv_pool_submit(&pool, &jobs[i].job), 0);
  }
  close_after_n_pool = &pool;
  close_after_n = N;
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(done_total, N);
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(jobs[i].done_count, 1);
    ck_assert_int_eq(jobs[i].done_status, 0);
    ck_assert_int_eq(jobs[i].result, i * i);
    ck_assert(!pthread_equal(jobs[i].ran_on, loop_thread));
  }
  free(jobs);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

static void blocked(srv_job_t *j) {
  pthread_mutex_lock(&gate);
  pthread_mutex_unlock(&gate);
  square(j);
}

START_TEST(test_full_queue_and_cancel) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  loop_thread = pthread_self();
  done_total = 0;
  close_after_n_pool = NULL;
  srv_pool_t pool;
  ck_assert_int_eq(srv_pool_init(&pool, &loop, 1, 2), 0);
  pthread_mutex_lock(&gate);
  tjob_t jobs[4] = {0};
  for (int i = 0; i < 4; i++) {
    jobs[i].job.work = blocked;
    jobs[i].job.done = on_done;
    jobs[i].value = i + 1;
  }
  ck_assert_int_eq(srv_pool_submit(&pool, &jobs[0].job), 0);
  /* Wait (bounded) until the single worker holds job 0. */
  for (int i = 0; i < 200 && srv_pool_busy(&pool) == 0; i++) usleep(5000);
  ck_assert_uint_eq(srv_pool_busy(&pool), 1);
  ck_assert_int_eq(srv_pool_submit(&pool, &jobs[1].job), 0);
  ck_assert_int_eq(srv_pool_submit(&pool, &jobs[2].job), 0);
  ck_assert_uint_eq(srv_pool_queue_depth(&pool), 2);
  ck_assert_int_eq(srv_pool_submit(&pool, &jobs[3].job), UV_EAGAIN);
  pthread_mutex_unlock(&gate);
  srv_pool_close(&pool);
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(jobs[0].done_count, 1);
  ck_assert_int_eq(jobs[0].done_status, 0);
  ck_assert_int_eq(jobs[0].result, 1);
  /* Jobs 1 and 2 either ran before the stop was seen or were cancelled;
   * each completed exactly once. */
  for (int i = 1; i < 3; i++) {
    ck_assert_int_eq(jobs[i].done_count, 1);
    ck_assert(jobs[i].done_status == 0 || jobs[i].done_status == UV_ECANCELED);
    if (jobs[i].done_status == 0)
      ck_assert_int_eq(jobs[i].result, (i + 1) * (i + 1));
  }
  ck_assert_int_eq(jobs[3].done_count, 0);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* Another thread with a loop and an inbox, as a stream loop has. */
enum { OTHER_JOBS = 40 };
typedef struct other_s {
  srv_pool_t *pool;
  bool block_first; /* Job 0 waits on the gate; the main thread closes. */
  atomic_int submitted;
  pthread_t self;
  uv_loop_t loop;
  srv_pool_inbox_t inbox;
  tjob_t jobs[OTHER_JOBS];
  int done, wrong_thread, submit_errors;
} other_t;

static other_t *the_other;

static void on_other_done(srv_job_t *j, int status) {
  tjob_t *t = (tjob_t *)j;
  other_t *o = the_other;
  t->done_status = status;
  t->done_count++;
  if (!pthread_equal(pthread_self(), o->self)) o->wrong_thread++;
  o->done++;
  if (o->done == atomic_load(&o->submitted) &&
      srv_pool_inbox_pending(&o->inbox) == 0)
    srv_pool_inbox_close(&o->inbox);
}

static void *other_main(void *arg) {
  other_t *o = arg;
  o->self = pthread_self();
  uv_loop_init(&o->loop);
  srv_pool_inbox_init(&o->inbox, &o->loop);
  int n = o->block_first ? 3 : OTHER_JOBS;
  for (int i = 0; i < n; i++) {
    tjob_t *t = &o->jobs[i];
    t->job.work = o->block_first && i == 0 ? blocked : square;
    t->job.done = on_other_done;
    t->value = i;
    if (srv_pool_submit_to(o->pool, &t->job, &o->inbox) != 0)
      o->submit_errors++;
    if (o->block_first && i == 0)
      for (int k = 0; k < 200 && srv_pool_busy(o->pool) == 0; k++) usleep(5000);
  }
  atomic_store(&o->submitted, n);
  uv_run(&o->loop, UV_RUN_DEFAULT);
  uv_loop_close(&o->loop);
  return NULL;
}

/* This thread's loop and pool, and the other thread's state. */
static other_t *other_setup(uv_loop_t *loop, srv_pool_t *pool, unsigned threads,
                            unsigned queue_max) {
  ck_assert_int_eq(uv_loop_init(loop), 0);
  loop_thread = pthread_self();
  done_total = 0;
  close_after_n_pool = NULL;
  ck_assert_int_eq(srv_pool_init(pool, loop, threads, queue_max), 0);
  other_t *o = calloc(1, sizeof *o);
  o->pool = pool;
  the_other = o;
  return o;
}

START_TEST(test_inbox_on_another_loop) {
  uv_loop_t loop;
  srv_pool_t pool;
  other_t *o = other_setup(&loop, &pool, 2, 100);
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, other_main, o), 0);
  ck_assert_int_eq(pthread_join(th, NULL), 0);
  ck_assert_int_eq(o->submit_errors, 0);
  ck_assert_int_eq(o->done, OTHER_JOBS);
  ck_assert_int_eq(o->wrong_thread, 0);
  for (int i = 0; i < OTHER_JOBS; i++) {
    ck_assert_int_eq(o->jobs[i].done_count, 1);
    ck_assert_int_eq(o->jobs[i].done_status, 0);
    ck_assert_int_eq(o->jobs[i].result, i * i);
  }
  /* Nothing came back to the pool's own loop. */
  srv_pool_close(&pool);
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(done_total, 0);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
  free(o);
}
END_TEST

START_TEST(test_inbox_gets_cancellations) {
  uv_loop_t loop;
  srv_pool_t pool;
  other_t *o = other_setup(&loop, &pool, 1, 8);
  o->block_first = true;
  pthread_mutex_lock(&gate);
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, other_main, o), 0);
  /* Once the other thread has queued its jobs behind the blocked one, the
   * pool closes: what did not run is cancelled on the other loop. */
  for (int k = 0; k < 400 && atomic_load(&o->submitted) == 0; k++) usleep(5000);
  ck_assert_int_eq(atomic_load(&o->submitted), 3);
  pthread_mutex_unlock(&gate);
  srv_pool_close(&pool);
  ck_assert_int_eq(pthread_join(th, NULL), 0);
  ck_assert_int_eq(o->done, 3);
  ck_assert_int_eq(o->wrong_thread, 0);
  ck_assert_int_eq(o->jobs[0].done_status, 0);
  for (int i = 1; i < 3; i++) {
    ck_assert_int_eq(o->jobs[i].done_count, 1);
    ck_assert(o->jobs[i].done_status == 0 ||
              o->jobs[i].done_status == UV_ECANCELED);
  }
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(done_total, 0);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
  free(o);
}
END_TEST

static atomic_bool slow_release;

/* A job that runs until the test lets it go (at most 5 s). */
static void slow(srv_job_t *j) {
  for (int i = 0; i < 5000 && !atomic_load(&slow_release); i++) usleep(1000);
  ((tjob_t *)j)->result = 1;
}

/* A drain bounded in time: the close gives up on a job still running
 * after its timeout, cancels the waiting ones, and a later close joins
 * the job once it ends. */
START_TEST(test_close_within_bounds_a_long_job) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  loop_thread = pthread_self();
  done_total = 0;
  atomic_store(&slow_release, false);
  srv_pool_t pool;
  ck_assert_int_eq(srv_pool_init(&pool, &loop, 1, 8), 0);
  tjob_t running = {.job = {.work = slow, .done = on_done}};
  tjob_t waiting = {.job = {.work = square, .done = on_done}, .value = 3};
  ck_assert_int_eq(srv_pool_submit(&pool, &running.job), 0);
  while (srv_pool_busy(&pool) == 0) usleep(1000); /* It has started. */
  ck_assert_int_eq(srv_pool_submit(&pool, &waiting.job), 0);
  uint64_t t0 = uv_hrtime();
  ck_assert_int_eq(srv_pool_close_within(&pool, 100), UV_ETIMEDOUT);
  uint64_t ms = (uv_hrtime() - t0) / 1000000;
  ck_assert_uint_ge(ms, 90);
  ck_assert_uint_lt(ms, 2000);
  ck_assert_int_eq(running.done_count, 0);
  atomic_store(&slow_release, true);
  srv_pool_close(&pool);
  ck_assert_int_eq(running.done_count, 1);
  ck_assert_int_eq(running.done_status, 0);
  ck_assert_int_eq(waiting.done_count, 1);
  ck_assert_int_eq(waiting.done_status, UV_ECANCELED);
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* ---- edges ------------------------------------------------------------- */

typedef struct ejob_s {
  srv_job_t job;
  int id;
  int status;
  int done_count;
} ejob_t;

static atomic_bool e_open;
static atomic_int e_order[64];
static atomic_int e_ran;
static int e_done_total;

/* Records the order of work; the first job waits (at most 5 s) at the
 * gate. */
static void e_work(srv_job_t *j) {
  ejob_t *e = (ejob_t *)j;
  if (e->id == 0) {
    for (int i = 0; i < 5000 && !atomic_load(&e_open); i++) usleep(1000);
  }
  int at = atomic_fetch_add(&e_ran, 1);
  if (at < 64) atomic_store(&e_order[at], e->id);
}

static void e_done(srv_job_t *j, int status) {
  ejob_t *e = (ejob_t *)j;
  e->status = status;
  e->done_count++;
  e_done_total++;
}

static void e_reset(void) {
  atomic_store(&e_open, false);
  atomic_store(&e_ran, 0);
  e_done_total = 0;
}

START_TEST(test_threads_zero_is_one_per_cpu) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  srv_pool_t pool;
  ck_assert_int_eq(srv_pool_init(&pool, &loop, 0, 8), 0);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  ck_assert_uint_eq(srv_pool_threads(&pool), n > 0 ? (unsigned)n : 1);
  ck_assert_uint_eq(srv_pool_queue_depth(&pool), 0);
  ck_assert_uint_eq(srv_pool_busy(&pool), 0);
  /* An idle pool closes within any bound. */
  ck_assert_int_eq(srv_pool_close_within(&pool, 1000), 0);
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(test_queue_max_zero_is_one_and_fifo) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  e_reset();
  srv_pool_t pool;
  ck_assert_int_eq(srv_pool_init(&pool, &loop, 1, 0), 0);
  ejob_t jobs[3];
  for (int i = 0; i < 3; i++)
    jobs[i] = (ejob_t){.job = {.work = e_work, .done = e_done}, .id = i};
  ck_assert_int_eq(srv_pool_submit(&pool, &jobs[0].job), 0);
  for (int i = 0; i < 1000 && srv_pool_busy(&pool) == 0; i++) usleep(1000);
  ck_assert_uint_eq(srv_pool_busy(&pool), 1);
  /* One job may wait; a second may not. */
  ck_assert_int_eq(srv_pool_submit(&pool, &jobs[1].job), 0);
  ck_assert_uint_eq(srv_pool_queue_depth(&pool), 1);
  ck_assert_int_eq(srv_pool_submit(&pool, &jobs[2].job), UV_EAGAIN);
  atomic_store(&e_open, true);
  uint64_t end = uv_hrtime() + 5000000000ull;
  while (e_done_total < 2 && uv_hrtime() < end) uv_run(&loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(e_done_total, 2);
  ck_assert_int_eq(jobs[2].done_count, 0);
  /* Room again, and the jobs ran in the order submitted. */
  ck_assert_int_eq(srv_pool_submit(&pool, &jobs[2].job), 0);
  end = uv_hrtime() + 5000000000ull;
  while (e_done_total < 3 && uv_hrtime() < end) uv_run(&loop, UV_RUN_NOWAIT);
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(atomic_load(&e_order[i]), i);
    ck_assert_int_eq(jobs[i].done_count, 1);
    ck_assert_int_eq(jobs[i].status, 0);
  }
  ck_assert_uint_eq(srv_pool_queue_depth(&pool), 0);
  srv_pool_close(&pool);
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* A done callback that submits the next job: chains run to the end. */
static srv_pool_t *chain_pool;
static int chain_left;

static void chain_done(srv_job_t *j, int status) {
  ejob_t *e = (ejob_t *)j;
  e->status = status;
  e->done_count++;
  e_done_total++;
  if (status == 0 && --chain_left > 0) {
    e->id = 100 + chain_left;
    ck_assert_int_eq(srv_pool_submit(chain_pool, j), 0);
  }
}

START_TEST(test_submit_from_done) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  e_reset();
  atomic_store(&e_open, true);
  srv_pool_t pool;
  ck_assert_int_eq(srv_pool_init(&pool, &loop, 2, 4), 0);
  chain_pool = &pool;
  chain_left = 20;
  ejob_t job = {.job = {.work = e_work, .done = chain_done}, .id = 1};
  ck_assert_int_eq(srv_pool_submit(&pool, &job.job), 0);
  uint64_t end = uv_hrtime() + 5000000000ull;
  while (chain_left > 0 && uv_hrtime() < end) uv_run(&loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(chain_left, 0);
  ck_assert_int_eq(job.done_count, 20);
  ck_assert_int_eq(atomic_load(&e_ran), 20);
  srv_pool_close(&pool);
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(test_inbox_pending) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  e_reset();
  srv_pool_t pool;
  ck_assert_int_eq(srv_pool_init(&pool, &loop, 1, 8), 0);
  srv_pool_inbox_t inbox;
  ck_assert_int_eq(srv_pool_inbox_init(&inbox, &loop), 0);
  ck_assert_uint_eq(srv_pool_inbox_pending(&inbox), 0);
  ejob_t jobs[3];
  for (int i = 0; i < 3; i++) {
    jobs[i] = (ejob_t){.job = {.work = e_work, .done = e_done}, .id = i};
    ck_assert_int_eq(srv_pool_submit_to(&pool, &jobs[i].job, &inbox), 0);
  }
  ck_assert_uint_eq(srv_pool_inbox_pending(&inbox), 3);
  atomic_store(&e_open, true);
  uint64_t end = uv_hrtime() + 5000000000ull;
  while (e_done_total < 3 && uv_hrtime() < end) uv_run(&loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(e_done_total, 3);
  ck_assert_uint_eq(srv_pool_inbox_pending(&inbox), 0);
  srv_pool_close(&pool);
  srv_pool_inbox_close(&inbox);
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

Suite *server_pool_suite(void) {
  Suite *s = suite_create("server_pool");
  TCase *tc = tcase_create("pool");
  tcase_set_timeout(tc, 20);
  tcase_add_test(tc, test_jobs_complete_on_loop);
  tcase_add_test(tc, test_full_queue_and_cancel);
  tcase_add_test(tc, test_inbox_on_another_loop);
  tcase_add_test(tc, test_inbox_gets_cancellations);
  tcase_add_test(tc, test_close_within_bounds_a_long_job);
  suite_add_tcase(s, tc);
  TCase *edges = tcase_create("edges");
  tcase_set_timeout(edges, 20);
  tcase_add_test(edges, test_threads_zero_is_one_per_cpu);
  tcase_add_test(edges, test_queue_max_zero_is_one_and_fifo);
  tcase_add_test(edges, test_submit_from_done);
  tcase_add_test(edges, test_inbox_pending);
  suite_add_tcase(s, edges);
  return s;
}
