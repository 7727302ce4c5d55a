/* Tests for TCP connections (server/net/conn.h) over real loopback
 * sockets: the test holds the peer's end as a plain socket. Accepting and
 * opening (peer address, the set and its count, a bad descriptor), reads
 * (the buffer the protocol consumes at its pace, reading paused at
 * read_limit and resumed by consuming, EOF and reset, bytes already read
 * handed to the next protocol), writes (callbacks once each, order,
 * buffers reusable at once, queued bytes and on_drain as the peer catches
 * up), close (queued writes cancelled after on_close, UV_EPIPE after),
 * close after writes (everything out, then FIN; the linger bound), the
 * write timeout, errors on a reset peer, references, closing a set,
 * duplicated sockets and writes through a send batch. Every wait is
 * bounded. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/net/conn.h"

/* ---- the fixture: a loop and a socket pair on 127.0.0.1 ------------------ */

static uv_loop_t loop;
static uv_timer_t tick; /* Wakes UV_RUN_ONCE: waits stay bounded. */

static void on_tick(uv_timer_t *t) { (void)t; }

static uint64_t now_ms(void) { return uv_hrtime() / 1000000u; }

static void loop_open(void) {
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  uv_timer_init(&loop, &tick);
  uv_timer_start(&tick, on_tick, 2, 2);
}

/* Runs the loop until every handle is closed, then closes it. */
static void loop_finish(void) {
  uv_close((uv_handle_t *)&tick, NULL);
  uint64_t end = now_ms() + 5000;
  while (uv_loop_alive(&loop) && now_ms() < end) uv_run(&loop, UV_RUN_ONCE);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}

static void run_for(int ms) {
  uint64_t end = now_ms() + (uint64_t)ms;
  while (now_ms() < end) uv_run(&loop, UV_RUN_ONCE);
}

#define RUN_UNTIL(cond, ms)                                                    \
  do {                                                                         \
    uint64_t end_ = now_ms() + (ms);                                           \
    while (!(cond) && now_ms() < end_) uv_run(&loop, UV_RUN_ONCE);             \
  } while (0)

static int listener_socket(int *port) {
  int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ck_assert_int_ge(l, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  ck_assert_int_eq(bind(l, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(l, 8), 0);
  socklen_t len = sizeof a;
  ck_assert_int_eq(getsockname(l, (struct sockaddr *)&a, &len), 0);
  *port = ntohs(a.sin_port);
  return l;
}

static int connect_to(int port) {
  int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ck_assert_int_ge(c, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_port = htons((uint16_t)port),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  ck_assert_int_eq(connect(c, (struct sockaddr *)&a, sizeof a), 0);
  return c;
}

static int local_port(int fd) {
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  return ntohs(a.sin_port);
}

/* A connected pair: *server for srv_conn_open, *peer for the test. */
static void socket_pair(int *server, int *peer) {
  int port;
  int l = listener_socket(&port);
  *peer = connect_to(port);
  *server = accept4(l, NULL, NULL, SOCK_CLOEXEC);
  ck_assert_int_ge(*server, 0);
  close(l);
}

/* The connection's send buffer made small (64 KiB), so that backpressure
 * comes soon (the peer's receive buffer is left alone: a small window
 * slows every drain down to the peer's delayed acknowledgements). */
static void small_buffers(int fd) {
  int n = 65536;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &n, sizeof n);
}

/* Reads what the peer has, without waiting. Returns bytes, 0 on EOF, -1
 * when nothing is there now, or -errno. */
static ssize_t peer_read_now(int fd, char *buf, size_t cap) {
  ssize_t n = recv(fd, buf, cap, MSG_DONTWAIT);
  if (n >= 0) return n;
  if (errno == EAGAIN || errno == EWOULDBLOCK) return -1;
  return -errno;
}

/* ---- a protocol that records
 * ------------------------------------------------- */

typedef struct rec_s {
  int reads;
  ssize_t last_nread;
  int eof, errors;
  int drains, closes;
  bool consume;         /* Consume everything read. */
  bool close_on_end;    /* srv_conn_close on EOF or error. */
  char data[1 << 16];   /* What was consumed (the first 64 KiB). */
  size_t got;           /* Bytes consumed. */
  size_t unread_seen;   /* srv_conn_unread's length at the last read. */
  int cancelled_before; /* Write callbacks that ran before on_close. */
} rec_t;

static int write_cbs, write_cb_errors, write_cb_cancelled;
static int last_write_status;

static void rec_on_read(srv_conn_t *c, ssize_t nread, void *user) {
  rec_t *r = user;
  r->reads++;
  r->last_nread = nread;
  if (nread < 0) {
    if (nread == UV_EOF)
      r->eof++;
    else
      r->errors++;
    if (r->close_on_end) srv_conn_close(c);
    return;
  }
  const char *data;
  size_t len;
  srv_conn_unread(c, &data, &len);
  r->unread_seen = len;
  if (!r->consume) return;
  size_t room = sizeof r->data - (r->got < sizeof r->data ? r->got : 0);
  size_t copy = r->got < sizeof r->data ? (len < room ? len : room) : 0;
  memcpy(r->data + r->got, data, copy);
  r->got += len;
  srv_conn_consume(c, len);
}

static void rec_on_drain(srv_conn_t *c, void *user) {
  (void)c;
  rec_t *r = user;
  r->drains++;
}

static void rec_on_close(srv_conn_t *c, void *user) {
  (void)c;
  rec_t *r = user;
  r->closes++;
  r->cancelled_before = write_cb_cancelled;
}

static const srv_conn_proto_t rec_proto = {rec_on_read, rec_on_drain,
                                           rec_on_close};

static void on_write_done(int status, void *arg) {
  write_cbs++;
  last_write_status = status;
  if (status < 0) write_cb_errors++;
  if (status == UV_ECANCELED) write_cb_cancelled++;
  if (arg != NULL) (*(int *)arg)++;
}

static void reset_counters(void) {
  write_cbs = write_cb_errors = write_cb_cancelled = 0;
  last_write_status = 1;
}

/* A connection over a fresh pair, speaking rec_proto. */
static srv_conn_t *open_conn(const srv_conn_opts_t *o, rec_t *r, int *peer) {
  int server;
  socket_pair(&server, peer);
  srv_conn_t *c = NULL;
  ck_assert_int_eq(srv_conn_open(&loop, server, o, &c), 0);
  ck_assert_ptr_nonnull(c);
  srv_conn_start(c, &rec_proto, r);
  return c;
}

/* A recognisable byte stream: byte i is (i * 7 + i / 251) & 0xff. */
static unsigned char pattern(size_t i) {
  return (unsigned char)((i * 7 + i / 251) & 0xff);
}

static void fill(char *buf, size_t off, size_t len) {
  for (size_t i = 0; i < len; i++) buf[i] = (char)pattern(off + i);
}

/* Where buf (stream bytes off..off+len) first differs from the pattern, or
 * len. One assertion per buffer: Check records every assertion. */
static size_t mismatch(const char *buf, size_t off, size_t len) {
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)buf[i] != pattern(off + i)) return i;
  return len;
}

