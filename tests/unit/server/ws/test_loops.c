/* Tests for the stream loops (ws_loops.h) and their sockets (ws_socket.h)
 * over socket pairs: a handed-off socket gets the handshake answer first,
 * then answers to the bytes that came with it and to what follows (a frame
 * split across the two), paced frames with the closed-form poses of the
 * test asset (skinned-mesh frames computed ahead on a worker pool that
 * belongs to another loop), counters published to the creating thread, a
 * close frame with the drain's code, the client count back to zero when
 * the peer leaves, and revoked credentials closing their sessions (1008).
 * Every wait is bounded. */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <uv.h>

#include "server/ws/loops.h"
#include "ws_test_fixtures.h"

static store_t *store;

static void setup(void) {
  store_options_t o = {0};
  fmt_error_t err = {0};
  ck_assert_int_eq(store_open(&o, &store, &err), 0);
  fmt_bundle_t b;
  ck_assert_int_eq(fmt_decode_native_json(
                       ws_test_asset, sizeof ws_test_asset - 1, NULL, &b, &err),
                   0);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(store, &b, NULL, &res, &err), 0);
  store_ingest_result_free(&res);
}

static void teardown(void) { store_close(store); }

/* The test's end of a socket pair: bytes read so far. */
typedef struct peer_s {
  int fd;
  uint8_t buf[1 << 16];
  size_t len;
} peer_t;

/* Reads until want bytes are buffered or 3 s have passed. */
static bool read_at_least(peer_t *p, size_t want) {
  uint64_t end = uv_hrtime() + 3000000000ull;
  while (p->len < want && uv_hrtime() < end) {
    struct pollfd pf = {p->fd, POLLIN, 0};
    if (poll(&pf, 1, 50) <= 0) continue;
    ssize_t n = read(p->fd, p->buf + p->len, sizeof p->buf - p->len);
    if (n <= 0) break;
    p->len += (size_t)n;
  }
  return p->len >= want;
}

/* The next unmasked server frame: opcode, payload and its length. Returns
 * false when none arrived within the bound. */
static bool next_frame(peer_t *p, uint8_t *opcode, uint8_t **payload,
                       size_t *plen) {
  if (!read_at_least(p, 2)) return false;
  size_t len = p->buf[1] & 0x7f, hdr = 2;
  if (len == 126) {
    if (!read_at_least(p, 4)) return false;
    len = (size_t)p->buf[2] << 8 | p->buf[3];
    hdr = 4;
  }
  if (!read_at_least(p, hdr + len)) return false;
  static uint8_t out[1 << 16];
  *opcode = p->buf[0] & 0x0f;
  memcpy(out, p->buf + hdr, len);
  out[len] = 0;
  *payload = out;
  *plen = len;
  memmove(p->buf, p->buf + hdr + len, p->len - hdr - len);
  p->len -= hdr + len;
  return true;
}

