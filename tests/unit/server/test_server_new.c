/* Tests for srv_server_new's failures: it returns an error with a message
 * and never runs the caller's loop (a timer and an idle handle of the
 * caller's, started before, have not fired), whichever step failed: an
 * unusable data_dir or store, or, under a descriptor limit raised one
 * descriptor at a time, each step that needs descriptors (the event loop's
 * wake-up, the worker pool, the stream loops, the HTTP loops), with the
 * file store and with a Redis store whose client is on the loop. What it made
 * closes the next time the caller runs its loop, which then closes clean. */
#include <check.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/server.h"

/* The caller's own handles: any run of its loop makes them fire. */
typedef struct caller_s {
  uv_loop_t loop;
  uv_timer_t timer;
  uv_idle_t idle;
  int timer_fired, idle_ran;
} caller_t;

static void on_caller_timer(uv_timer_t *t) {
  caller_t *c = t->data;
  c->timer_fired++;
}

static void on_caller_idle(uv_idle_t *i) {
  caller_t *c = i->data;
  c->idle_ran++;
  uv_idle_stop(i);
}

static void caller_start(caller_t *c) {
  memset(c, 0, sizeof *c);
  ck_assert_int_eq(uv_loop_init(&c->loop), 0);
  uv_timer_init(&c->loop, &c->timer);
  c->timer.data = c;
  ck_assert_int_eq(uv_timer_start(&c->timer, on_caller_timer, 0, 0), 0);
  uv_idle_init(&c->loop, &c->idle);
  c->idle.data = c;
  ck_assert_int_eq(uv_idle_start(&c->idle, on_caller_idle), 0);
}

/* Runs the caller's loop to its end (its handles fire, whatever the failed
 * start left closes), closes its handles and the loop. */