/* Reads from the peer until want bytes came (checking the pattern from
 * *off on) or ms passed, turning the loop meanwhile. Returns bytes read. */
static size_t peer_drain(int peer, size_t want, size_t *off, int ms) {
  char buf[65536];
  size_t total = 0;
  uint64_t end = now_ms() + (uint64_t)ms;
  while (total < want && now_ms() < end) {
    ssize_t n = peer_read_now(peer, buf, sizeof buf);
    if (n > 0) {
      size_t bad = mismatch(buf, *off, (size_t)n);
      ck_assert_msg(bad == (size_t)n, "byte %zu", *off + bad);
      *off += (size_t)n;
      total += (size_t)n;
    } else if (n == 0 || n < -1) {
      break;
    }
    uv_run(&loop, UV_RUN_NOWAIT);
  }
  return total;
}

/* Waits for the peer to see EOF (recv 0) within ms, discarding bytes.
 * Returns true on EOF. */
static bool peer_sees_eof(int peer, int ms) {
  char buf[4096];
  uint64_t end = now_ms() + (uint64_t)ms;
  while (now_ms() < end) {
    ssize_t n = peer_read_now(peer, buf, sizeof buf);
    if (n == 0) return true;
    if (n < -1) return false;
    uv_run(&loop, UV_RUN_ONCE);
  }
  return false;
}

/* ---- accept, open, peer, sets ------------------------------------------- */

static srv_conn_set_t *accept_set;
static srv_conn_t *accepted;
static int accept_rc = 1;

static void on_connection(uv_stream_t *server, int status) {
  ck_assert_int_eq(status, 0);
  srv_conn_opts_t o = {.set = accept_set};
  accept_rc = srv_conn_accept(server, &o, &accepted);
}

static int set_empty_calls;
static void on_set_empty(srv_conn_set_t *set) {
  (void)set;
  set_empty_calls++;
}

START_TEST(test_accept_names_peer_and_joins_set) {
  loop_open();
  uv_tcp_t server;
  uv_tcp_init(&loop, &server);
  struct sockaddr_in a;
  uv_ip4_addr("127.0.0.1", 0, &a);
  ck_assert_int_eq(uv_tcp_bind(&server, (struct sockaddr *)&a, 0), 0);
  ck_assert_int_eq(uv_listen((uv_stream_t *)&server, 8, on_connection), 0);
  struct sockaddr_in bound;
  int len = sizeof bound;
  uv_tcp_getsockname(&server, (struct sockaddr *)&bound, &len);
  atomic_uint total = 0;
  srv_conn_set_t set = {.total = &total, .on_empty = on_set_empty};
  accept_set = &set;
  accepted = NULL;
  accept_rc = 1;
  set_empty_calls = 0;
  int peer = connect_to(ntohs(bound.sin_port));
  RUN_UNTIL(accept_rc != 1, 5000);
  ck_assert_int_eq(accept_rc, 0);
  ck_assert_ptr_nonnull(accepted);
  char want[64];
  snprintf(want, sizeof want, "127.0.0.1:%d", local_port(peer));
  ck_assert_str_eq(srv_conn_peer(accepted), want);
  ck_assert_ptr_eq(srv_conn_loop(accepted), &loop);
  ck_assert_uint_eq(set.count, 1);
  ck_assert_ptr_eq(set.head, accepted);
  ck_assert_uint_eq(atomic_load(&total), 1);
  ck_assert(!srv_conn_is_closing(accepted));
  /* Nothing is read before a protocol is installed. */
  ck_assert_int_eq(send(peer, "early", 5, 0), 5);
  run_for(20);
  const char *data;
  size_t n;
  srv_conn_unread(accepted, &data, &n);
  ck_assert_uint_eq(n, 0);
  ck_assert_str_eq(data, "");
  rec_t r = {.consume = true};
  srv_conn_start(accepted, &rec_proto, &r);
  ck_assert(srv_conn_speaks(accepted, &rec_proto));
  ck_assert_ptr_eq(srv_conn_user(accepted), &r);
  RUN_UNTIL(r.got == 5, 5000);
  ck_assert_int_eq(memcmp(r.data, "early", 5), 0);
  srv_conn_close(accepted);
  ck_assert(srv_conn_is_closing(accepted));
  ck_assert_int_eq(r.closes, 1);
  ck_assert_uint_eq(set.count, 0);
  ck_assert_ptr_null(set.head);
  ck_assert_uint_eq(atomic_load(&total), 0);
  ck_assert_int_eq(set_empty_calls, 1);
  ck_assert(peer_sees_eof(peer, 5000));
  close(peer);
  uv_close((uv_handle_t *)&server, NULL);
  loop_finish();
}
END_TEST

