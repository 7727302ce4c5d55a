/* Tests for a client's queued data frames (ws/frame_queue.h): headers
 * byte for byte as RFC 6455 section 5.2 lays them out, one payload shared
 * by two clients (the same bytes, one buffer, its references back to the
 * owner's alone once both queues are written or dropped), one writev per
 * flush, and the byte count that backpressure reads. */
#include <check.h>
#include <string.h>

#include <wslay/wslay.h>

#include "server/ws/frame_queue.h"

typedef struct sink_s {
  uint8_t bytes[4096];
  size_t len;
  int calls;
  unsigned bufs;
} sink_t;

static int sink_writev(void *ctx, const uv_buf_t *bufs, unsigned nbufs) {
  sink_t *k = ctx;
  k->calls++;
  k->bufs += nbufs;
  for (unsigned i = 0; i < nbufs; i++) {
    ck_assert_uint_le(k->len + bufs[i].len, sizeof k->bytes);
    memcpy(k->bytes + k->len, bufs[i].base, bufs[i].len);
    k->len += bufs[i].len;
  }
  return 0;
}

START_TEST(test_header_lengths) {
  uint8_t h[SRV_WS_FRAME_HEADER_MAX];
  /* 7-bit length: FIN | opcode, then the length, mask bit clear. */
  ck_assert_uint_eq(srv_ws_frame_header(h, WSLAY_BINARY_FRAME, 0), 2);
  ck_assert_uint_eq(h[0], 0x82);
  ck_assert_uint_eq(h[1], 0);
  ck_assert_uint_eq(srv_ws_frame_header(h, WSLAY_TEXT_FRAME, 125), 2);
  ck_assert_uint_eq(h[0], 0x81);
  ck_assert_uint_eq(h[1], 125);
  /* 126: a 16-bit length in network order follows. */
  ck_assert_uint_eq(srv_ws_frame_header(h, WSLAY_BINARY_FRAME, 126), 4);
  ck_assert_uint_eq(h[1], 126);
  ck_assert_uint_eq(h[2], 0);
  ck_assert_uint_eq(h[3], 126);
  ck_assert_uint_eq(srv_ws_frame_header(h, WSLAY_BINARY_FRAME, 4320), 4);
  ck_assert_uint_eq(h[2], 4320 >> 8);
  ck_assert_uint_eq(h[3], 4320 & 0xff);
  ck_assert_uint_eq(srv_ws_frame_header(h, WSLAY_BINARY_FRAME, 65535), 4);
  ck_assert_uint_eq(h[2], 0xff);
  ck_assert_uint_eq(h[3], 0xff);
  /* 127: a 64-bit length in network order follows. */
  ck_assert_uint_eq(srv_ws_frame_header(h, WSLAY_BINARY_FRAME, 65536), 10);
  ck_assert_uint_eq(h[1], 127);
  const uint8_t len64[8] = {0, 0, 0, 0, 0, 1, 0, 0};
  ck_assert(memcmp(h + 2, len64, 8) == 0);
}
END_TEST

