/* Tests for request tasks (server/http/task.h) with work of the test's own
 * over the in-memory transport: cheap work runs inline on the loop
 * thread, dear work on a worker, a full pool answers 503 overloaded with
 * Retry-After (srv__task_run) or returns UV_EAGAIN without freeing
 * (srv__task_submit), a client that leaves mid-job skips respond, and
 * free runs exactly once in every case. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_host_fixture.h"
#include "server/http/task.h"

typedef struct ttask_s {
  srv_task_t t; /* First member. */
  int value;
  int result;
  pthread_t ran_on;
} ttask_t;

static pthread_t loop_thread;
static int responded, freed;
static int submit_rc;
static unsigned long task_cost;
static bool use_submit; /* Route with srv__task_submit, not _run. */
static atomic_bool gate_open;
static atomic_bool gate_entered;

static void work(srv_task_t *t) {
  ttask_t *x = (ttask_t *)t;
  x->result = x->value * 2;
  x->ran_on = pthread_self();
}

static void respond(srv_task_t *t) {
  ttask_t *x = (ttask_t *)t;
  ck_assert(pthread_equal(pthread_self(), loop_thread));
  responded++;
  char body[64];
  int n = snprintf(body, sizeof body, "%d %s", x->result,
                   pthread_equal(x->ran_on, loop_thread) ? "inline" : "pool");
  srv_respond(t->req, 200, "text/plain", NULL, body, (size_t)n);
}

static void free_task(srv_task_t *t) {
  ck_assert(pthread_equal(pthread_self(), loop_thread));
  freed++;
  free(t);
}

static void route(srv_request_t *req) {
  ttask_t *x = calloc(1, sizeof *x);
  x->value =
      atoi(srv_request_param(req, "v") ? srv_request_param(req, "v") : "0");
  x->t.work = work;
  x->t.respond = respond;
  x->t.free = free_task;
  if (use_submit) {
    x->t.req = req;
    int freed_before = freed;
    submit_rc = srv__task_submit(&x->t, task_cost);
    if (submit_rc != 0) {
      /* Not freed by the task: the caller answers and frees. */
      ck_assert_int_eq(freed, freed_before);
      free_task(&x->t);
      srv_respond(req, 200, "text/plain", NULL, "again", 5);
    }
    return;
  }
  srv__task_run(&x->t, req, task_cost);
}

static void start(unsigned inline_cost) {
  loop_thread = pthread_self();
  responded = freed = 0;
  submit_rc = 0;
  use_submit = false;
  hfx_start(NULL, inline_cost, route);
}

START_TEST(test_inline_below_cost) {
  start(100);
  task_cost = 99;
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(m, "GET /t?v=21 HTTP/1.1\r\n\r\n");
  ck_assert_str_eq(a.body, "42 inline");
  hfx_free(&a);
  ck_assert_int_eq(responded, 1);
  ck_assert_int_eq(freed, 1);
  /* At the cost, on a worker. */
  task_cost = 100;
  a = hfx_request(m, "GET /t?v=5 HTTP/1.1\r\n\r\n");
  ck_assert_str_eq(a.body, "10 pool");
  hfx_free(&a);
  ck_assert_int_eq(responded, 2);
  ck_assert_int_eq(freed, 2);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_pipelined_on_the_pool) {
  start(0);
  task_cost = 1;
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /t?v=1 HTTP/1.1\r\n\r\nGET /t?v=2 HTTP/1.1\r\n\r\n"
              "GET /t?v=3 HTTP/1.1\r\n\r\n");
  for (int i = 1; i <= 3; i++) {
    hfx_answer_t a;
    ck_assert(hfx_read(m, &a, false));
    char want[32];
    snprintf(want, sizeof want, "%d pool", 2 * i);
    ck_assert_str_eq(a.body, want);
    hfx_free(&a);
  }
  ck_assert_int_eq(freed, 3);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

/* A job that holds the one worker until the test opens the gate (at
 * most 10 s). */
typedef struct gate_job_s {
  srv_job_t job;
  int done_status;
} gate_job_t;