START_TEST(test_open_names_peer) {
  loop_open();
  rec_t r = {.consume = true};
  int peer;
  srv_conn_t *c = open_conn(NULL, &r, &peer);
  char want[64];
  snprintf(want, sizeof want, "127.0.0.1:%d", local_port(peer));
  ck_assert_str_eq(srv_conn_peer(c), want);
  ck_assert_uint_eq(srv_conn_queued(c), 0);
  srv_conn_close(c);
  srv_conn_close(c); /* Idempotent. */
  ck_assert_int_eq(r.closes, 1);
  close(peer);
  loop_finish();
}
END_TEST

START_TEST(test_open_bad_descriptor) {
  loop_open();
  atomic_uint total = 0;
  srv_conn_set_t set = {.total = &total, .on_empty = on_set_empty};
  set_empty_calls = 0;
  srv_conn_opts_t o = {.set = &set};
  srv_conn_t *c = NULL;
  int rc = srv_conn_open(&loop, -1, &o, &c);
  ck_assert_int_lt(rc, 0);
  ck_assert_ptr_null(c);
  /* It joined and left the set. */
  ck_assert_uint_eq(set.count, 0);
  ck_assert_uint_eq(atomic_load(&total), 0);
  ck_assert_int_eq(set_empty_calls, 1);
  loop_finish();
}
END_TEST

static void close_each(srv_conn_t *c, void *arg) {
  (*(int *)arg)++;
  srv_conn_close(c);
}

START_TEST(test_set_each_closes_all) {
  loop_open();
  atomic_uint total = 0;
  srv_conn_set_t set = {.total = &total, .on_empty = on_set_empty};
  srv_conn_set_t other = {.total = &total};
  set_empty_calls = 0;
  srv_conn_opts_t o = {.set = &set}, o2 = {.set = &other};
  rec_t r[4];
  memset(r, 0, sizeof r);
  int peers[4];
  srv_conn_t *c[4];
  for (int i = 0; i < 3; i++) c[i] = open_conn(&o, &r[i], &peers[i]);
  c[3] = open_conn(&o2, &r[3], &peers[3]);
  ck_assert_uint_eq(set.count, 3);
  ck_assert_uint_eq(other.count, 1);
  ck_assert_uint_eq(atomic_load(&total), 4);
  int visited = 0;
  srv_conn_set_each(&set, close_each, &visited);
  ck_assert_int_eq(visited, 3);
  ck_assert_uint_eq(set.count, 0);
  ck_assert_int_eq(set_empty_calls, 1);
  ck_assert_uint_eq(atomic_load(&total), 1);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(r[i].closes, 1);
  ck_assert_int_eq(r[3].closes, 0);
  /* An empty set: nothing visited. */
  visited = 0;
  srv_conn_set_each(&set, close_each, &visited);
  ck_assert_int_eq(visited, 0);
  srv_conn_close(c[3]);
  ck_assert_uint_eq(atomic_load(&total), 0);
  for (int i = 0; i < 4; i++) close(peers[i]);
  loop_finish();
}
END_TEST

/* ---- reads -----------------------------------------------------------------
 */

START_TEST(test_reads_consumed_at_own_pace) {
  loop_open();
  rec_t r = {0}; /* Consumes nothing by itself. */
  int peer;
  srv_conn_t *c = open_conn(NULL, &r, &peer);
  ck_assert_int_eq(send(peer, "hello", 5, 0), 5);
  RUN_UNTIL(r.reads >= 1, 5000);
  ck_assert_int_eq(r.reads, 1);
  ck_assert_int_eq(r.last_nread, 5);
  const char *data;
  size_t n;
  srv_conn_unread(c, &data, &n);
  ck_assert_uint_eq(n, 5);
  ck_assert_int_eq(memcmp(data, "hello", 5), 0);
  srv_conn_consume(c, 2);
  srv_conn_unread(c, &data, &n);
  ck_assert_uint_eq(n, 3);
  ck_assert_int_eq(memcmp(data, "llo", 3), 0);
  /* New bytes come after those left. */
  ck_assert_int_eq(send(peer, " world", 6, 0), 6);
  RUN_UNTIL(r.reads >= 2, 5000);
  ck_assert_int_eq(r.last_nread, 6);
  srv_conn_unread(c, &data, &n);
  ck_assert_uint_eq(n, 9);
  ck_assert_int_eq(memcmp(data, "llo world", 9), 0);
  srv_conn_consume(c, 9);
  srv_conn_unread(c, &data, &n);
  ck_assert_uint_eq(n, 0);
  srv_conn_close(c);
  close(peer);
  loop_finish();
}
END_TEST

