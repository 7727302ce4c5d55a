/* Tests for the in-memory transport itself (server/http/memory.h): write
 * callbacks run only when the client reads (never inside the write), in
 * order, a bounded read completes whole writes, the output is taken in
 * parts, a server that closes after its writes closes only once they are
 * read, a reset cancels what is queued with UV_ECANCELED, and bytes sent
 * to a closed connection are dropped. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "http_host_fixture.h"

static int cb_count, cb_status[8];
static srv_request_t *streaming;

static void on_chunk(int status, void *arg) {
  (void)arg;
  if (cb_count < 8) cb_status[cb_count] = status;
  cb_count++;
}

static void route(srv_request_t *req) {
  if (strcmp(req->path, "/chunks") == 0) {
    ck_assert_int_eq(srv_respond_start(req, 200, "text/plain", NULL), 0);
    ck_assert_int_eq(srv_respond_chunk(req, "one", 3, on_chunk, NULL), 0);
    ck_assert_int_eq(srv_respond_chunk(req, "two", 3, on_chunk, NULL), 0);
    /* Written only once the client reads. */
    ck_assert_int_eq(cb_count, 0);
    if (srv_request_param(req, "open")) {
      srv_request_hold(req);
      streaming = req;
      return;
    }
    srv_respond_end(req);
    return;
  }
  const char *n = srv_request_param(req, "n");
  size_t len = n ? (size_t)atoi(n) : 1;
  char *body = malloc(len);
  memset(body, 'b', len);
  srv_respond(req, 200, "text/plain", NULL, body, len);
  free(body);
}

static void start(void) {
  cb_count = 0;
  memset(cb_status, 0x7f, sizeof cb_status);
  streaming = NULL;
  hfx_start(NULL, 2000, route);
}

START_TEST(test_callbacks_on_read) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /chunks HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(cb_count, 0);
  size_t q = srv_http_memory_queued(m);
  ck_assert_uint_gt(q, 0);
  size_t len;
  srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, 0);
  /* Reading everything completes every write, in order, with status 0. */
  ck_assert_uint_eq(srv_http_memory_flush(m, SIZE_MAX), q);
  ck_assert_int_eq(cb_count, 2);
  ck_assert_int_eq(cb_status[0], 0);
  ck_assert_int_eq(cb_status[1], 0);
  ck_assert_uint_eq(srv_http_memory_queued(m), 0);
  const char *out = srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, q);
  ck_assert_uint_eq(strlen(out), len);
  ck_assert_ptr_nonnull(strstr(out, "3\r\none\r\n3\r\ntwo\r\n0\r\n\r\n"));
  /* Nothing more to read. */
  ck_assert_uint_eq(srv_http_memory_flush(m, SIZE_MAX), 0);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_bounded_reads_take_whole_writes) {
  start();
  srv_config_t *cfg = &hfx.cfg;
  cfg->stream_high_water = 1u << 20;
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /?n=100 HTTP/1.1\r\n\r\nGET /?n=200 HTTP/1.1\r\n\r\n"
              "GET /?n=300 HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(hfx.done, 3);
  size_t q = srv_http_memory_queued(m);
  /* One byte asked: the first answer (one write) whole. */
  size_t first = srv_http_memory_flush(m, 1);
  ck_assert_uint_gt(first, 100);
  ck_assert_uint_lt(first, 200);
  ck_assert_uint_eq(srv_http_memory_queued(m), q - first);
  size_t len;
  const char *out = srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, first);
  ck_assert(strncmp(out, "HTTP/1.1 200 OK\r\n", 17) == 0);
  ck_assert_int_eq(out[len - 1], 'b');
  /* More than the second: the second and the third. */
  size_t rest = srv_http_memory_flush(m, first + 101);
  ck_assert_uint_eq(rest, q - first);
  ck_assert_uint_eq(srv_http_memory_queued(m), 0);
  /* Taking in parts; taking more than there is takes all. */
  srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, q);
  srv_http_memory_take(m, first);
  out = srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, q - first);
  ck_assert(strncmp(out, "HTTP/1.1 200 OK\r\n", 17) == 0);
  srv_http_memory_take(m, len + 1000);
  out = srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, 0);
  ck_assert_str_eq(out, "");
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_close_after_writes) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /?n=10 HTTP/1.1\r\nConnection: close\r\n\r\n");
  /* The server is done, but its answer is unread: not closed yet, and
   * what the client sends now is dropped. */
  ck_assert(!srv_http_memory_closed(m));
  ck_assert_uint_gt(srv_http_memory_queued(m), 0);
  hfx_send(m, "GET /?n=20 HTTP/1.1\r\n\r\n");
  srv_http_memory_flush(m, SIZE_MAX);
  ck_assert(srv_http_memory_closed(m));
  size_t len;
  const char *out = srv_http_memory_output(m, &len);
  ck_assert_int_eq(hfx.done, 1);
  ck_assert_ptr_null(strstr(out + 1, "HTTP/1.1"));
  /* After the close: sending, a half-close and reads do nothing. */
  hfx_send(m, "GET / HTTP/1.1\r\n\r\n");
  srv_http_memory_eof(m);
  ck_assert_uint_eq(srv_http_memory_flush(m, SIZE_MAX), 0);
  ck_assert_int_eq(hfx.done, 1);
  srv_http_memory_free(m);
  srv_http_memory_free(NULL);
  hfx_stop();
}
END_TEST

START_TEST(test_reset_cancels) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /chunks?open=1 HTTP/1.1\r\n\r\n");
  ck_assert_ptr_nonnull(streaming);
  ck_assert_uint_gt(srv_request_queued(streaming), 0);
  srv_http_memory_reset(m);
  /* Both writes cancelled, in order; the session knows. */
  ck_assert_int_eq(cb_count, 2);
  ck_assert_int_eq(cb_status[0], UV_ECANCELED);
  ck_assert_int_eq(cb_status[1], UV_ECANCELED);
  ck_assert(srv_http_memory_closed(m));
  ck_assert_uint_eq(srv_http_memory_queued(m), 0);
  ck_assert(srv_request_gone(streaming));
  /* Writing to it now fails. */
  ck_assert_int_ne(srv_respond_chunk(streaming, "x", 1, on_chunk, NULL), 0);
  ck_assert_int_eq(cb_count, 2);
  srv_respond_end(streaming);
  srv_request_release(streaming);
  streaming = NULL;
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_free_while_open) {
  start();
  /* Freed with unread answers and a held stream: the session goes too
   * (ASan sees anything left behind). */
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /chunks?open=1 HTTP/1.1\r\n\r\n");
  ck_assert_ptr_nonnull(streaming);
  srv_http_memory_free(m);
  ck_assert(srv_request_gone(streaming));
  ck_assert_int_eq(cb_count, 2);
  ck_assert_int_eq(cb_status[0], UV_ECANCELED);
  srv_respond_abort(streaming);
  srv_request_release(streaming);
  streaming = NULL;
  m = hfx_client();
  hfx_send(m, "GET /?n=5 HTTP/1.1\r\n\r\n");
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

Suite *server_http_memory_transport_suite(void) {
  Suite *s = suite_create("server_http_memory_transport");
  TCase *tc = tcase_create("memory");
  tcase_add_test(tc, test_callbacks_on_read);
  tcase_add_test(tc, test_bounded_reads_take_whole_writes);
  tcase_add_test(tc, test_close_after_writes);
  tcase_add_test(tc, test_reset_cancels);
  tcase_add_test(tc, test_free_while_open);
  suite_add_tcase(s, tc);
  return s;
}
