/* Tests for streamed ranges (server/http/range.h) with a producer of the
 * test's own over the in-memory transport: frame times, batches as
 * chunks, the same bytes inline and on the pool, HEAD computing nothing,
 * a failing batch aborting the answer, production paused while the
 * client does not read, a client leaving mid-range, and dispose running
 * exactly once in every case. */
#include <check.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "http_host_fixture.h"
#include "server/http/range.h"
#include "server/request/requests.h"

typedef struct trange_s {
  srv_range_t r;           /* First member: freed with free. */
  int fail_at;             /* Batch index whose produce fails (-1: none). */
  size_t pad;              /* Bytes of padding after each frame. */
  srv_range_query_t times; /* The frames' times, as a handler keeps them. */
} trange_t;

static atomic_int produced_batches;
static atomic_int produced_frames;
static int disposed;
static struct {
  uint32_t frames, batch;
  unsigned long cost;
  double from, fps;
  int fail_at;
  size_t pad;
} plan;

static int produce(srv_range_t *r, uint32_t first, uint32_t n, fmt_buf_t *out) {
  trange_t *t = (trange_t *)r;
  int batch = atomic_fetch_add(&produced_batches, 1);
  if (batch == t->fail_at) return -1;
  for (uint32_t i = first; i < first + n; i++) {
    char line[64];
    int len = snprintf(line, sizeof line, "f%u@%g;", i,
                       srv_range_query_time(&t->times, i));
    fmt_buf_append(out, line, (size_t)len);
    for (size_t k = 0; k < t->pad; k++) fmt_buf_putc(out, '.');
    atomic_fetch_add(&produced_frames, 1);
  }
  return 0;
}

static void dispose(srv_range_t *r) {
  (void)r;
  disposed++;
}

static void route(srv_request_t *req) {
  trange_t *t = calloc(1, sizeof *t);
  t->times.from = plan.from;
  t->times.fps = plan.fps;
  t->r.frame_count = plan.frames;
  t->r.batch = plan.batch;
  t->r.frame_cost = plan.cost;
  t->r.produce = produce;
  t->r.dispose = dispose;
  t->fail_at = plan.fail_at;
  t->pad = plan.pad;
  srv__range_start(&t->r, req, "text/plain", "X-Range: 1\r\n");
}

static void start(unsigned inline_cost, size_t high_water) {
  atomic_store(&produced_batches, 0);
  atomic_store(&produced_frames, 0);
  disposed = 0;
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  if (high_water) cfg.stream_high_water = high_water;
  hfx_start(&cfg, inline_cost, route);
}

static void plan_default(void) {
  memset(&plan, 0, sizeof plan);
  plan.frames = 10;
  plan.batch = 3;
  plan.cost = 1;
  plan.from = 0;
  plan.fps = 2;
  plan.fail_at = -1;
}

/* The body of frames [0, n) as produce writes it. */
static void expected(char *buf, size_t cap, uint32_t n, double from,
                     double fps) {
  size_t len = 0;
  buf[0] = '\0';
  for (uint32_t i = 0; i < n; i++)
    len += (size_t)snprintf(buf + len, cap - len, "f%u@%g;", i,
                            from + (double)i / fps);
}

START_TEST(test_range_time) {
  srv_range_query_t r;
  memset(&r, 0, sizeof r);
  r.from = 1.0;
  r.fps = 4;
  ck_assert(srv_range_query_time(&r, 0) == 1.0);
  ck_assert(srv_range_query_time(&r, 3) == 1.75);
  r.from = -0.5;
  r.fps = 30;
  ck_assert(fabs(srv_range_query_time(&r, 30) - 0.5) < 1e-12);
  ck_assert(fabs(srv_range_query_time(&r, 100000) - (-0.5 + 100000.0 / 30)) <
            1e-9);
}
END_TEST