START_TEST(test_read_pauses_at_limit) {
  loop_open();
  rec_t r = {0};
  int peer;
  srv_conn_opts_t o = {.read_limit = 32768};
  srv_conn_t *c = open_conn(&o, &r, &peer);
  enum { TOTAL = 1 << 20 };
  char *buf = malloc(TOTAL);
  fill(buf, 0, TOTAL);
  ck_assert_int_eq(fcntl(peer, F_SETFL, O_NONBLOCK), 0);
  size_t sent = 0;
  uint64_t end = now_ms() + 3000;
  /* The peer writes until the kernel's buffers fill: the connection stops
   * reading with at most read_limit bytes unconsumed. */
  while (sent < TOTAL && now_ms() < end) {
    ssize_t k = send(peer, buf + sent, TOTAL - sent, MSG_NOSIGNAL);
    if (k > 0) sent += (size_t)k;
    uv_run(&loop, UV_RUN_NOWAIT);
  }
  run_for(50);
  const char *data;
  size_t n;
  srv_conn_unread(c, &data, &n);
  ck_assert_uint_le(n, 32768);
  ck_assert_uint_gt(n, 32768 - 4096);
  ck_assert_uint_lt(n, sent);
  int reads = r.reads;
  run_for(50);
  ck_assert_int_eq(r.reads, reads); /* Paused. */
  /* Consuming resumes; everything arrives, in order. */
  r.consume = true;
  ck_assert_uint_eq(mismatch(data, 0, n), n);
  srv_conn_consume(c, n);
  r.got = n;
  end = now_ms() + 10000;
  while ((r.got < TOTAL) && now_ms() < end) {
    if (sent < TOTAL) {
      ssize_t k = send(peer, buf + sent, TOTAL - sent, MSG_NOSIGNAL);
      if (k > 0) sent += (size_t)k;
    }
    uv_run(&loop, UV_RUN_NOWAIT);
  }
  ck_assert_uint_eq(sent, TOTAL);
  ck_assert_uint_eq(r.got, TOTAL);
  /* Consumed after the pause from offset n on: the stream's bytes n.. */
  ck_assert_uint_eq(mismatch(r.data + n, n, sizeof r.data - n),
                    sizeof r.data - n);
  free(buf);
  srv_conn_close(c);
  close(peer);
  loop_finish();
}
END_TEST

START_TEST(test_eof_then_close) {
  loop_open();
  rec_t r = {.consume = true, .close_on_end = true};
  int peer;
  srv_conn_t *c = open_conn(NULL, &r, &peer);
  srv_conn_ref(c);
  ck_assert_int_eq(send(peer, "last", 4, 0), 4);
  ck_assert_int_eq(shutdown(peer, SHUT_WR), 0);
  RUN_UNTIL(r.eof == 1, 5000);
  ck_assert_int_eq(r.eof, 1);
  ck_assert_int_eq(r.errors, 0);
  ck_assert_uint_eq(r.got, 4);
  ck_assert_int_eq(memcmp(r.data, "last", 4), 0);
  ck_assert_int_eq(r.last_nread, UV_EOF);
  ck_assert_int_eq(r.closes, 1);
  /* Held by the reference: still readable after its handles closed. */
  run_for(20);
  ck_assert(srv_conn_is_closing(c));
  ck_assert_int_eq(srv_conn_write(c, "x", 1, NULL, NULL), UV_EPIPE);
  srv_conn_unref(c);
  ck_assert(peer_sees_eof(peer, 5000));
  close(peer);
  loop_finish();
}
END_TEST

START_TEST(test_peer_reset) {
  loop_open();
  rec_t r = {.consume = true, .close_on_end = true};
  int peer;
  srv_conn_t *c = open_conn(NULL, &r, &peer);
  (void)c;
  struct linger lg = {1, 0};
  ck_assert_int_eq(setsockopt(peer, SOL_SOCKET, SO_LINGER, &lg, sizeof lg), 0);
  close(peer); /* RST */
  RUN_UNTIL(r.closes == 1, 5000);
  ck_assert_int_eq(r.errors, 1);
  ck_assert_int_eq(r.eof, 0);
  ck_assert_int_eq(r.last_nread, UV_ECONNRESET);
  ck_assert_int_eq(r.closes, 1);
  loop_finish();
}
END_TEST

/* A protocol without on_drain and on_close, taking over a connection. */
static void handover_on_read(srv_conn_t *c, ssize_t nread, void *user) {
  rec_t *r = user;
  r->reads++;
  r->last_nread = nread;
  const char *data;
  size_t len;
  srv_conn_unread(c, &data, &len);
  r->unread_seen = len;
}

static const srv_conn_proto_t handover_proto = {handover_on_read, NULL, NULL};