static void gate_work(srv_job_t *j) {
  (void)j;
  atomic_store(&gate_entered, true);
  uint64_t end = uv_hrtime() + 10000000000ull;
  while (!atomic_load(&gate_open) && uv_hrtime() < end) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

static void gate_done(srv_job_t *j, int status) {
  ((gate_job_t *)j)->done_status = status + 1000;
}

static bool entered(void *arg) {
  (void)arg;
  return atomic_load(&gate_entered);
}

/* Fills the pool: its worker busy, 64 jobs waiting. */
static gate_job_t *fill_pool(void) {
  atomic_store(&gate_open, false);
  atomic_store(&gate_entered, false);
  gate_job_t *jobs = calloc(65, sizeof *jobs);
  for (int i = 0; i < 65; i++) {
    jobs[i].job.work = gate_work;
    jobs[i].job.done = gate_done;
    ck_assert_int_eq(srv_pool_submit(&hfx.pool, &jobs[i].job), 0);
    if (i == 0) ck_assert(hfx_run_until(entered, NULL));
  }
  gate_job_t extra = {.job = {.work = gate_work, .done = gate_done}};
  ck_assert_int_eq(srv_pool_submit(&hfx.pool, &extra.job), UV_EAGAIN);
  return jobs;
}

static bool all_gates_done(void *arg) {
  gate_job_t *jobs = arg;
  for (int i = 0; i < 65; i++)
    if (jobs[i].done_status == 0) return false;
  return true;
}

START_TEST(test_full_pool) {
  start(0);
  task_cost = 1;
  gate_job_t *jobs = fill_pool();
  uint64_t rejected = srv_schedule_rejected(&hfx.schedule);
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(m, "GET /t?v=1 HTTP/1.1\r\n\r\n");
  char code[64], v[64];
  ck_assert_int_eq(a.status, 503);
  ck_assert_ptr_nonnull(strstr(a.head, "503 Service Unavailable\r\n"));
  ck_assert_str_eq(hfx_header(&a, "Retry-After", v, sizeof v), "1");
  ck_assert_str_eq(hfx_code(&a, code, sizeof code), "overloaded");
  ck_assert_ptr_nonnull(strstr(a.body, "\"at\":null"));
  hfx_free(&a);
  ck_assert_int_eq(responded, 0);
  ck_assert_int_eq(freed, 1);
  ck_assert_uint_eq(srv_schedule_rejected(&hfx.schedule), rejected + 1);
  srv_http_memory_free(m);
  /* srv__task_submit: UV_EAGAIN, the task left to the caller. */
  use_submit = true;
  m = hfx_client();
  a = hfx_request(m, "GET /t?v=1 HTTP/1.1\r\n\r\n");
  ck_assert_str_eq(a.body, "again");
  ck_assert_int_eq(submit_rc, UV_EAGAIN);
  ck_assert_int_eq(freed, 2);
  hfx_free(&a);
  atomic_store(&gate_open, true);
  ck_assert(hfx_run_until(all_gates_done, jobs));
  for (int i = 0; i < 65; i++) ck_assert_int_eq(jobs[i].done_status, 1000);
  /* Room again: the same request is answered. */
  a = hfx_request(m, "GET /t?v=4 HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(submit_rc, 0);
  ck_assert_str_eq(a.body, "8 pool");
  hfx_free(&a);
  free(jobs);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_inline_while_pool_full) {
  start(100);
  task_cost = 10;
  gate_job_t *jobs = fill_pool();
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(m, "GET /t?v=3 HTTP/1.1\r\n\r\n");
  ck_assert_str_eq(a.body, "6 inline");
  hfx_free(&a);
  atomic_store(&gate_open, true);
  ck_assert(hfx_run_until(all_gates_done, jobs));
  free(jobs);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

static bool one_freed(void *arg) {
  (void)arg;
  return freed == 1;
}

START_TEST(test_client_leaves_mid_job) {
  start(0);
  task_cost = 1;
  /* The worker is held, so the task waits in the queue. */
  atomic_store(&gate_open, false);
  atomic_store(&gate_entered, false);
  gate_job_t gate = {.job = {.work = gate_work, .done = gate_done}};
  ck_assert_int_eq(srv_pool_submit(&hfx.pool, &gate.job), 0);
  ck_assert(hfx_run_until(entered, NULL));
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /t?v=1 HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(freed, 0);
  srv_http_memory_reset(m);
  atomic_store(&gate_open, true);
  ck_assert(hfx_run_until(one_freed, NULL));
  /* The work ran, nothing was answered, free ran once. */
  ck_assert_int_eq(responded, 0);
  ck_assert_int_eq(freed, 1);
  ck_assert_int_eq(hfx.done, 0);
  srv_http_memory_free(m);
  hfx_stop();
  ck_assert_int_eq(gate.done_status, 1000);
}
END_TEST

Suite *server_http_task_suite(void) {
  Suite *s = suite_create("server_http_task");
  TCase *tc = tcase_create("task");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_inline_below_cost);
  tcase_add_test(tc, test_pipelined_on_the_pool);
  tcase_add_test(tc, test_full_pool);
  tcase_add_test(tc, test_inline_while_pool_full);
  tcase_add_test(tc, test_client_leaves_mid_job);
  suite_add_tcase(s, tc);
  return s;
}