START_TEST(test_two_clients_share_one_payload) {
  srv_ws_blob_t *b = srv_ws_blob_new(200);
  ck_assert_ptr_nonnull(b);
  for (int i = 0; i < 200; i++) b->data[i] = (uint8_t)(i * 7);
  srv_ws_frame_queue_t q[2];
  sink_t k[2];
  memset(k, 0, sizeof k);
  for (int i = 0; i < 2; i++) {
    srv_ws_frame_queue_init(&q[i]);
    uint8_t prefix[4] = {(uint8_t)i, 0, 0, 0}; /* Each its own stream. */
    ck_assert_int_eq(srv_ws_frame_queue_push(&q[i], WSLAY_BINARY_FRAME, prefix,
                                             sizeof prefix, b, b->data, 200),
                     0);
    ck_assert_uint_eq(q[i].bytes, 4 + 4 + 200);
  }
  ck_assert_uint_eq(b->refs, 3);
  /* The same buffer for both, not a copy. */
  ck_assert_ptr_eq(q[0].frames[0].payload, q[1].frames[0].payload);
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(srv_ws_frame_queue_flush(&q[i], sink_writev, &k[i]), 0);
    ck_assert_int_eq(k[i].calls, 1);
    ck_assert_uint_eq(k[i].len, 208);
    ck_assert_uint_eq(q[i].bytes, 0);
    /* 0x82, 126, then 204 in 16 bits, the prefix, the payload. */
    ck_assert_uint_eq(k[i].bytes[0], 0x82);
    ck_assert_uint_eq(k[i].bytes[1], 126);
    ck_assert_uint_eq(k[i].bytes[2], 0);
    ck_assert_uint_eq(k[i].bytes[3], 204);
    ck_assert_uint_eq(k[i].bytes[4], (unsigned)i);
    ck_assert(memcmp(k[i].bytes + 8, b->data, 200) == 0);
  }
  ck_assert(memcmp(k[0].bytes + 8, k[1].bytes + 8, 200) == 0);
  ck_assert_uint_eq(b->refs, 1);
  /* A client that closes with frames queued lets go of them too. */
  ck_assert_int_eq(srv_ws_frame_queue_push(&q[0], WSLAY_BINARY_FRAME, NULL, 0,
                                           b, b->data + 100, 100),
                   0);
  ck_assert_uint_eq(b->refs, 2);
  srv_ws_frame_queue_free(&q[0]);
  srv_ws_frame_queue_free(&q[1]);
  ck_assert_uint_eq(b->refs, 1);
  srv_ws_blob_unref(b); /* The last reference: freed (ASan checks). */
}
END_TEST

START_TEST(test_one_writev_per_flush) {
  srv_ws_blob_t *b = srv_ws_blob_new(64);
  memset(b->data, 0xab, 64);
  srv_ws_frame_queue_t q;
  srv_ws_frame_queue_init(&q);
  sink_t k;
  memset(&k, 0, sizeof k);
  /* More frames than the flush keeps on its stack. */
  for (int i = 0; i < 40; i++) {
    uint8_t prefix[SRV_WS_FRAME_PREFIX_MAX];
    memset(prefix, i, sizeof prefix);
    ck_assert_int_eq(srv_ws_frame_queue_push(&q, WSLAY_BINARY_FRAME, prefix,
                                             sizeof prefix, b, b->data, 64),
                     0);
  }
  ck_assert_uint_eq(b->refs, 41);
  ck_assert_uint_eq(q.bytes, 40 * (2 + 32 + 64));
  ck_assert_int_eq(srv_ws_frame_queue_flush(&q, sink_writev, &k), 0);
  ck_assert_int_eq(k.calls, 1);
  ck_assert_uint_eq(k.bufs, 80);
  ck_assert_uint_eq(k.len, 40 * (2 + 32 + 64));
  /* In the order queued. */
  for (int i = 0; i < 40; i++) {
    const uint8_t *f = k.bytes + (size_t)i * 98;
    ck_assert_uint_eq(f[0], 0x82);
    ck_assert_uint_eq(f[1], 96);
    ck_assert_uint_eq(f[2], (unsigned)i);
    ck_assert_uint_eq(f[2 + 32], 0xab);
  }
  ck_assert_uint_eq(b->refs, 1);
  /* An empty queue writes nothing. */
  ck_assert_int_eq(srv_ws_frame_queue_flush(&q, sink_writev, &k), 0);
  ck_assert_int_eq(k.calls, 1);
  srv_ws_frame_queue_free(&q);
  srv_ws_blob_unref(b);
}
END_TEST

Suite *ws_frame_queue_suite(void) {
  Suite *s = suite_create("ws_frame_queue");
  TCase *tc = tcase_create("frames");
  tcase_add_test(tc, test_header_lengths);
  tcase_add_test(tc, test_two_clients_share_one_payload);
  tcase_add_test(tc, test_one_writev_per_flush);
  suite_add_tcase(s, tc);
  return s;
}