START_TEST(test_buffered_bytes_go_to_next_protocol) {
  loop_open();
  rec_t first = {0}, second = {0};
  int peer;
  srv_conn_t *c = open_conn(NULL, &first, &peer);
  ck_assert_int_eq(send(peer, "GET / HTTP/1.1\r\n\r\nframe", 23, 0), 23);
  RUN_UNTIL(first.reads >= 1, 5000);
  srv_conn_consume(c, 18); /* The first protocol's part. */
  srv_conn_start(c, &handover_proto, &second);
  /* Told at once of what is buffered. */
  ck_assert_int_eq(second.reads, 1);
  ck_assert_int_eq(second.last_nread, 5);
  ck_assert_uint_eq(second.unread_seen, 5);
  ck_assert(srv_conn_speaks(c, &handover_proto));
  ck_assert(!srv_conn_speaks(c, &rec_proto));
  ck_assert_ptr_eq(srv_conn_user(c), &second);
  const char *data;
  size_t n;
  srv_conn_unread(c, &data, &n);
  ck_assert_int_eq(memcmp(data, "frame", 5), 0);
  /* The first protocol hears no more. */
  ck_assert_int_eq(send(peer, "!", 1, 0), 1);
  RUN_UNTIL(second.reads >= 2, 5000);
  ck_assert_int_eq(second.reads, 2);
  ck_assert_int_eq(first.reads, 1);
  /* No on_close in this protocol: closing is silent. */
  srv_conn_close(c);
  ck_assert_int_eq(first.closes, 0);
  close(peer);
  loop_finish();
}
END_TEST

/* ---- writes
 * ------------------------------------------------------------------ */

START_TEST(test_writes_in_order_with_callbacks) {
  loop_open();
  reset_counters();
  rec_t r = {.consume = true};
  int peer;
  srv_conn_t *c = open_conn(NULL, &r, &peer);
  char buf[300];
  size_t off = 0;
  int mine = 0;
  /* A write with a callback, one without, one of several buffers; the
   * buffers are reused at once. */
  fill(buf, 0, 100);
  ck_assert_int_eq(srv_conn_write(c, buf, 100, on_write_done, &mine), 0);
  memset(buf, 0, sizeof buf);
  fill(buf, 100, 50);
  ck_assert_int_eq(srv_conn_write(c, buf, 50, NULL, NULL), 0);
  memset(buf, 0, sizeof buf);
  char a[30], b[70];
  fill(a, 150, 30);
  fill(b, 180, 70);
  uv_buf_t bufs[] = {uv_buf_init(a, 30), uv_buf_init(b, 70)};
  ck_assert_int_eq(srv_conn_writev(c, bufs, 2, on_write_done, &mine), 0);
  memset(a, 0, sizeof a);
  memset(b, 0, sizeof b);
  ck_assert_uint_eq(peer_drain(peer, 250, &off, 5000), 250);
  RUN_UNTIL(mine == 2, 5000);
  ck_assert_int_eq(mine, 2);
  ck_assert_int_eq(write_cbs, 2);
  ck_assert_int_eq(write_cb_errors, 0);
  ck_assert_int_eq(last_write_status, 0);
  ck_assert_uint_eq(srv_conn_queued(c), 0);
  /* An empty write completes too. */
  ck_assert_int_eq(srv_conn_write(c, "", 0, on_write_done, &mine), 0);
  RUN_UNTIL(mine == 3, 5000);
  ck_assert_int_eq(mine, 3);
  srv_conn_close(c);
  ck_assert_int_eq(write_cbs, 3);
  close(peer);
  loop_finish();
}
END_TEST

START_TEST(test_backpressure_and_drain) {
  loop_open();
  reset_counters();
  rec_t r = {.consume = true};
  int server, peer;
  socket_pair(&server, &peer);
  small_buffers(server);
  srv_conn_t *c = NULL;
  ck_assert_int_eq(srv_conn_open(&loop, server, NULL, &c), 0);
  srv_conn_start(c, &rec_proto, &r);
  enum { CHUNK = 65536, CHUNKS = 32 };
  char *buf = malloc(CHUNK);
  size_t written = 0;
  for (int i = 0; i < CHUNKS; i++) {
    fill(buf, written, CHUNK);
    ck_assert_int_eq(srv_conn_write(c, buf, CHUNK, NULL, NULL), 0);
    written += CHUNK;
  }
  free(buf);
  /* The peer reads nothing yet: most of it waits, counted. */
  size_t queued = srv_conn_queued(c);
  ck_assert_uint_gt(queued, (size_t)CHUNK * (CHUNKS - 8));
  ck_assert_uint_le(queued, written);
  run_for(20);
  ck_assert_uint_gt(srv_conn_queued(c), 0);
  /* The peer catches up: every byte, in order; on_drain as it goes. */
  size_t off = 0;
  ck_assert_uint_eq(peer_drain(peer, written, &off, 20000), written);
  RUN_UNTIL(srv_conn_queued(c) == 0, 5000);
  ck_assert_uint_eq(srv_conn_queued(c), 0);
  ck_assert_int_ge(r.drains, 1);
  ck_assert_int_eq(write_cbs, 0);
  srv_conn_close(c);
  close(peer);
  loop_finish();
}
END_TEST

/* Writes queued when the connection closes: on_close first, then each
 * callback once with UV_ECANCELED; writes after are refused. */
