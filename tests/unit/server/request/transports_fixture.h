/* Test fixture: what the tests of one request feature over every transport
 * share (test_fields.c, test_motion_fields.c): an HTTP answer's body, byte
 * equality, and a WebSocket peer that keeps the bytes a hub writes. */
#ifndef ANIMD_TESTS_REQUEST_TRANSPORTS_FIXTURE_H
#define ANIMD_TESTS_REQUEST_TRANSPORTS_FIXTURE_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../api/api_memory.h"

/* The body of an answer that must be 200, malloc'd with its length. */
static char *body_of(mem_answer_t a, size_t *len) {
  ck_assert_msg(a.status == 200, "status %d: %s", a.status, a.body);
  *len = a.body_len;
  char *b = malloc(a.body_len + 1);
  memcpy(b, a.body, a.body_len + 1);
  mem_answer_free(&a);
  return b;
}

static void assert_same(const char *a, size_t alen, const char *b, size_t blen,
                        const char *what) {
  ck_assert_msg(alen == blen && memcmp(a, b, alen) == 0, "%s: %zu vs %zu bytes",
                what, alen, blen);
}

typedef struct ws_peer_s {
  uint8_t bytes[65536];
  size_t len;
} ws_peer_t;

static int ws_write(void *ctx, const uint8_t *data, size_t len) {
  ws_peer_t *p = ctx;
  ck_assert_uint_le(p->len + len, sizeof p->bytes);
  memcpy(p->bytes + p->len, data, len);
  p->len += len;
  return 0;
}

static size_t ws_queued(void *ctx) { return 0; }

static void ws_close(void *ctx) {}

/* The payload of the first binary frame the server wrote, or NULL. */
static const uint8_t *ws_binary(const ws_peer_t *p, size_t *len) {
  size_t k = 0;
  while (k + 2 <= p->len) {
    uint8_t op = p->bytes[k] & 0x0f;
    size_t n = p->bytes[k + 1] & 0x7f, hdr = 2;
    if (n == 126) {
      n = (size_t)p->bytes[k + 2] << 8 | p->bytes[k + 3];
      hdr = 4;
    }
    if (op == 2) {
      *len = n;
      return p->bytes + k + hdr;
    }
    k += hdr + n;
  }
  return NULL;
}

#endif
