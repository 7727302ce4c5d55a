/* Tests for the worker pool: every job runs once and completes on the loop
 * thread; a full queue refuses with UV_EAGAIN; closing cancels waiting
 * jobs with UV_ECANCELED; the loop closes clean. */
#include <check.h>
#include <pthread.h>
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

Suite *server_pool_suite(void) {
  Suite *s = suite_create("server_pool");
  TCase *tc = tcase_create("pool");
  tcase_set_timeout(tc, 20);
  tcase_add_test(tc, test_jobs_complete_on_loop);
  tcase_add_test(tc, test_full_queue_and_cancel);
  suite_add_tcase(s, tc);
  return s;
}