START_TEST(test_close_cancels_queued_writes) {
  loop_open();
  reset_counters();
  rec_t r = {.consume = true};
  int server, peer;
  socket_pair(&server, &peer);
  small_buffers(server);
  srv_conn_t *c = NULL;
  ck_assert_int_eq(srv_conn_open(&loop, server, NULL, &c), 0);
  srv_conn_start(c, &rec_proto, &r);
  enum { CHUNK = 65536, N = 16 };
  char *buf = calloc(1, CHUNK);
  int mine = 0;
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(srv_conn_write(c, buf, CHUNK, on_write_done, &mine), 0);
  free(buf);
  run_for(20);
  int done_before = write_cbs;
  ck_assert_int_lt(done_before, N);
  ck_assert_uint_gt(srv_conn_queued(c), 0);
  srv_conn_ref(c);
  srv_conn_close(c);
  ck_assert_int_eq(r.closes, 1);
  ck_assert_int_eq(r.cancelled_before, 0);
  ck_assert_int_eq(srv_conn_write(c, "x", 1, on_write_done, &mine), UV_EPIPE);
  uv_buf_t one = uv_buf_init("y", 1);
  ck_assert_int_eq(srv_conn_writev(c, &one, 1, NULL, NULL), UV_EPIPE);
  RUN_UNTIL(mine == N, 5000);
  ck_assert_int_eq(mine, N);
  ck_assert_int_eq(write_cbs, N);
  ck_assert_int_eq(write_cb_cancelled, N - done_before);
  ck_assert_int_eq(write_cb_errors, N - done_before);
  ck_assert_uint_eq(srv_conn_queued(c), 0);
  srv_conn_unref(c);
  close(peer);
  loop_finish();
}
END_TEST

/* close_after_writes: everything queued goes out, then FIN; the peer's FIN
 * ends it. */
START_TEST(test_close_after_writes_flushes) {
  loop_open();
  reset_counters();
  rec_t r = {.consume = true};
  int server, peer;
  socket_pair(&server, &peer);
  srv_conn_t *c = NULL;
  ck_assert_int_eq(srv_conn_open(&loop, server, NULL, &c), 0);
  srv_conn_start(c, &rec_proto, &r);
  enum { CHUNK = 65536, N = 8 };
  char *buf = malloc(CHUNK);
  int mine = 0;
  size_t written = 0;
  for (int i = 0; i < N; i++) {
    fill(buf, written, CHUNK);
    ck_assert_int_eq(srv_conn_write(c, buf, CHUNK, on_write_done, &mine), 0);
    written += CHUNK;
  }
  free(buf);
  srv_conn_close_after_writes(c);
  ck_assert(!srv_conn_is_closing(c));
  ck_assert_int_eq(srv_conn_write(c, "x", 1, NULL, NULL), UV_EPIPE);
  srv_conn_close_after_writes(c); /* Idempotent. */
  size_t off = 0;
  ck_assert_uint_eq(peer_drain(peer, written, &off, 20000), written);
  ck_assert(peer_sees_eof(peer, 5000));
  RUN_UNTIL(mine == N, 5000);
  ck_assert_int_eq(write_cb_errors, 0);
  /* What the peer sends now is discarded; its FIN closes. */
  ck_assert_int_eq(send(peer, "late", 4, 0), 4);
  ck_assert_msg(shutdown(peer, SHUT_WR) == 0, "shutdown: %s", strerror(errno));
  RUN_UNTIL(r.closes == 1, 5000);
  ck_assert_int_eq(r.closes, 1);
  ck_assert_uint_eq(r.got, 0);
  close(peer);
  loop_finish();
}
END_TEST

/* Nothing queued: the FIN goes at once, and the peer's FIN ends it. */
START_TEST(test_close_after_writes_idle) {
  loop_open();
  rec_t r = {.consume = true};
  int peer;
  srv_conn_t *c = open_conn(NULL, &r, &peer);
  srv_conn_close_after_writes(c);
  ck_assert(peer_sees_eof(peer, 5000));
  ck_assert_int_eq(r.closes, 0);
  close(peer);
  RUN_UNTIL(r.closes == 1, 5000);
  ck_assert_int_eq(r.closes, 1);
  loop_finish();
}
END_TEST

/* A peer that never reads nor closes: the graceful close gives up after
 * linger_ms without progress, cancelling what is left. */
START_TEST(test_close_after_writes_linger) {
  loop_open();
  reset_counters();
  rec_t r = {.consume = true};
  int server, peer;
  socket_pair(&server, &peer);
  small_buffers(server);
  srv_conn_opts_t o = {.linger_ms = 100};
  srv_conn_t *c = NULL;
  ck_assert_int_eq(srv_conn_open(&loop, server, &o, &c), 0);
  srv_conn_start(c, &rec_proto, &r);
  enum { CHUNK = 65536, N = 16 };
  char *buf = calloc(1, CHUNK);
  int mine = 0;
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(srv_conn_write(c, buf, CHUNK, on_write_done, &mine), 0);
  free(buf);
  uint64_t t0 = now_ms();
  srv_conn_close_after_writes(c);
  RUN_UNTIL(r.closes == 1, 5000);
  uint64_t took = now_ms() - t0;
  ck_assert_int_eq(r.closes, 1);
  ck_assert_uint_ge(took, 50); /* The loop's clock may lag a little. */
  ck_assert_uint_lt(took, 3000);
  RUN_UNTIL(mine == N, 5000);
  ck_assert_int_ge(write_cb_cancelled, 1);
  close(peer);
  loop_finish();
}
END_TEST

