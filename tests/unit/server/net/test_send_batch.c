/* Tests for send batches (server/net/send_batch.h), through io_uring and
 * one sendmsg at a time: every write of a run reports once, in the order
 * added, with the bytes the kernel took, and the peers read exactly those
 * bytes in order; a full socket reports a short count and then 0; a
 * reset peer or a bad descriptor reports a negative errno; more writes
 * than the ring holds go out in several submissions; nothing can be added
 * while the batch runs; an empty run, empty buffers, the pending count
 * and a batch used again after a run. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/net/send_batch.h"

/* _i of a loop test: 0 asks for io_uring, 1 turns it off. */
#define USE_RING(i) ((i) == 0)

/* Whether this kernel lets a process make a ring at all. */
static bool ring_allowed(void) {
  struct io_uring r;
  if (io_uring_queue_init(8, &r, 0) != 0) return false;
  io_uring_queue_exit(&r);
  return true;
}

/* A connected TCP pair on 127.0.0.1, both ends non-blocking. */
static void tcp_pair(int *tx, int *rx) {
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(ls, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  ck_assert_int_eq(bind(ls, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(ls, 1), 0);
  socklen_t len = sizeof a;
  ck_assert_int_eq(getsockname(ls, (struct sockaddr *)&a, &len), 0);
  *tx = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_eq(connect(*tx, (struct sockaddr *)&a, sizeof a), 0);
  *rx = accept(ls, NULL, NULL);
  ck_assert_int_ge(*rx, 0);
  close(ls);
  int one = 1;
  setsockopt(*tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fcntl(*tx, F_SETFL, O_NONBLOCK);
  fcntl(*rx, F_SETFL, O_NONBLOCK);
}

/* Reads what fd has (non-blocking) into buf, at most cap bytes. */
static size_t drain(int fd, uint8_t *buf, size_t cap) {
  size_t got = 0;
  while (got < cap) {
    ssize_t r = read(fd, buf + got, cap - got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  return got;
}

typedef struct report_s {
  int index;
  ssize_t sent;
  size_t total;
  int calls;
} report_t;

static report_t reports[512];
static int order[512];
static int order_len;
static srv_send_batch_t *running_batch;
static int add_while_running;

static void on_done(void *arg, const uv_buf_t *bufs, unsigned nbufs,
                    ssize_t sent) {
  report_t *r = arg;
  r->calls++;
  r->sent = sent;
  r->total = 0;
  for (unsigned i = 0; i < nbufs; i++) r->total += bufs[i].len;
  order[order_len++] = r->index;
  uint8_t x = 0;
  uv_buf_t b = uv_buf_init((char *)&x, 1);
  add_while_running = srv_send_batch_add(running_batch, 0, &b, 1, on_done, r);
}

static void reset_reports(void) {
  memset(reports, 0, sizeof reports);
  for (int i = 0; i < 512; i++) reports[i].index = i;
  order_len = 0;
}

/* 300 sockets, more than one ring's worth (SRV_SEND_BATCH_DEPTH), each
 * sent a header, a payload of its own and a trailer in one write. */
#define PAIRS 300
#define PAYLOAD 1500

START_TEST(test_many_in_order) {
  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur < 2 * PAIRS + 64 && rl.rlim_max >= 2 * PAIRS + 64) {
    rl.rlim_cur = 2 * PAIRS + 64;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  static int tx[PAIRS], rx[PAIRS];
  for (int i = 0; i < PAIRS; i++) tcp_pair(&tx[i], &rx[i]);
  static uint8_t payload[PAIRS][PAYLOAD];
  char head[PAIRS][16];
  static const char tail[] = "end";
  srv_send_batch_t *b = srv_send_batch_new(USE_RING(_i));
  ck_assert_ptr_nonnull(b);
  running_batch = b;
  reset_reports();
  for (int round = 0; round < 3; round++) {
    order_len = 0;
    for (int i = 0; i < PAIRS; i++) {
      for (int k = 0; k < PAYLOAD; k++)
        payload[i][k] = (uint8_t)(i * 7 + k + round);
      int hl = snprintf(head[i], sizeof head[i], "h%d.%d:", round, i);
      uv_buf_t bufs[3] = {uv_buf_init(head[i], (unsigned)hl),
                          uv_buf_init((char *)payload[i], PAYLOAD),
                          uv_buf_init((char *)tail, 3)};
      ck_assert_int_eq(
          srv_send_batch_add(b, tx[i], bufs, 3, on_done, &reports[i]), 0);
    }
    ck_assert_uint_eq(srv_send_batch_pending(b), PAIRS);
    srv_send_batch_run(b);
    ck_assert_uint_eq(srv_send_batch_pending(b), 0);
    ck_assert_int_eq(order_len, PAIRS);
    for (int i = 0; i < PAIRS; i++) {
      ck_assert_int_eq(order[i], i);
      ck_assert_int_eq(reports[i].calls, round + 1);
      ck_assert_int_eq(reports[i].sent, (ssize_t)reports[i].total);
      static uint8_t got[PAYLOAD + 64];
      size_t n = drain(rx[i], got, sizeof got);
      ck_assert_uint_eq(n, reports[i].total);
      size_t hl = strlen(head[i]);
      ck_assert_int_eq(memcmp(got, head[i], hl), 0);
      ck_assert_int_eq(memcmp(got + hl, payload[i], PAYLOAD), 0);
      ck_assert_int_eq(memcmp(got + hl + PAYLOAD, "end", 3), 0);
    }
    ck_assert_int_eq(add_while_running, UV_EINVAL);
  }
  ck_assert(srv_send_batch_uses_io_uring(b) ==
            (USE_RING(_i) && ring_allowed()));
  srv_send_batch_free(b);
  for (int i = 0; i < PAIRS; i++) {
    close(tx[i]);
    close(rx[i]);
  }
}
END_TEST

/* A peer that does not read: the first run takes part of a write larger
 * than both socket buffers, and runs again take what room remains until
 * one takes nothing; the peer then reads exactly the parts taken. */
START_TEST(test_full_socket) {
  int tx, rx;
  tcp_pair(&tx, &rx);
  int small = 16384;
  setsockopt(tx, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  size_t big = 8u << 20;
  uint8_t *data = malloc(big);
  ck_assert_ptr_nonnull(data);
  for (size_t k = 0; k < big; k++) data[k] = (uint8_t)(k * 31 + (k >> 13));
  srv_send_batch_t *b = srv_send_batch_new(USE_RING(_i));
  running_batch = b;
  reset_reports();
  uv_buf_t buf = uv_buf_init((char *)data, (unsigned)big);
  ck_assert_int_eq(srv_send_batch_add(b, tx, &buf, 1, on_done, &reports[0]), 0);
  srv_send_batch_run(b);
  ssize_t first = reports[0].sent;
  ck_assert_int_gt(first, 0);
  ck_assert_int_lt(first, (ssize_t)big);
  /* The rest of the write, run after run (the room left as the peer's
   * window opens), until a run takes nothing: at most 200 runs. */
  size_t taken = (size_t)first;
  int runs = 0;
  do {
    ck_assert_int_lt(runs, 200);
    uv_buf_t rest = uv_buf_init((char *)data + taken, (unsigned)(big - taken));
    ck_assert_int_eq(
        srv_send_batch_add(b, tx, &rest, 1, on_done, &reports[1 + runs]), 0);
    srv_send_batch_run(b);
    ck_assert_int_eq(reports[1 + runs].calls, 1);
    ck_assert_int_ge(reports[1 + runs].sent, 0);
    taken += (size_t)reports[1 + runs].sent;
    runs++;
    if (reports[runs].sent > 0) usleep(1000);
  } while (reports[runs].sent > 0);
  ck_assert_uint_lt(taken, big);
  uint8_t *got = malloc(big);
  size_t n = 0;
  /* The peer reads all of it; what waited in the sender's buffer comes
   * as the window opens, the last part maybe after a zero-window probe
   * (at most 2 s of waiting in all). */
  for (int idle = 0; idle < 400 && n < taken;) {
    size_t r = drain(rx, got + n, big - n);
    n += r;
    if (r == 0) {
      idle++;
      usleep(5000);
    }
  }
  ck_assert_uint_eq(n, taken);
  ck_assert_int_eq(memcmp(got, data, n), 0);
  srv_send_batch_free(b);
  free(got);
  free(data);
  close(tx);
  close(rx);
}
END_TEST

/* A reset peer and a descriptor that is not open: negative errnos, the
 * writes around them unaffected. */
START_TEST(test_errors) {
  int tx[3], rx[3];
  for (int i = 0; i < 3; i++) tcp_pair(&tx[i], &rx[i]);
  struct linger lg = {1, 0};
  setsockopt(rx[1], SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  close(rx[1]); /* Resets the connection. */
  usleep(10000);
  const int bad = 1000000; /* Above any descriptor this test opens. */
  srv_send_batch_t *b = srv_send_batch_new(USE_RING(_i));
  running_batch = b;
  reset_reports();
  static const char msg[] = "frame";
  uv_buf_t buf = uv_buf_init((char *)msg, 5);
  int fds[4] = {tx[0], tx[1], bad, tx[2]};
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < 4; i++)
      ck_assert_int_eq(srv_send_batch_add(b, fds[i], &buf, 1, on_done,
                                          &reports[4 * round + i]),
                       0);
  srv_send_batch_run(b);
  for (int round = 0; round < 2; round++) {
    report_t *r = &reports[4 * round];
    ck_assert_int_eq(r[0].sent, 5);
    ck_assert_int_eq(r[3].sent, 5);
    ck_assert_int_eq(r[2].sent, UV_EBADF);
    /* The reset is seen at once or by the next write. */
    ck_assert(r[1].sent == UV_ECONNRESET || r[1].sent == UV_EPIPE ||
              (round == 0 && r[1].sent == 5));
    for (int i = 0; i < 4; i++) ck_assert_int_eq(r[i].calls, 1);
  }
  ck_assert(reports[5].sent < 0);
  uint8_t got[32];
  ck_assert_uint_eq(drain(rx[0], got, sizeof got), 10);
  ck_assert_uint_eq(drain(rx[2], got, sizeof got), 10);
  ck_assert_int_eq(memcmp(got, "frameframe", 10), 0);
  srv_send_batch_free(b);
  for (int i = 0; i < 3; i++) {
    close(tx[i]);
    if (i != 1) close(rx[i]);
  }
}
END_TEST

/* ---- basics ------------------------------------------------------------- */

typedef struct basic_s {
  int calls;
  ssize_t sent;
  unsigned nbufs;
} basic_t;

static void basic_done(void *arg, const uv_buf_t *bufs, unsigned nbufs,
                       ssize_t sent) {
  (void)bufs;
  basic_t *r = arg;
  r->calls++;
  r->sent = sent;
  r->nbufs = nbufs;
}

START_TEST(test_basics) {
  srv_send_batch_t *b = srv_send_batch_new(USE_RING(_i));
  ck_assert_ptr_nonnull(b);
  /* Before any run: no ring; an empty run does nothing. */
  ck_assert(!srv_send_batch_uses_io_uring(b));
  ck_assert_uint_eq(srv_send_batch_pending(b), 0);
  srv_send_batch_run(b);
  ck_assert_uint_eq(srv_send_batch_pending(b), 0);
  int tx, rx;
  tcp_pair(&tx, &rx);
  /* Three buffers, one of them empty; and a write of no bytes at all. */
  uv_buf_t three[3] = {uv_buf_init("head|", 5), uv_buf_init("", 0),
                       uv_buf_init("tail", 4)};
  uv_buf_t nothing = uv_buf_init("", 0);
  basic_t r1 = {0}, r2 = {0};
  ck_assert_int_eq(srv_send_batch_add(b, tx, three, 3, basic_done, &r1), 0);
  ck_assert_int_eq(srv_send_batch_add(b, tx, &nothing, 1, basic_done, &r2), 0);
  ck_assert_uint_eq(srv_send_batch_pending(b), 2);
  ck_assert_int_eq(r1.calls, 0);
  srv_send_batch_run(b);
  ck_assert_uint_eq(srv_send_batch_pending(b), 0);
  ck_assert_int_eq(r1.calls, 1);
  ck_assert_int_eq(r1.sent, 9);
  ck_assert_uint_eq(r1.nbufs, 3);
  ck_assert_int_eq(r2.calls, 1);
  ck_assert_int_eq(r2.sent, 0);
  if (!USE_RING(_i)) ck_assert(!srv_send_batch_uses_io_uring(b));
  uint8_t got[32];
  size_t n = 0;
  for (int i = 0; i < 1000 && n < 9; i++) n += drain(rx, got + n, 9 - n);
  ck_assert_uint_eq(n, 9);
  ck_assert(memcmp(got, "head|tail", 9) == 0);
  /* The batch is reusable after a run. */
  basic_t r3 = {0};
  uv_buf_t again = uv_buf_init("x", 1);
  ck_assert_int_eq(srv_send_batch_add(b, tx, &again, 1, basic_done, &r3), 0);
  srv_send_batch_run(b);
  ck_assert_int_eq(r3.sent, 1);
  close(tx);
  close(rx);
  srv_send_batch_free(b);
  srv_send_batch_free(NULL);
}
END_TEST

Suite *send_batch_suite(void) {
  Suite *s = suite_create("send_batch");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_loop_test(tc, test_many_in_order, 0, 2);
  tcase_add_loop_test(tc, test_full_socket, 0, 2);
  tcase_add_loop_test(tc, test_errors, 0, 2);
  tcase_add_loop_test(tc, test_basics, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}
