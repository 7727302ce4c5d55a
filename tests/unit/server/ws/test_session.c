/* Tests for WebSocket framing over an in-memory transport: client frames
 * are written byte by byte from RFC 6455 section 5 (the section 5.7
 * examples where it has them), and the server's frames are compared with
 * the bytes the RFC prescribes. */
#include <check.h>
#include <string.h>

#include <uv.h>

#include "server/ws/session.h"

typedef struct peer_s {
  uint8_t out[70000]; /* What the server sent. */
  size_t out_len;
  char msg[70000]; /* The last message delivered. */
  size_t msg_len;
  int msg_count;
  uint8_t msg_opcode;
  int pongs;
} peer_t;

static void on_message(void *user, uint8_t opcode, const uint8_t *data,
                       size_t len) {
  peer_t *p = user;
  ck_assert_uint_lt(len, sizeof p->msg);
  memcpy(p->msg, data, len);
  p->msg_len = len;
  p->msg_opcode = opcode;
  p->msg_count++;
}

static void on_pong(void *user) { ((peer_t *)user)->pongs++; }

static int on_write(void *user, const uint8_t *data, size_t len) {
  peer_t *p = user;
  ck_assert_uint_le(p->out_len + len, sizeof p->out);
  memcpy(p->out + p->out_len, data, len);
  p->out_len += len;
  return 0;
}

static const srv_ws_session_io_t io = {on_message, on_pong, on_write};

/* A client frame: fin, opcode, masked with key when mask is set. */
static size_t frame(uint8_t *buf, int fin, uint8_t opcode, int mask,
                    const uint8_t key[4], const void *payload, size_t len) {
  size_t n = 0;
  buf[n++] = (uint8_t)((fin ? 0x80 : 0) | opcode);
  uint8_t m = mask ? 0x80 : 0;
  if (len < 126) {
    buf[n++] = (uint8_t)(m | len);
  } else {
    buf[n++] = (uint8_t)(m | 126);
    buf[n++] = (uint8_t)(len >> 8);
    buf[n++] = (uint8_t)(len & 0xff);
  }
  if (mask) {
    memcpy(buf + n, key, 4);
    n += 4;
  }
  const uint8_t *p = payload;
  for (size_t i = 0; i < len; i++)
    buf[n + i] = mask ? (uint8_t)(p[i] ^ key[i % 4]) : p[i];
  return n + len;
}

static const uint8_t key[4] = {0x37, 0xfa, 0x21, 0x3d};

START_TEST(test_rfc_masked_hello) {
  peer_t p = {0};
  srv_ws_session_t s;
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
  /* RFC 6455 5.7: a single-frame masked text message "Hello". */
  const uint8_t in[] = {0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d,
                        0x7f, 0x9f, 0x4d, 0x51, 0x58};
  ck_assert_int_eq(srv_ws_session_feed(&s, in, sizeof in), 0);
  ck_assert_int_eq(p.msg_count, 1);
  ck_assert_uint_eq(p.msg_opcode, WSLAY_TEXT_FRAME);
  ck_assert_uint_eq(p.msg_len, 5);
  ck_assert(memcmp(p.msg, "Hello", 5) == 0);
  ck_assert_uint_eq(p.out_len, 0);
  srv_ws_session_free(&s);
}
END_TEST

START_TEST(test_byte_by_byte_and_fragments_with_ping) {
  peer_t p = {0};
  srv_ws_session_t s;
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
  uint8_t in[256];
  size_t n = frame(in, 0, WSLAY_TEXT_FRAME, 1, key, "Hel", 3);
  n += frame(in + n, 1, WSLAY_PING, 1, key, "Hello", 5);
  n += frame(in + n, 1, 0x0, 1, key, "lo", 2);
  for (size_t i = 0; i < n; i++)
    ck_assert_int_eq(srv_ws_session_feed(&s, in + i, 1), 0);
  ck_assert_int_eq(p.msg_count, 1);
  ck_assert_uint_eq(p.msg_len, 5);
  ck_assert(memcmp(p.msg, "Hello", 5) == 0);
  /* RFC 6455 5.7: the pong to "Hello", unmasked from a server. */
  const uint8_t pong[] = {0x8a, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f};
  ck_assert_uint_eq(p.out_len, sizeof pong);
  ck_assert(memcmp(p.out, pong, sizeof pong) == 0);
  srv_ws_session_free(&s);
}
END_TEST