static uint32_t u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static float f32(const uint8_t *p) {
  uint32_t u = u32(p);
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static double f64(const uint8_t *p) {
  uint64_t u = (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32;
  double d;
  memcpy(&d, &u, 8);
  return d;
}

static srv_ws_loops_t *start_with(unsigned count, srv_pool_t *pool) {
  srv_ws_limits_t lim;
  srv_ws_limits_defaults(&lim);
  lim.close_timeout_ms = 300;
  /* With a pool, every frame is heavy enough for it (schedule.h's rule). */
  if (pool != NULL) lim.inline_cost = 0;
  srv_ws_loops_t *loops = NULL;
  ck_assert_int_eq(srv_ws_loops_new(count, store, pool, &lim, NULL, &loops), 0);
  return loops;
}

static srv_ws_loops_t *start(unsigned count) { return start_with(count, NULL); }

static void pair(int fds[2]) {
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
}

static bool sent_five(const srv_ws_hub_stats_t *st) {
  return st->frames_sent >= 5;
}
static bool no_clients(const srv_ws_hub_stats_t *st) {
  return st->clients == 0;
}
static bool prefetched_five(const srv_ws_hub_stats_t *st) {
  return st->prefetched >= 5;
}

/* The loops' published counters once done(counters) holds, or after 2 s. */
static srv_ws_hub_stats_t stats_when(srv_ws_loops_t *loops,
                                     bool (*done)(const srv_ws_hub_stats_t *)) {
  srv_ws_hub_stats_t st;
  uint64_t end = uv_hrtime() + 2000000000ull;
  for (;;) {
    memset(&st, 0, sizeof st);
    srv_ws_loops_stats(loops, &st);
    if (done(&st) || uv_hrtime() > end) return st;
    usleep(1000);
  }
}

START_TEST(test_hand_off_play_and_drain) {
  setup();
  srv_ws_loops_t *loops = start(2);
  int fds[2];
  pair(fds);
  /* The play message comes with the socket, split: its first 5 bytes
   * arrive with the hand-off, the rest afterwards. */
  uint8_t frame[256];
  size_t n = ws_test_client_frame(
      "{\"op\":\"play\",\"id\":\"s\",\"skeleton\":\"line\","
      "\"clip\":\"slide\",\"fps\":50,\"format\":\"bin\","
      "\"space\":\"local\",\"wrap\":\"clamp\"}",
      frame);
  static const char head[] = "HTTP/1.1 101 Switching Protocols\r\n\r\n";
  ck_assert_int_eq(srv_ws_loops_hand_off(loops, fds[0], head, sizeof head - 1,
                                         frame, 5, NULL),
                   0);
  ck_assert_uint_eq(srv_ws_loops_clients(loops), 1);
  peer_t *p = calloc(1, sizeof *p);
  p->fd = fds[1];
  ck_assert(read_at_least(p, sizeof head - 1));
  ck_assert_int_eq(memcmp(p->buf, head, sizeof head - 1), 0);
  memmove(p->buf, p->buf + sizeof head - 1, p->len - (sizeof head - 1));
  p->len -= sizeof head - 1;
  ck_assert_int_eq(write(fds[1], frame + 5, n - 5), (ssize_t)(n - 5));

  uint8_t op, *data;
  size_t len;
  ck_assert(next_frame(p, &op, &data, &len));
  ck_assert_int_eq(op, 1);
  ck_assert_ptr_nonnull(strstr((char *)data, "\"op\":\"play\""));
  /* Frames 0, 1, 2...: local space TRS of joint a at t = n / 50, whose
   * translation x is t (layout trs10: t xyz, r xyzw, s xyz). */
  int64_t last = -1;
  for (int k = 0; k < 5; k++) {
    ck_assert(next_frame(p, &op, &data, &len));
    ck_assert_int_eq(op, 2);
    ck_assert_uint_ge(len, 32 + 2 * 10 * 4);
    int64_t fn = (int64_t)u32(data + 8) | (int64_t)u32(data + 12) << 32;
    ck_assert_int_gt(fn, last);
    last = fn;
    double t = f64(data + 16);
    /* The clip time sampled (a float), sent as a double. */
    ck_assert_double_eq_tol(t, (double)(float)((double)fn / 50), 1e-12);
    ck_assert_uint_eq(u32(data + 20 + 4), 20); /* floats */
    ck_assert_float_eq_tol(f32(data + 32), (float)t, 1e-6f);
    ck_assert_float_eq_tol(f32(data + 32 + 40 + 4), 2.0f, 1e-6f);
  }
  /* Counters reach this thread. */
  ck_assert_uint_ge(stats_when(loops, sent_five).frames_sent, 5);

  /* Drain: a close frame with the code, then the loop lets go once the
   * peer has answered. */
  srv_ws_loops_drain(loops, 1001, "going");
  bool closed = false;
  for (int k = 0; k < 100 && !closed; k++) {
    if (!next_frame(p, &op, &data, &len)) break;
    if (op == 8) {
      closed = true;
      ck_assert_uint_ge(len, 2);
      ck_assert_uint_eq((unsigned)data[0] << 8 | data[1], 1001);
    }
  }
  ck_assert(closed);
  uint8_t bye[8] = {0x88, 0x80, 1, 2, 3, 4};
  ck_assert_int_eq(write(fds[1], bye, 6), 6);
  /* Hand-offs after the drain are refused (and their socket closed). */
  int other[2];
  pair(other);
  ck_assert_int_eq(
      srv_ws_loops_hand_off(loops, other[0], NULL, 0, NULL, 0, NULL),
      UV_ESHUTDOWN);
  close(other[1]);
  srv_ws_loops_free(loops);
  close(fds[1]);
  free(p);
  teardown();
}
END_TEST

START_TEST(test_peer_leaves) {
  setup();
  srv_ws_loops_t *loops = start(2);
  /* Four clients spread over two loops; the peers then vanish without a
   * close frame, and every client is let go. */
  int fds[4][2];
  for (int i = 0; i < 4; i++) {
    pair(fds[i]);
    uint8_t frame[256];
    size_t n =
        ws_test_client_frame("{\"op\":\"play\",\"id\":1,\"skeleton\":\"line\","
                             "\"clip\":\"slide\",\"fps\":30}",
                             frame);
    ck_assert_int_eq(
        srv_ws_loops_hand_off(loops, fds[i][0], NULL, 0, frame, n, NULL), 0);
  }
  ck_assert_uint_eq(srv_ws_loops_clients(loops), 4);
  for (int i = 0; i < 4; i++) {
    peer_t *p = calloc(1, sizeof *p);
    p->fd = fds[i][1];
    uint8_t op, *data;
    size_t len;
    ck_assert(next_frame(p, &op, &data, &len));
    ck_assert_int_eq(op, 1);
    free(p);
    close(fds[i][1]);
  }
  uint64_t end = uv_hrtime() + 3000000000ull;
  while (srv_ws_loops_clients(loops) > 0 && uv_hrtime() < end) usleep(1000);
  ck_assert_uint_eq(srv_ws_loops_clients(loops), 0);
  srv_ws_hub_stats_t st = stats_when(loops, no_clients);
  ck_assert_uint_eq(st.clients, 0);
  ck_assert_uint_eq(st.streams, 0);
  ck_assert_uint_eq(st.messages_in, 4);
  srv_ws_loops_free(loops);
  teardown();
}
END_TEST

START_TEST(test_free_without_drain) {
  setup();
  srv_ws_loops_t *loops = start(3);
  int fds[2];
  pair(fds);
  ck_assert_int_eq(srv_ws_loops_hand_off(loops, fds[0], NULL, 0, NULL, 0, NULL),
                   0);
  /* Freeing drains (1001) and waits for the loops: the peer never answers,
   * so the close timeouts end it. */
  srv_ws_loops_free(loops);
  peer_t *p = calloc(1, sizeof *p);
  p->fd = fds[1];
  uint8_t op, *data;
  size_t len;
  ck_assert(next_frame(p, &op, &data, &len));
  ck_assert_int_eq(op, 8);
  ck_assert_uint_eq((unsigned)data[0] << 8 | data[1], 1001);
  /* Then the end of the stream. */
  char c;
  ck_assert_int_eq(read(fds[1], &c, 1), 0);
  free(p);
  close(fds[1]);
  teardown();
}
END_TEST

START_TEST(test_mesh_frames_from_the_pool) {
  setup();
  /* The pool belongs to this thread's loop; the stream loop's frames come
   * back to the stream loop through its inbox. */
  uv_loop_t main_loop;
  ck_assert_int_eq(uv_loop_init(&main_loop), 0);
  srv_pool_t pool;
  ck_assert_int_eq(srv_pool_init(&pool, &main_loop, 1, 16), 0);
  srv_ws_loops_t *loops = start_with(1, &pool);
  int fds[2];
  pair(fds);
  uint8_t frame[256];
  size_t n =
      ws_test_client_frame("{\"op\":\"play\",\"id\":\"m\",\"mesh\":\"pair\","
                           "\"clip\":\"slide\",\"fps\":50,"
                           "\"format\":\"bin\",\"wrap\":\"clamp\"}",
                           frame);
  ck_assert_int_eq(
      srv_ws_loops_hand_off(loops, fds[0], NULL, 0, frame, n, NULL), 0);
  peer_t *p = calloc(1, sizeof *p);
  p->fd = fds[1];
  uint8_t op, *data;
  size_t len;
  ck_assert(next_frame(p, &op, &data, &len));
  ck_assert_int_eq(op, 1);
  ck_assert_ptr_nonnull(strstr((char *)data, "\"layout\":\"positions\""));
  /* Vertices at (t, 0, 0) and (t, 2, 0). */
  for (int k = 0; k < 6; k++) {
    ck_assert(next_frame(p, &op, &data, &len));
    ck_assert_int_eq(op, 2);
    ck_assert_uint_eq(len, 32 + 6 * 4);
    ck_assert_uint_eq(u32(data + 4), 2); /* positions */
    double t = f64(data + 16);
    ck_assert_float_eq_tol(f32(data + 32), (float)t, 1e-6f);
    ck_assert_float_eq_tol(f32(data + 36), 0.0f, 1e-6f);
    ck_assert_float_eq_tol(f32(data + 44), (float)t, 1e-6f);
    ck_assert_float_eq_tol(f32(data + 48), 2.0f, 1e-6f);
  }
  /* Every frame after the first was asked of the pool ahead of time. */
  ck_assert_uint_ge(stats_when(loops, prefetched_five).prefetched, 5);
  close(fds[1]);
  /* The loops end (their pool jobs back) before the pool closes. */
  srv_ws_loops_free(loops);
  srv_pool_close(&pool);
  ck_assert_int_eq(uv_run(&main_loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(uv_loop_close(&main_loop), 0);
  free(p);
  teardown();
}
END_TEST

/* The checker of revocations: only the hash of all 0xbb bytes is in force
 * (thread-safe: it reads nothing that changes). */
static bool only_bb(void *arg, const uint8_t hash[SRV_WS_CREDENTIAL_LEN]) {
  (void)arg;
  for (size_t i = 0; i < SRV_WS_CREDENTIAL_LEN; i++)
    if (hash[i] != 0xbb) return false;
  return true;
}

/* Revoking a token reaches open sessions: a client admitted with token
 * aa.. is closed with 1008 once srv_ws_loops_revoke finds it gone, one
 * with bb.. stays; a socket admitted before the revocation but handed off
 * after it is checked on arrival and closed before its handshake answer. */
START_TEST(test_revoke_closes_sessions) {
  setup();
  srv_ws_loops_t *loops = start(2);
  srv_ws_credential_t gone = {.set = true}, kept = {.set = true};
  memset(gone.hash, 0xaa, sizeof gone.hash);
  memset(kept.hash, 0xbb, sizeof kept.hash);
  gone.epoch = kept.epoch = srv_ws_loops_epoch(loops);
  static const char head[] = "HTTP/1.1 101 Switching Protocols\r\n\r\n";
  int a[2], b[2];
  pair(a);
  pair(b);
  ck_assert_int_eq(
      srv_ws_loops_hand_off(loops, a[0], head, sizeof head - 1, NULL, 0, &gone),
      0);
  ck_assert_int_eq(
      srv_ws_loops_hand_off(loops, b[0], head, sizeof head - 1, NULL, 0, &kept),
      0);
  peer_t *pa = calloc(1, sizeof *pa), *pb = calloc(1, sizeof *pb);
  pa->fd = a[1];
  pb->fd = b[1];
  ck_assert(read_at_least(pa, sizeof head - 1));
  ck_assert(read_at_least(pb, sizeof head - 1));
  pa->len = pb->len = 0;
  srv_ws_loops_revoke(loops, only_bb, NULL);
  ck_assert_uint_eq(srv_ws_loops_epoch(loops), gone.epoch + 1);
  uint8_t op, *data;
  size_t len;
  ck_assert(next_frame(pa, &op, &data, &len));
  ck_assert_int_eq(op, 8);
  ck_assert_uint_ge(len, 2);
  ck_assert_uint_eq((unsigned)data[0] << 8 | data[1], 1008);
  ck_assert_int_eq(memcmp(data + 2, "the token was revoked", len - 2), 0);
  /* The kept one answers a ping: still open. */
  uint8_t ping[6] = {0x89, 0x80, 1, 2, 3, 4};
  ck_assert_int_eq(write(b[1], ping, 6), 6);
  ck_assert(next_frame(pb, &op, &data, &len));
  ck_assert_int_eq(op, 10);
  /* Admitted at the old epoch, handed off now: closed unanswered. */
  int c[2];
  pair(c);
  ck_assert_int_eq(
      srv_ws_loops_hand_off(loops, c[0], head, sizeof head - 1, NULL, 0, &gone),
      0);
  char byte;
  struct pollfd pf = {c[1], POLLIN, 0};
  ck_assert_int_eq(poll(&pf, 1, 3000), 1);
  ck_assert_int_eq(read(c[1], &byte, 1), 0);
  close(c[1]);
  close(a[1]);
  close(b[1]);
  srv_ws_loops_free(loops);
  free(pa);
  free(pb);
  teardown();
}
END_TEST

Suite *ws_loops_suite(void) {
  Suite *s = suite_create("ws_loops");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 20);
  tcase_add_test(tc, test_hand_off_play_and_drain);
  tcase_add_test(tc, test_peer_leaves);
  tcase_add_test(tc, test_free_without_drain);
  tcase_add_test(tc, test_revoke_closes_sessions);
  tcase_add_test(tc, test_mesh_frames_from_the_pool);
  suite_add_tcase(s, tc);
  return s;
}