/* write_timeout_ms: bytes queued and no progress for that long close the
 * connection; a connection with nothing queued is never timed out. */
START_TEST(test_write_timeout) {
  loop_open();
  reset_counters();
  rec_t idle = {.consume = true}, stuck = {.consume = true};
  srv_conn_opts_t o = {.write_timeout_ms = 100};
  int idle_peer;
  srv_conn_t *ic = open_conn(&o, &idle, &idle_peer);
  int server, peer;
  socket_pair(&server, &peer);
  small_buffers(server);
  srv_conn_t *c = NULL;
  ck_assert_int_eq(srv_conn_open(&loop, server, &o, &c), 0);
  srv_conn_start(c, &rec_proto, &stuck);
  enum { CHUNK = 65536, N = 16 };
  char *buf = calloc(1, CHUNK);
  int mine = 0;
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(srv_conn_write(c, buf, CHUNK, on_write_done, &mine), 0);
  free(buf);
  uint64_t t0 = now_ms();
  RUN_UNTIL(stuck.closes == 1, 5000);
  uint64_t took = now_ms() - t0;
  ck_assert_int_eq(stuck.closes, 1);
  ck_assert_uint_ge(took, 50); /* The loop's clock may lag a little. */
  ck_assert_uint_lt(took, 3000);
  RUN_UNTIL(mine == N, 5000);
  ck_assert_int_ge(write_cb_cancelled, 1);
  /* The idle one is still open. */
  run_for(150);
  ck_assert_int_eq(idle.closes, 0);
  ck_assert(!srv_conn_is_closing(ic));
  srv_conn_close(ic);
  close(peer);
  close(idle_peer);
  loop_finish();
}
END_TEST

START_TEST(test_write_to_reset_peer_fails) {
  loop_open();
  reset_counters();
  rec_t r = {.consume = true};
  int peer;
  srv_conn_t *c = open_conn(NULL, &r, &peer);
  srv_conn_ref(c);
  struct linger lg = {1, 0};
  ck_assert_int_eq(setsockopt(peer, SOL_SOCKET, SO_LINGER, &lg, sizeof lg), 0);
  close(peer);
  /* Writes with callbacks until one fails or the connection closes. */
  char buf[4096] = {0};
  int mine = 0, queued = 0;
  uint64_t end = now_ms() + 5000;
  while (!srv_conn_is_closing(c) && write_cb_errors == 0 && now_ms() < end) {
    if (srv_conn_write(c, buf, sizeof buf, on_write_done, &mine) == 0) queued++;
    uv_run(&loop, UV_RUN_NOWAIT);
  }
  RUN_UNTIL(srv_conn_is_closing(c) && mine == queued, 5000);
  ck_assert(srv_conn_is_closing(c));
  ck_assert_int_eq(r.closes, 1);
  ck_assert_int_eq(mine, queued);
  ck_assert_int_ge(write_cb_errors, 1);
  ck_assert_int_eq(srv_conn_write(c, buf, 1, NULL, NULL), UV_EPIPE);
  srv_conn_unref(c);
  loop_finish();
}
END_TEST

/* ---- references, dup, batches -----------------------------------------------
 */

START_TEST(test_reference_outlives_close) {
  loop_open();
  rec_t r = {.consume = true};
  int peer;
  srv_conn_t *c = open_conn(NULL, &r, &peer);
  srv_conn_ref(c);
  srv_conn_ref(c);
  srv_conn_close(c);
  run_for(20); /* Its handles are closed. */
  ck_assert(srv_conn_is_closing(c));
  ck_assert_str_ne(srv_conn_peer(c), "-");
  srv_conn_unref(c);
  ck_assert(srv_conn_is_closing(c));
  srv_conn_unref(c); /* Freed now (the sanitizer build checks). */
  close(peer);
  loop_finish();
}
END_TEST

START_TEST(test_dup_socket) {
  loop_open();
  rec_t r = {.consume = true};
  int peer;
  srv_conn_t *c = open_conn(NULL, &r, &peer);
  uv_os_sock_t fd = -1;
  ck_assert_int_eq(srv_conn_dup_socket(c, &fd), 0);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
  /* The same connection: bytes written on it reach the peer. */
  ck_assert_int_eq(write(fd, "dup", 3), 3);
  char got[8];
  uint64_t end = now_ms() + 5000;
  ssize_t n = -1;
  while (n < 0 && now_ms() < end) {
    n = peer_read_now(peer, got, sizeof got);
    uv_run(&loop, UV_RUN_NOWAIT);
  }
  ck_assert_int_eq(n, 3);
  ck_assert_int_eq(memcmp(got, "dup", 3), 0);
  srv_conn_close(c);
  close(fd);
  close(peer);
  loop_finish();
}
END_TEST

static int batch_done_calls, batch_done_status;
static void on_batch_done(int status, void *arg) {
  (void)arg;
  batch_done_calls++;
  batch_done_status = status;
}