START_TEST(test_server_frames) {
  peer_t p = {0};
  srv_ws_session_t s;
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
  ck_assert_int_eq(srv_ws_session_send(&s, WSLAY_TEXT_FRAME, "hi", 2), 0);
  const uint8_t text[] = {0x81, 0x02, 'h', 'i'};
  ck_assert_uint_eq(p.out_len, 4);
  ck_assert(memcmp(p.out, text, 4) == 0);
  /* 256 bytes: 16-bit extended length (RFC 6455 5.7 "256 bytes binary"). */
  uint8_t bin[256];
  for (int i = 0; i < 256; i++) bin[i] = (uint8_t)i;
  p.out_len = 0;
  ck_assert_int_eq(srv_ws_session_send(&s, WSLAY_BINARY_FRAME, bin, 256), 0);
  ck_assert_uint_eq(p.out_len, 4 + 256);
  ck_assert_uint_eq(p.out[0], 0x82);
  ck_assert_uint_eq(p.out[1], 0x7e);
  ck_assert_uint_eq(p.out[2], 0x01);
  ck_assert_uint_eq(p.out[3], 0x00);
  ck_assert(memcmp(p.out + 4, bin, 256) == 0);
  /* 65536 bytes: 64-bit length. */
  static uint8_t big[65536];
  p.out_len = 0;
  ck_assert_int_eq(srv_ws_session_send(&s, WSLAY_BINARY_FRAME, big, 65536), 0);
  const uint8_t hdr[] = {0x82, 0x7f, 0, 0, 0, 0, 0, 1, 0, 0};
  ck_assert_uint_eq(p.out_len, 10 + 65536);
  ck_assert(memcmp(p.out, hdr, 10) == 0);
  ck_assert_uint_eq(srv_ws_session_queued(&s), 0);
  srv_ws_session_free(&s);
}
END_TEST

static void expect_close(const peer_t *p, uint16_t code) {
  ck_assert_uint_ge(p->out_len, 4);
  const uint8_t *c = p->out + p->out_len - 4;
  ck_assert_uint_eq(c[0], 0x88);
  ck_assert_uint_eq(c[1], 0x02);
  ck_assert_uint_eq((unsigned)(c[2] << 8 | c[3]), code);
}

START_TEST(test_unmasked_client_frame_1002) {
  peer_t p = {0};
  srv_ws_session_t s;
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
  /* RFC 6455 5.7: the unmasked "Hello", which a server must refuse. */
  const uint8_t in[] = {0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f};
  srv_ws_session_feed(&s, in, sizeof in);
  ck_assert_int_eq(p.msg_count, 0);
  expect_close(&p, 1002);
  ck_assert_uint_eq(srv_ws_session_close_code_sent(&s), 1002);
  ck_assert(srv_ws_session_done(&s));
  srv_ws_session_free(&s);
}
END_TEST

START_TEST(test_invalid_utf8_1007) {
  peer_t p = {0};
  srv_ws_session_t s;
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
  uint8_t in[64];
  const uint8_t bad[] = {'o', 'k', 0xc3, 0x28}; /* 0xc3 then no trail. */
  size_t n = frame(in, 1, WSLAY_TEXT_FRAME, 1, key, bad, sizeof bad);
  srv_ws_session_feed(&s, in, n);
  ck_assert_int_eq(p.msg_count, 0);
  expect_close(&p, 1007);
  ck_assert(srv_ws_session_done(&s));
  /* The same bytes as binary are fine. */
  peer_t q = {0};
  srv_ws_session_t t;
  ck_assert_int_eq(srv_ws_session_init(&t, &io, &q, 1024), 0);
  n = frame(in, 1, WSLAY_BINARY_FRAME, 1, key, bad, sizeof bad);
  ck_assert_int_eq(srv_ws_session_feed(&t, in, n), 0);
  ck_assert_int_eq(q.msg_count, 1);
  ck_assert_uint_eq(q.msg_opcode, WSLAY_BINARY_FRAME);
  srv_ws_session_free(&s);
  srv_ws_session_free(&t);
}
END_TEST