static void caller_finish(caller_t *c) {
  for (int i = 0; i < 100 && (c->timer_fired == 0 || c->idle_ran == 0); i++)
    uv_run(&c->loop, UV_RUN_NOWAIT);
  uv_close((uv_handle_t *)&c->timer, NULL);
  uv_close((uv_handle_t *)&c->idle, NULL);
  ck_assert_int_eq(uv_run(&c->loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(uv_loop_close(&c->loop), 0);
}

static int drained;

static void on_drained(srv_server_t *s) {
  (void)s;
  drained++;
}

/* Drains a started server and frees it (this runs the caller's loop). */
static void server_stop(caller_t *c, srv_server_t *s) {
  drained = 0;
  srv_server_drain(s, on_drained);
  uint64_t end = uv_hrtime() + 10000000000ull;
  while (drained == 0 && uv_hrtime() < end) uv_run(&c->loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(drained, 1);
  srv_server_free(s);
}

static void small_config(srv_config_t *cfg) {
  srv_config_defaults(cfg);
  cfg->access_log[0] = '\0';
  cfg->listen[0] = '\0';
  cfg->workers = 1;
  cfg->stream_threads = 1;
  cfg->http_threads = 2;
  cfg->demo = false;
}

static void expect_failure(const srv_config_t *cfg, const char *message) {
  caller_t c;
  caller_start(&c);
  srv_server_t *s = NULL;
  char err[512] = "";
  int rc = srv_server_new(&c.loop, cfg, &s, err, sizeof err);
  ck_assert_int_lt(rc, 0);
  ck_assert_ptr_null(s);
  ck_assert_msg(strstr(err, message) != NULL, "err '%s' lacks '%s'", err,
                message);
  ck_assert_int_eq(c.timer_fired, 0);
  ck_assert_int_eq(c.idle_ran, 0);
  caller_finish(&c);
  ck_assert_int_eq(c.timer_fired, 1);
  ck_assert_int_eq(c.idle_ran, 1);
}

START_TEST(test_data_dir_is_a_file) {
  char path[] = "/tmp/animd-server-new-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, "x", 1), 1);
  close(fd);
  srv_config_t cfg;
  small_config(&cfg);
  snprintf(cfg.data_dir, sizeof cfg.data_dir, "%s", path);
  expect_failure(&cfg, "store");
  unlink(path);
}
END_TEST

START_TEST(test_unknown_store) {
  srv_config_t cfg;
  small_config(&cfg);
  snprintf(cfg.store, sizeof cfg.store, "memcached://127.0.0.1:1");
  expect_failure(&cfg, "is neither file nor redis://host:port/db");
}
END_TEST

START_TEST(test_redis_with_data_dir) {
  srv_config_t cfg;
  small_config(&cfg);
  snprintf(cfg.store, sizeof cfg.store, "redis://127.0.0.1:1/0");
  snprintf(cfg.data_dir, sizeof cfg.data_dir, "/tmp");
  expect_failure(&cfg, "data_dir and demo must be left out");
}
END_TEST

START_TEST(test_redis_bad_url) {
  srv_config_t cfg;
  small_config(&cfg);
  snprintf(cfg.store, sizeof cfg.store, "redis://127.0.0.1:99999/0");
  expect_failure(&cfg, "bad port");
}
END_TEST

START_TEST(test_access_log_unwritable) {
  srv_config_t cfg;
  small_config(&cfg);
  snprintf(cfg.access_log, sizeof cfg.access_log,
           "/nonexistent-animd-dir/access.log");
  expect_failure(&cfg, "access_log");
}
END_TEST

/* The lowest descriptor number free now. */
static int lowest_free_fd(void) {
  int fd = dup(0);
  ck_assert_int_ge(fd, 0);
  close(fd);
  return fd;
}

/* Starts a server with room for `room` more descriptors. Returns its rc;
 * a failure must not have run the caller's loop. *steps collects which
 * step failed (one bit per message). */
enum {
  STEP_LOOP = 1,   /* The loop's wake-up (loop_ended). */
  STEP_POOL = 2,   /* The worker pool. */
  STEP_STREAM = 4, /* The stream loops. */
  STEP_HTTP = 8,   /* The HTTP loops. */
  STEP_OTHER = 16
};

/* The descriptors open now (below MAX_FD), one flag each. */
enum { MAX_FD = 4096 };

static void open_fds(bool *open) {
  memset(open, 0, MAX_FD * sizeof *open);
  DIR *d = opendir("/proc/self/fd");
  ck_assert_ptr_nonnull(d);
  int own = dirfd(d);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd != own && fd >= 0 && fd < MAX_FD)
      open[fd] = true;
  }
  closedir(d);
}

/* Closes what was opened since `before` and is still open once everything
 * was closed: libuv 1.44's uv_loop_init, failing past its epoll instance,
 * leaves that descriptor open, and the next attempts would find the room
 * taken. Returns how many. */
static int close_leftovers(const bool *before) {
  bool *now = calloc(MAX_FD, sizeof *now);
  ck_assert_ptr_nonnull(now);
  open_fds(now);
  int n = 0;
  for (int fd = 0; fd < MAX_FD; fd++)
    if (now[fd] && !before[fd]) {
      close(fd);
      n++;
    }
  free(now);
  return n;
}

static int start_with_room(const srv_config_t *cfg, int room, int *steps) {
  bool *before = calloc(MAX_FD, sizeof *before);
  ck_assert_ptr_nonnull(before);
  open_fds(before);
  caller_t c;
  caller_start(&c);
  struct rlimit old;
  ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
  struct rlimit lim = old;
  lim.rlim_cur = (rlim_t)(lowest_free_fd() + room);
  ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
  srv_server_t *s = NULL;
  char err[512] = "";
  int rc = srv_server_new(&c.loop, cfg, &s, err, sizeof err);
  ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
  ck_assert_int_eq(c.timer_fired, 0);
  ck_assert_int_eq(c.idle_ran, 0);
  if (rc == 0) {
    ck_assert_ptr_nonnull(s);
    server_stop(&c, s);
  } else {
    ck_assert_ptr_null(s);
    ck_assert_msg(err[0] != '\0', "no message for %s", uv_strerror(rc));
    if (strncmp(err, "event loop:", 11) == 0)
      *steps |= STEP_LOOP;
    else if (strncmp(err, "worker pool:", 12) == 0)
      *steps |= STEP_POOL;
    else if (strncmp(err, "stream loops:", 13) == 0)
      *steps |= STEP_STREAM;
    else if (strncmp(err, "HTTP loops:", 11) == 0)
      *steps |= STEP_HTTP;
    else
      *steps |= STEP_OTHER;
  }
  caller_finish(&c);
  ck_assert_int_eq(c.timer_fired, 1);
  ck_assert_int_eq(c.idle_ran, 1);
  /* A start that succeeded closes everything it opened. */
  int left = close_leftovers(before);
  if (rc == 0) ck_assert_int_eq(left, 0);
  free(before);
  return rc;
}

START_TEST(test_each_step_out_of_descriptors) {
  srv_config_t cfg;
  small_config(&cfg);
  int steps = 0, failures = 0, room;
  bool started = false;
  for (room = 0; room < 64 && !started; room++) {
    if (start_with_room(&cfg, room, &steps) == 0)
      started = true;
    else
      failures++;
  }
  ck_assert_msg(started, "no start with %d descriptors free", room);
  ck_assert_int_ge(failures, 2);
  /* Failures past the worker pool (its handle was open on the caller's
   * loop, and the loop was still not run): the stream loops', then the
   * HTTP loops' own event loops. */
  ck_assert_int_ne(steps & STEP_STREAM, 0);
  ck_assert_int_ne(steps & STEP_HTTP, 0);
  ck_assert_int_eq(steps & STEP_OTHER, 0);
}
END_TEST

/* Past the stream loops, only the HTTP loops' own event loops need
 * descriptors: with a stream loop running, more HTTP loops. */
START_TEST(test_http_loops_out_of_descriptors) {
  srv_config_t cfg;
  small_config(&cfg);
  cfg.http_threads = 8;
  int steps = 0, room;
  bool started = false;
  for (room = 0; room < 96 && !started; room++)
    started = start_with_room(&cfg, room, &steps) == 0;
  ck_assert_msg(started, "no start with %d descriptors free", room);
  ck_assert_int_ne(steps & STEP_HTTP, 0);
  ck_assert_int_eq(steps & STEP_OTHER, 0);
}
END_TEST

/* With the shared store (Redis, here at a port where nothing listens),
 * the backend's client is on the caller's loop from the store step on:
 * later failures close it too, still without running the loop. */
START_TEST(test_redis_store_out_of_descriptors) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(l, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  ck_assert_int_eq(bind(l, (struct sockaddr *)&a, sizeof a), 0);
  socklen_t len = sizeof a;
  ck_assert_int_eq(getsockname(l, (struct sockaddr *)&a, &len), 0);
  close(l);
  srv_config_t cfg;
  small_config(&cfg);
  snprintf(cfg.store, sizeof cfg.store, "redis://127.0.0.1:%d/0",
           ntohs(a.sin_port));
  int steps = 0, room;
  bool started = false;
  for (room = 0; room < 64 && !started; room++)
    started = start_with_room(&cfg, room, &steps) == 0;
  ck_assert_msg(started, "no start with %d descriptors free", room);
  ck_assert_int_ne(steps & STEP_STREAM, 0);
  ck_assert_int_eq(steps & STEP_OTHER, 0);
}
END_TEST

/* A start that succeeds does not run the loop either. */
START_TEST(test_success_does_not_run_loop) {
  srv_config_t cfg;
  small_config(&cfg);
  caller_t c;
  caller_start(&c);
  srv_server_t *s = NULL;
  char err[512] = "";
  ck_assert_int_eq(srv_server_new(&c.loop, &cfg, &s, err, sizeof err), 0);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(c.timer_fired, 0);
  ck_assert_int_eq(c.idle_ran, 0);
  server_stop(&c, s);
  caller_finish(&c);
}
END_TEST

Suite *server_new_suite(void) {
  Suite *s = suite_create("server_new");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_data_dir_is_a_file);
  tcase_add_test(tc, test_unknown_store);
  tcase_add_test(tc, test_redis_with_data_dir);
  tcase_add_test(tc, test_redis_bad_url);
  tcase_add_test(tc, test_access_log_unwritable);
  tcase_add_test(tc, test_each_step_out_of_descriptors);
  tcase_add_test(tc, test_http_loops_out_of_descriptors);
  tcase_add_test(tc, test_redis_store_out_of_descriptors);
  tcase_add_test(tc, test_success_does_not_run_loop);
  suite_add_tcase(s, tc);
  return s;
}
