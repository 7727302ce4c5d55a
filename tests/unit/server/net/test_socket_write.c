/* Tests for writes to a libuv stream (server/net/socket_write.h) over a
 * local socket pair: what the kernel takes at once is not copied (no
 * request), the rest is copied behind the caller's own head and queued
 * in order, a request is always made without try_first (even of no
 * bytes, so its callback runs), write_rest skips bytes across buffers,
 * and a peer that is gone gives a negative errno with nothing queued. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/net/socket_write.h"

typedef struct wr_s {
  uv_write_t w; /* First: the request is the struct. */
  int tag;
  size_t len;
} wr_t;

static int done_count, done_status;
static int last_tag;

static void on_written(uv_write_t *w, int status) {
  wr_t *r = (wr_t *)w;
  done_count++;
  done_status = status;
  last_tag = r->tag;
  free(r);
}

typedef struct pair_s {
  uv_loop_t loop;
  uv_pipe_t pipe;
  int peer; /* The other end, non-blocking. */
} pair_t;

static void pair_open(pair_t *p, int sndbuf) {
  signal(SIGPIPE, SIG_IGN);
  done_count = 0;
  done_status = 1;
  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  if (sndbuf > 0) {
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &sndbuf, sizeof sndbuf);
  }
  fcntl(sv[1], F_SETFL, O_NONBLOCK);
  ck_assert_int_eq(uv_loop_init(&p->loop), 0);
  ck_assert_int_eq(uv_pipe_init(&p->loop, &p->pipe, 0), 0);
  ck_assert_int_eq(uv_pipe_open(&p->pipe, sv[0]), 0);
  p->peer = sv[1];
}