/* _i: 0 runs every batch inline, 1 every batch on the pool. */
START_TEST(test_batches_as_chunks) {
  plan_default();
  start(_i == 0 ? 1000000 : 0, 0);
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /range HTTP/1.1\r\n\r\n");
  hfx_answer_t a;
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 200);
  ck_assert(a.chunked);
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nX-Range: 1\r\n"));
  char want[512];
  expected(want, sizeof want, 10, 0, 2);
  ck_assert_str_eq(a.body, want);
  hfx_free(&a);
  /* Four batches of at most three frames. */
  ck_assert_int_eq(atomic_load(&produced_batches), 4);
  ck_assert_int_eq(atomic_load(&produced_frames), 10);
  ck_assert_int_eq(disposed, 1);
  ck_assert_int_eq(hfx.done, 1);
  /* The connection goes on. */
  plan.frames = 1;
  plan.from = 2.5;
  hfx_send(m, "GET /range HTTP/1.1\r\n\r\n");
  ck_assert(hfx_read(m, &a, false));
  ck_assert_str_eq(a.body, "f0@2.5;");
  hfx_free(&a);
  ck_assert_int_eq(disposed, 2);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_exact_framing) {
  plan_default();
  plan.frames = 3;
  plan.batch = 2;
  start(1000000, 0);
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /range HTTP/1.1\r\n\r\n");
  for (int i = 0; i < 10; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  srv_http_memory_flush(m, SIZE_MAX);
  size_t len;
  const char *out = srv_http_memory_output(m, &len);
  const char *body = strstr(out, "\r\n\r\n");
  ck_assert_ptr_nonnull(body);
  /* "f0@0;f1@0.5;" (12 bytes) then "f2@1;" (5 bytes), then the end. */
  ck_assert_str_eq(body + 4, "c\r\nf0@0;f1@0.5;\r\n5\r\nf2@1;\r\n0\r\n\r\n");
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_batch_zero_is_one) {
  plan_default();
  plan.frames = 4;
  plan.batch = 0;
  start(1000000, 0);
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(m, "GET /range HTTP/1.1\r\n\r\n");
  ck_assert_str_eq(a.body, "f0@0;f1@0.5;f2@1;f3@1.5;");
  hfx_free(&a);
  ck_assert_int_eq(atomic_load(&produced_batches), 4);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_empty_range) {
  plan_default();
  plan.frames = 0;
  start(1000000, 0);
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(m, "GET /range HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  ck_assert(a.chunked);
  ck_assert_uint_eq(a.body_len, 0);
  hfx_free(&a);
  ck_assert_int_eq(atomic_load(&produced_batches), 0);
  ck_assert_int_eq(disposed, 1);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_head_computes_nothing) {
  plan_default();
  start(0, 0);
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(m, "HEAD /range HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  ck_assert(a.chunked);
  hfx_free(&a);
  ck_assert_int_eq(atomic_load(&produced_batches), 0);
  ck_assert_int_eq(disposed, 1);
  size_t len;
  srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, 0);
  /* The connection goes on after it. */
  a = hfx_request(m, "GET /range HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(atomic_load(&produced_frames), 10);
  hfx_free(&a);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

static bool range_disposed(void *arg) {
  (void)arg;
  return disposed > 0;
}

/* _i: 0 inline, 1 on the pool. The first batch fails: no chunk of the
 * range is queued when the answer is aborted. */
START_TEST(test_failing_batch_aborts) {
  plan_default();
  plan.fail_at = 0;
  start(_i == 0 ? 1000000 : 0, 0);
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /range HTTP/1.1\r\n\r\nGET /range HTTP/1.1\r\n\r\n");
  ck_assert(hfx_run_until(range_disposed, NULL));
  for (int i = 0; i < 10; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  /* The connection closes: the client never sees a complete body, and
   * the pipelined request is not answered. */
  ck_assert(srv_http_memory_closed(m));
  size_t len;
  const char *out = srv_http_memory_output(m, &len);
  ck_assert_ptr_null(strstr(out, "0\r\n\r\n"));
  /* Closed at once: even the queued head is dropped. */
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(atomic_load(&produced_batches), 1);
  ck_assert_int_eq(disposed, 1);
  ck_assert_int_eq(hfx.done, 1);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

static bool past_high_water(void *arg) {
  return srv_http_memory_queued(arg) > 1000;
}

/* _i: 0 inline, 1 on the pool. */
START_TEST(test_waits_for_a_reader) {
  plan_default();
  plan.frames = 40;
  plan.batch = 1;
  plan.pad = 300; /* About 310 bytes a batch. */
  start(_i == 0 ? 1000000 : 0, 1000);
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /range HTTP/1.1\r\n\r\n");
  ck_assert(hfx_run_until(past_high_water, m));
  for (int i = 0; i < 200; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  /* Production stops once more than the high water mark is queued:
   * four batches of 310 bytes, and none started after. */
  int first = atomic_load(&produced_batches);
  ck_assert_int_ge(first, 3);
  ck_assert_int_le(first, 5);
  ck_assert_uint_le(srv_http_memory_queued(m), 1000 + 2 * 320);
  ck_assert_int_eq(disposed, 0);
  /* Reading lets it go on to the end, bounded all along. */
  hfx_answer_t a;
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(atomic_load(&produced_frames), 40);
  char want[1024];
  expected(want, sizeof want, 40, 0, 2);
  ck_assert_uint_eq(a.body_len, strlen(want) + 40 * 300);
  ck_assert(strncmp(a.body, "f0@0;...", 8) == 0);
  hfx_free(&a);
  ck_assert_int_eq(disposed, 1);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

/* _i: 0 inline, 1 on the pool. */
START_TEST(test_client_leaves_mid_range) {
  plan_default();
  plan.frames = 100;
  plan.batch = 1;
  plan.pad = 300;
  start(_i == 0 ? 1000000 : 0, 1000);
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /range HTTP/1.1\r\n\r\n");
  for (int i = 0; i < 100; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  srv_http_memory_flush(m, 700);
  for (int i = 0; i < 100; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(disposed, 0);
  srv_http_memory_reset(m);
  ck_assert(hfx_run_until(range_disposed, NULL));
  int n = atomic_load(&produced_batches);
  for (int i = 0; i < 100; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  /* Nothing more is produced, dispose ran once. */
  ck_assert_int_eq(atomic_load(&produced_batches), n);
  ck_assert_int_lt(n, 100);
  ck_assert_int_eq(disposed, 1);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_http10_range) {
  plan_default();
  plan.frames = 3;
  start(1000000, 0);
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /range HTTP/1.0\r\n\r\n");
  hfx_answer_t a;
  ck_assert(hfx_read(m, &a, false));
  ck_assert(!a.chunked);
  ck_assert_str_eq(a.body, "f0@0;f1@0.5;f2@1;");
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

Suite *server_http_range_suite(void) {
  Suite *s = suite_create("server_http_range");
  TCase *tc = tcase_create("range");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_range_time);
  tcase_add_loop_test(tc, test_batches_as_chunks, 0, 2);
  tcase_add_test(tc, test_exact_framing);
  tcase_add_test(tc, test_batch_zero_is_one);
  tcase_add_test(tc, test_empty_range);
  tcase_add_test(tc, test_head_computes_nothing);
  tcase_add_loop_test(tc, test_failing_batch_aborts, 0, 2);
  tcase_add_loop_test(tc, test_waits_for_a_reader, 0, 2);
  tcase_add_loop_test(tc, test_client_leaves_mid_range, 0, 2);
  tcase_add_test(tc, test_http10_range);
  suite_add_tcase(s, tc);
  return s;
}