START_TEST(test_too_big_1009) {
  peer_t p = {0};
  srv_ws_session_t s;
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 64), 0);
  uint8_t payload[100] = {0}, in[200];
  /* Two fragments of 50: the message, not the frame, is bounded. */
  size_t n = frame(in, 0, WSLAY_BINARY_FRAME, 1, key, payload, 50);
  n += frame(in + n, 1, 0x0, 1, key, payload, 50);
  srv_ws_session_feed(&s, in, n);
  ck_assert_int_eq(p.msg_count, 0);
  expect_close(&p, 1009);
  srv_ws_session_free(&s);
}
END_TEST

START_TEST(test_fragmented_ping_1002) {
  peer_t p = {0};
  srv_ws_session_t s;
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
  uint8_t in[64];
  size_t n = frame(in, 0, WSLAY_PING, 1, key, "x", 1);
  ck_assert_int_ne(srv_ws_session_feed(&s, in, n), 0);
  expect_close(&p, 1002);
  ck_assert_uint_eq(p.out_len, 4);
  ck_assert(srv_ws_session_done(&s));
  /* Nothing more goes out once failed. */
  ck_assert_int_ne(srv_ws_session_send(&s, WSLAY_TEXT_FRAME, "x", 1), 0);
  ck_assert_uint_eq(p.out_len, 4);
  srv_ws_session_free(&s);
}
END_TEST

START_TEST(test_client_close_echoed) {
  peer_t p = {0};
  srv_ws_session_t s;
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
  uint8_t in[64];
  const uint8_t code[] = {0x03, 0xe8, 'b', 'y', 'e'};
  size_t n = frame(in, 1, WSLAY_CONNECTION_CLOSE, 1, key, code, sizeof code);
  srv_ws_session_feed(&s, in, n);
  ck_assert_uint_eq(srv_ws_session_close_code_received(&s), 1000);
  ck_assert_uint_eq(srv_ws_session_close_code_sent(&s), 1000);
  ck_assert_uint_eq(p.out[0], 0x88);
  ck_assert_uint_eq(p.out[2], 0x03);
  ck_assert_uint_eq(p.out[3], 0xe8);
  ck_assert(srv_ws_session_done(&s));
  srv_ws_session_free(&s);
}
END_TEST

/* RFC 6455 5.5.1: a close payload is empty or starts with a 2-byte code;
 * one byte is a protocol error (1002), and so is a code no peer may send
 * (7.4.1: 1005 is never sent in a frame). */
START_TEST(test_bad_close_payload_1002) {
  static const uint8_t one[] = {0x03};
  static const uint8_t reserved[] = {0x03, 0xed}; /* 1005 */
  const uint8_t *payloads[] = {one, reserved};
  size_t lens[] = {sizeof one, sizeof reserved};
  for (int i = 0; i < 2; i++) {
    peer_t p = {0};
    srv_ws_session_t s;
    ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
    uint8_t in[64];
    size_t n =
        frame(in, 1, WSLAY_CONNECTION_CLOSE, 1, key, payloads[i], lens[i]);
    srv_ws_session_feed(&s, in, n);
    expect_close(&p, 1002);
    ck_assert_uint_eq(srv_ws_session_close_code_sent(&s), 1002);
    srv_ws_session_free(&s);
  }
}
END_TEST