START_TEST(test_batched_write) {
  loop_open();
  rec_t r = {.consume = true};
  int peer;
  srv_conn_t *c = open_conn(NULL, &r, &peer);
  srv_send_batch_t *b = srv_send_batch_new(false);
  ck_assert_ptr_nonnull(b);
  char data[200];
  fill(data, 0, sizeof data);
  uv_buf_t bufs[] = {uv_buf_init(data, 120), uv_buf_init(data + 120, 80)};
  batch_done_calls = 0;
  ck_assert_int_eq(srv_conn_writev_batched(c, b, bufs, 2, on_batch_done, NULL),
                   1);
  ck_assert_uint_eq(srv_send_batch_pending(b), 1);
  /* Nothing else may be written meanwhile. */
  ck_assert_int_eq(srv_conn_write(c, "x", 1, NULL, NULL), UV_EPIPE);
  srv_send_batch_run(b);
  ck_assert_int_eq(batch_done_calls, 1);
  ck_assert_int_eq(batch_done_status, 0);
  size_t off = 0;
  ck_assert_uint_eq(peer_drain(peer, 200, &off, 5000), 200);
  /* An empty write is not batched: srv_conn_writev's. */
  uv_buf_t empty = uv_buf_init(data, 0);
  ck_assert_int_eq(
      srv_conn_writev_batched(c, b, &empty, 1, on_batch_done, NULL), 0);
  ck_assert_uint_eq(srv_send_batch_pending(b), 0);
  ck_assert_int_eq(batch_done_calls, 1);
  /* Closing while a write waits in the batch: the close comes after the
   * run. */
  ck_assert_int_eq(srv_conn_writev_batched(c, b, bufs, 2, on_batch_done, NULL),
                   1);
  srv_conn_close(c);
  ck_assert(!srv_conn_is_closing(c));
  ck_assert_int_eq(r.closes, 0);
  srv_send_batch_run(b);
  ck_assert_int_eq(batch_done_calls, 2);
  ck_assert_int_eq(batch_done_status, 0);
  ck_assert_int_eq(r.closes, 1);
  off = 0;
  ck_assert_uint_eq(peer_drain(peer, 200, &off, 5000), 200);
  ck_assert(peer_sees_eof(peer, 5000));
  srv_send_batch_free(b);
  close(peer);
  loop_finish();
}
END_TEST

/* A batched write the kernel takes only in part: the rest is queued as
 * srv_conn_writev queues it, and arrives in order. */
START_TEST(test_batched_write_partial) {
  loop_open();
  reset_counters();
  rec_t r = {.consume = true};
  int server, peer;
  socket_pair(&server, &peer);
  small_buffers(server);
  srv_conn_t *c = NULL;
  ck_assert_int_eq(srv_conn_open(&loop, server, NULL, &c), 0);
  srv_conn_start(c, &rec_proto, &r);
  srv_send_batch_t *b = srv_send_batch_new(false);
  enum { LEN = 1 << 20 };
  char *data = malloc(LEN);
  fill(data, 0, LEN);
  uv_buf_t one = uv_buf_init(data, LEN);
  batch_done_calls = 0;
  ck_assert_int_eq(srv_conn_writev_batched(c, b, &one, 1, on_batch_done, NULL),
                   1);
  srv_send_batch_run(b);
  ck_assert_int_eq(batch_done_calls, 1);
  ck_assert_int_eq(batch_done_status, 0);
  size_t queued = srv_conn_queued(c);
  ck_assert_uint_gt(queued, 0);
  ck_assert_uint_lt(queued, LEN);
  free(data); /* The rest was copied. */
  /* Something queued: the next write is not batched. */
  char more[10];
  fill(more, LEN, sizeof more);
  uv_buf_t m = uv_buf_init(more, sizeof more);
  ck_assert_int_eq(srv_conn_writev_batched(c, b, &m, 1, on_batch_done, NULL),
                   0);
  ck_assert_uint_eq(srv_send_batch_pending(b), 0);
  size_t off = 0;
  ck_assert_uint_eq(peer_drain(peer, LEN + sizeof more, &off, 20000),
                    LEN + sizeof more);
  RUN_UNTIL(srv_conn_queued(c) == 0, 5000);
  ck_assert_uint_eq(srv_conn_queued(c), 0);
  srv_send_batch_free(b);
  srv_conn_close(c);
  close(peer);
  loop_finish();
}
END_TEST

Suite *server_net_conn_suite(void) {
  Suite *s = suite_create("server_net_conn");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_accept_names_peer_and_joins_set);
  tcase_add_test(tc, test_open_names_peer);
  tcase_add_test(tc, test_open_bad_descriptor);
  tcase_add_test(tc, test_set_each_closes_all);
  tcase_add_test(tc, test_reads_consumed_at_own_pace);
  tcase_add_test(tc, test_read_pauses_at_limit);
  tcase_add_test(tc, test_eof_then_close);
  tcase_add_test(tc, test_peer_reset);
  tcase_add_test(tc, test_buffered_bytes_go_to_next_protocol);
  tcase_add_test(tc, test_writes_in_order_with_callbacks);
  tcase_add_test(tc, test_backpressure_and_drain);
  tcase_add_test(tc, test_close_cancels_queued_writes);
  tcase_add_test(tc, test_close_after_writes_flushes);
  tcase_add_test(tc, test_close_after_writes_idle);
  tcase_add_test(tc, test_close_after_writes_linger);
  tcase_add_test(tc, test_write_timeout);
  tcase_add_test(tc, test_write_to_reset_peer_fails);
  tcase_add_test(tc, test_reference_outlives_close);
  tcase_add_test(tc, test_dup_socket);
  tcase_add_test(tc, test_batched_write);
  tcase_add_test(tc, test_batched_write_partial);
  suite_add_tcase(s, tc);
  return s;
}