static void pair_close(pair_t *p) {
  uv_close((uv_handle_t *)&p->pipe, NULL);
  ck_assert_int_eq(uv_run(&p->loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(uv_loop_close(&p->loop), 0);
  if (p->peer >= 0) close(p->peer);
}

/* Reads what the peer has now into buf at *n (cap bytes). */
static void drain_peer(pair_t *p, char *buf, size_t cap, size_t *n) {
  for (;;) {
    ssize_t r = read(p->peer, buf + *n, cap - *n);
    if (r <= 0) return;
    *n += (size_t)r;
  }
}

START_TEST(test_straight_to_the_kernel) {
  pair_t p;
  pair_open(&p, 0);
  uv_buf_t bufs[3] = {uv_buf_init("abc", 3), uv_buf_init("", 0),
                      uv_buf_init("defg", 4)};
  uv_write_t *req = (uv_write_t *)0x1;
  size_t len = 99;
  ck_assert_int_eq(srv_socket_write((uv_stream_t *)&p.pipe, bufs, 3, true,
                                    sizeof(wr_t), on_written, &req, &len),
                   0);
  ck_assert_ptr_null(req);
  ck_assert_uint_eq(len, 0);
  char got[16];
  size_t n = 0;
  drain_peer(&p, got, sizeof got, &n);
  ck_assert_uint_eq(n, 7);
  ck_assert(memcmp(got, "abcdefg", 7) == 0);
  /* Nothing to write: no request, no callback. */
  ck_assert_int_eq(srv_socket_write((uv_stream_t *)&p.pipe, bufs + 1, 1, true,
                                    sizeof(wr_t), on_written, &req, &len),
                   0);
  ck_assert_ptr_null(req);
  uv_run(&p.loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(done_count, 0);
  pair_close(&p);
}
END_TEST

START_TEST(test_always_queued_without_try) {
  pair_t p;
  pair_open(&p, 0);
  uv_buf_t bufs[2] = {uv_buf_init("12", 2), uv_buf_init("345", 3)};
  uv_write_t *req;
  size_t len;
  ck_assert_int_eq(srv_socket_write((uv_stream_t *)&p.pipe, bufs, 2, false,
                                    sizeof(wr_t), on_written, &req, &len),
                   0);
  ck_assert_ptr_nonnull(req);
  ck_assert_uint_eq(len, 5);
  /* The copy starts right after the caller's head. */
  ck_assert(memcmp((char *)req + sizeof(wr_t), "12345", 5) == 0);
  ((wr_t *)req)->tag = 7;
  /* Even no bytes make a request whose callback runs. */
  uv_write_t *empty;
  ck_assert_int_eq(srv_socket_write((uv_stream_t *)&p.pipe, bufs, 0, false,
                                    sizeof(wr_t), on_written, &empty, &len),
                   0);
  ck_assert_ptr_nonnull(empty);
  ck_assert_uint_eq(len, 0);
  ((wr_t *)empty)->tag = 8;
  for (int i = 0; i < 100 && done_count < 2; i++)
    uv_run(&p.loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(done_count, 2);
  ck_assert_int_eq(done_status, 0);
  ck_assert_int_eq(last_tag, 8); /* In order. */
  char got[16];
  size_t n = 0;
  drain_peer(&p, got, sizeof got, &n);
  ck_assert_uint_eq(n, 5);
  ck_assert(memcmp(got, "12345", 5) == 0);
  pair_close(&p);
}
END_TEST

START_TEST(test_rest_is_copied_in_order) {
  pair_t p;
  pair_open(&p, 4096);
  /* 2 MiB in three buffers: far more than the socket takes at once. */
  size_t total = 2u << 20;
  char *data = malloc(total);
  for (size_t i = 0; i < total; i++) data[i] = (char)(i * 131 + i / 4096);
  uv_buf_t bufs[3] = {uv_buf_init(data, 1000),
                      uv_buf_init(data + 1000, (unsigned)(total / 2)),
                      uv_buf_init(data + 1000 + total / 2,
                                  (unsigned)(total - 1000 - total / 2))};
  uv_write_t *req;
  size_t len;
  ck_assert_int_eq(srv_socket_write((uv_stream_t *)&p.pipe, bufs, 3, true,
                                    sizeof(wr_t), on_written, &req, &len),
                   0);
  ck_assert_ptr_nonnull(req);
  ck_assert_uint_gt(len, 0);
  ck_assert_uint_lt(len, total);
  ((wr_t *)req)->tag = 1;
  /* The bytes the kernel took at once are not in the copy. */
  ck_assert(memcmp((char *)req + sizeof(wr_t), data + (total - len), len) == 0);
  /* Changing the caller's buffers now changes nothing sent. */
  char *orig = malloc(total);
  memcpy(orig, data, total);
  memset(data, 0, total);
  char *got = malloc(total);
  size_t n = 0;
  for (int i = 0; i < 100000 && (n < total || done_count == 0); i++) {
    uv_run(&p.loop, UV_RUN_NOWAIT);
    drain_peer(&p, got, total, &n);
  }
  ck_assert_uint_eq(n, total);
  ck_assert_int_eq(done_count, 1);
  ck_assert_int_eq(done_status, 0);
  ck_assert(memcmp(got, orig, total) == 0);
  free(got);
  free(orig);
  free(data);
  pair_close(&p);
}
END_TEST

START_TEST(test_write_rest_skips) {
  pair_t p;
  pair_open(&p, 0);
  uv_buf_t bufs[3] = {uv_buf_init("ab", 2), uv_buf_init("cdef", 4),
                      uv_buf_init("gh", 2)};
  uv_write_t *req;
  size_t len;
  /* Skip into the middle of the second buffer. */
  ck_assert_int_eq(srv_socket_write_rest((uv_stream_t *)&p.pipe, bufs, 3, 3,
                                         sizeof(wr_t), on_written, &req, &len),
                   0);
  ck_assert_uint_eq(len, 5);
  ck_assert(memcmp((char *)req + sizeof(wr_t), "defgh", 5) == 0);
  ((wr_t *)req)->tag = 1;
  /* Skip exactly a whole first buffer. */
  ck_assert_int_eq(srv_socket_write_rest((uv_stream_t *)&p.pipe, bufs, 3, 2,
                                         sizeof(wr_t), on_written, &req, &len),
                   0);
  ck_assert_uint_eq(len, 6);
  ((wr_t *)req)->tag = 2;
  /* Skip everything: a request of no bytes all the same. */
  ck_assert_int_eq(srv_socket_write_rest((uv_stream_t *)&p.pipe, bufs, 3, 8,
                                         sizeof(wr_t), on_written, &req, &len),
                   0);
  ck_assert_ptr_nonnull(req);
  ck_assert_uint_eq(len, 0);
  ((wr_t *)req)->tag = 3;
  for (int i = 0; i < 100 && done_count < 3; i++)
    uv_run(&p.loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(done_count, 3);
  ck_assert_int_eq(last_tag, 3);
  char got[32];
  size_t n = 0;
  drain_peer(&p, got, sizeof got, &n);
  ck_assert_uint_eq(n, 11);
  ck_assert(memcmp(got, "defghcdefgh", 11) == 0);
  pair_close(&p);
}
END_TEST

START_TEST(test_peer_gone) {
  pair_t p;
  pair_open(&p, 0);
  close(p.peer);
  p.peer = -1;
  uv_buf_t b = uv_buf_init("x", 1);
  uv_write_t *req = (uv_write_t *)0x1;
  size_t len = 5;
  int rc = srv_socket_write((uv_stream_t *)&p.pipe, &b, 1, true, sizeof(wr_t),
                            on_written, &req, &len);
  ck_assert_msg(rc == UV_EPIPE || rc == UV_ECONNRESET, "rc %d", rc);
  ck_assert_ptr_null(req);
  ck_assert_uint_eq(len, 0);
  uv_run(&p.loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(done_count, 0);
  pair_close(&p);
}
END_TEST

Suite *server_net_socket_write_suite(void) {
  Suite *s = suite_create("server_net_socket_write");
  TCase *tc = tcase_create("socket_write");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_straight_to_the_kernel);
  tcase_add_test(tc, test_always_queued_without_try);
  tcase_add_test(tc, test_rest_is_copied_in_order);
  tcase_add_test(tc, test_write_rest_skips);
  tcase_add_test(tc, test_peer_gone);
  suite_add_tcase(s, tc);
  return s;
}