START_TEST(test_server_close_then_client_answer) {
  peer_t p = {0};
  srv_ws_session_t s;
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
  ck_assert(!srv_ws_session_closing(&s));
  ck_assert_int_eq(srv_ws_session_close(&s, 1001, "going away"), 0);
  ck_assert(srv_ws_session_closing(&s));
  ck_assert(!srv_ws_session_done(&s));
  ck_assert_uint_eq(p.out[0], 0x88);
  ck_assert_uint_eq(p.out[1], 12);
  ck_assert_uint_eq((unsigned)(p.out[2] << 8 | p.out[3]), 1001);
  ck_assert(memcmp(p.out + 4, "going away", 10) == 0);
  /* Data frames are refused once closing. */
  ck_assert_int_ne(srv_ws_session_send(&s, WSLAY_TEXT_FRAME, "x", 1), 0);
  ck_assert_uint_eq(p.out_len, 14);
  uint8_t in[64];
  const uint8_t code[] = {0x03, 0xe9};
  size_t n = frame(in, 1, WSLAY_CONNECTION_CLOSE, 1, key, code, 2);
  srv_ws_session_feed(&s, in, n);
  ck_assert(srv_ws_session_done(&s));
  ck_assert_uint_eq(p.out_len, 14); /* No second close. */
  srv_ws_session_free(&s);
}
END_TEST

START_TEST(test_ping_pong_keepalive) {
  peer_t p = {0};
  srv_ws_session_t s;
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
  ck_assert_int_eq(srv_ws_session_ping(&s), 0);
  ck_assert_uint_eq(p.out[0], 0x89);
  uint8_t in[64];
  size_t n = frame(in, 1, WSLAY_PONG, 1, key, p.out + 2, p.out[1]);
  ck_assert_int_eq(srv_ws_session_feed(&s, in, n), 0);
  ck_assert_int_eq(p.pongs, 1);
  srv_ws_session_free(&s);
}
END_TEST

/* Frames written beside wslay come after whatever wslay holds: a message
 * queued (not yet written) goes out first; after a close, none may. */
START_TEST(test_direct_frames_follow_wslay) {
  peer_t p = {0};
  srv_ws_session_t s;
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
  ck_assert_int_eq(srv_ws_session_queue(&s, WSLAY_TEXT_FRAME, "ack", 3), 0);
  ck_assert_uint_eq(p.out_len, 0);
  ck_assert_int_eq(srv_ws_session_direct_begin(&s), 0);
  const uint8_t ack[] = {0x81, 3, 'a', 'c', 'k'};
  ck_assert_uint_eq(p.out_len, sizeof ack);
  ck_assert(memcmp(p.out, ack, sizeof ack) == 0);
  /* Nothing queued: nothing written. */
  ck_assert_int_eq(srv_ws_session_direct_begin(&s), 0);
  ck_assert_uint_eq(p.out_len, sizeof ack);
  ck_assert_int_eq(srv_ws_session_close(&s, 1000, NULL), 0);
  ck_assert_int_eq(srv_ws_session_direct_begin(&s), UV_EPIPE);
  srv_ws_session_free(&s);
  /* A failed direct write ends the session. */
  ck_assert_int_eq(srv_ws_session_init(&s, &io, &p, 1024), 0);
  srv_ws_session_direct_failed(&s);
  ck_assert(srv_ws_session_closing(&s));
  ck_assert(srv_ws_session_done(&s));
  ck_assert_int_eq(srv_ws_session_direct_begin(&s), UV_EPIPE);
  srv_ws_session_free(&s);
}
END_TEST

Suite *ws_session_suite(void) {
  Suite *s = suite_create("ws_session");
  TCase *tc = tcase_create("framing");
  tcase_add_test(tc, test_rfc_masked_hello);
  tcase_add_test(tc, test_byte_by_byte_and_fragments_with_ping);
  tcase_add_test(tc, test_server_frames);
  tcase_add_test(tc, test_unmasked_client_frame_1002);
  tcase_add_test(tc, test_invalid_utf8_1007);
  tcase_add_test(tc, test_too_big_1009);
  tcase_add_test(tc, test_fragmented_ping_1002);
  tcase_add_test(tc, test_client_close_echoed);
  tcase_add_test(tc, test_bad_close_payload_1002);
  tcase_add_test(tc, test_server_close_then_client_answer);
  tcase_add_test(tc, test_ping_pong_keepalive);
  tcase_add_test(tc, test_direct_frames_follow_wslay);
  suite_add_tcase(s, tc);
  return s;
}
