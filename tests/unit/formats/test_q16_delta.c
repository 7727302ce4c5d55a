/* Tests for q16 delta frames (formats/q16_delta.h) decoded by the C
 * client's decoder (clients/c/animd_frame.h): a chain of key, order-1 and
 * order-2 frames of a moving mesh decodes to the q16 payload of each frame
 * byte for byte, and those to the float input within q16's bound; a gap
 * answers EGAP until a key frame; a corrupted frame answers an error, never
 * a read out of bounds. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../../clients/c/animd_frame.h"
#include "formats/q16.h"
#include "formats/q16_delta.h"

enum { V = 1000, FRAMES = 40 };

/* The chain's parents, from frame 0 (make_q16). */
static uint32_t parents_of[V];
static int32_t scratch[V];
#define PARENTS parents_of

/* Frame f of a mesh of V vertices on a sphere, turning and swelling. */
static void make_frame(int f, float *pos, float *nrm) {
  for (int i = 0; i < V; i++) {
    double th = 0.37 * i + 0.05 * f, z = 2.0 * (i + 0.5) / V - 1;
    double r = sqrt(1 - z * z), s = 1 + 0.1 * sin(0.2 * f + 0.01 * i);
    double n[3] = {r * cos(th), r * sin(th), z};
    for (int a = 0; a < 3; a++) {
      pos[3 * i + a] = (float)(s * n[a] + (a == 1 ? 0.02 * f : 0));
      nrm[3 * i + a] = (float)n[a];
    }
  }
}

/* The q16 payloads of FRAMES frames, with normals or without. */
static uint8_t *make_q16(bool normals, float **floats) {
  size_t n = fmt_q16_size(V, normals);
  uint8_t *q = malloc(n * FRAMES);
  float *f = malloc(sizeof *f * 6 * V * FRAMES);
  for (int k = 0; k < FRAMES; k++) {
    make_frame(k, f + 6 * V * k, f + 6 * V * k + 3 * V);
    fmt_q16_encode(f + 6 * V * k, normals ? f + 6 * V * k + 3 * V : NULL, V,
                   q + n * k);
  }
  ck_assert_int_eq(fmt_q16_delta_parents(q, V, parents_of), 0);
  *floats = f;
  return q;
}

static void chain(bool normals) {
  float *f;
  uint8_t *q = make_q16(normals, &f);
  size_t n = fmt_q16_size(V, normals), bound = fmt_q16_delta_bound(V, normals);
  uint8_t *d = malloc(bound),
          *state = malloc(animd_delta_buffer_bytes(V, normals));
  float *pos = malloc(sizeof *pos * 3 * V), *nrm = malloc(sizeof *nrm * 3 * V);
  animd_delta st;
  animd_delta_init(&st, state, V, normals);
  size_t key_bytes = 0, delta_bytes = 0;
  for (int k = 0; k < FRAMES; k++) {
    const uint8_t *a = k % 10 == 0 ? NULL : q + n * (k - 1);
    const uint8_t *b = k % 10 < 2 ? NULL : q + n * (k - 2);
    size_t len = fmt_q16_delta_encode(q + n * k, a, b, PARENTS, V, normals,
                                      (uint32_t)k, scratch, d);
    ck_assert_uint_le(len, bound);
    ck_assert_uint_eq(len % 4, 0);
    if (a == NULL)
      key_bytes += len;
    else
      delta_bytes += len;
    const uint8_t *out = NULL;
    ck_assert_int_eq(animd_delta_decode(&st, d, len, &out), ANIMD_FRAME_OK);
    ck_assert_int_eq(memcmp(out, q + n * k, n), 0);
    ck_assert_int_eq(animd_q16_decode(out, n, V, normals, pos, nrm), 0);
    const float *p = f + 6 * V * k;
    for (int ax = 0; ax < 3; ax++) {
      float lo = p[ax], hi = p[ax];
      for (int i = 0; i < V; i++) {
        lo = fminf(lo, p[3 * i + ax]);
        hi = fmaxf(hi, p[3 * i + ax]);
      }
      double tol = (hi - lo) / 131070.0 + 4e-7 * fmax(fabs(lo), fabs(hi));
      for (int i = 0; i < V; i++)
        ck_assert_double_le(fabs(pos[3 * i + ax] - p[3 * i + ax]), tol);
    }
    if (normals)
      for (int i = 0; i < V; i++) {
        const float *e = p + 3 * V + 3 * i;
        /* The angle from the cross and dot products, in double. */
        double x = nrm[3 * i], y = nrm[3 * i + 1], z = nrm[3 * i + 2];
        double cx = y * e[2] - z * e[1], cy = z * e[0] - x * e[2],
               cz = x * e[1] - y * e[0];
        double dot = x * e[0] + y * e[1] + z * e[2];
        double deg = atan2(sqrt(cx * cx + cy * cy + cz * cz), dot) * 180 / M_PI;
        ck_assert_double_le(deg, 0.01);
      }
  }
  /* Deltas of smooth motion are much smaller than the key frames. */
  ck_assert_uint_lt(delta_bytes / (FRAMES - 4), key_bytes / 4);
  free(q);
  free(f);
  free(d);
  free(state);
  free(pos);
  free(nrm);
}

START_TEST(test_chain_normals) { chain(true); }
END_TEST

START_TEST(test_chain_positions) { chain(false); }
END_TEST

START_TEST(test_gap_needs_key) {
  float *f;
  uint8_t *q = make_q16(true, &f);
  size_t n = fmt_q16_size(V, true);
  uint8_t *d = malloc(fmt_q16_delta_bound(V, true));
  uint8_t *state = malloc(animd_delta_buffer_bytes(V, true));
  animd_delta st;
  animd_delta_init(&st, state, V, true);
  const uint8_t *out = NULL;
  /* A delta with nothing held. */
  size_t len =
      fmt_q16_delta_encode(q + n, q, NULL, PARENTS, V, true, 1, scratch, d);
  ck_assert_int_eq(animd_delta_decode(&st, d, len, &out), ANIMD_FRAME_EGAP);
  len = fmt_q16_delta_encode(q, NULL, NULL, PARENTS, V, true, 0, scratch, d);
  ck_assert_int_eq(animd_delta_decode(&st, d, len, &out), 0);
  /* Frame 1 lost: frame 2 (seq 2, against 1) is a gap. */
  len = fmt_q16_delta_encode(q + 2 * n, q + n, NULL, PARENTS, V, true, 2,
                             scratch, d);
  ck_assert_int_eq(animd_delta_decode(&st, d, len, &out), ANIMD_FRAME_EGAP);
  /* An order-2 frame with one frame held is a gap too. */
  len = fmt_q16_delta_encode(q + n, q, q, PARENTS, V, true, 1, scratch, d);
  ck_assert_int_eq(animd_delta_decode(&st, d, len, &out), ANIMD_FRAME_EGAP);
  /* The key frame asked for restarts the chain. */
  len = fmt_q16_delta_encode(q + 3 * n, NULL, NULL, PARENTS, V, true, 3,
                             scratch, d);
  ck_assert_int_eq(animd_delta_decode(&st, d, len, &out), 0);
  len = fmt_q16_delta_encode(q + 4 * n, q + 3 * n, NULL, PARENTS, V, true, 4,
                             scratch, d);
  ck_assert_int_eq(animd_delta_decode(&st, d, len, &out), 0);
  ck_assert_int_eq(memcmp(out, q + 4 * n, n), 0);
  /* Another vertex count or no normals: ESIZE. */
  animd_delta other;
  animd_delta_init(&other, state, V - 1, true);
  ck_assert_int_eq(animd_delta_decode(&other, d, len, &out), ANIMD_FRAME_ESIZE);
  free(q);
  free(f);
  free(d);
  free(state);
}
END_TEST

START_TEST(test_corrupt) {
  float *f;
  uint8_t *q = make_q16(true, &f);
  uint8_t *d = malloc(fmt_q16_delta_bound(V, true));
  uint8_t *state = malloc(animd_delta_buffer_bytes(V, true));
  animd_delta st;
  animd_delta_init(&st, state, V, true);
  const uint8_t *out = NULL;
  size_t len =
      fmt_q16_delta_encode(q, NULL, NULL, PARENTS, V, true, 0, scratch, d);
  /* Every truncation is refused. */
  for (size_t cut = 0; cut + 4 <= len; cut += 37)
    ck_assert_int_ne(animd_delta_decode(&st, d, cut, &out), ANIMD_FRAME_OK);
  /* A width over the maximum, unknown flags. */
  d[ANIMD_DELTA_HEAD_BYTES] =
      (uint8_t)((d[ANIMD_DELTA_HEAD_BYTES] & ~0x1f) | (ANIMD_DELTA_K_MAX + 1));
  ck_assert_int_eq(animd_delta_decode(&st, d, len, &out), ANIMD_FRAME_EFORMAT);
  len = fmt_q16_delta_encode(q, NULL, NULL, PARENTS, V, true, 0, scratch, d);
  d[4] |= 8;
  ck_assert_int_eq(animd_delta_decode(&st, d, len, &out), ANIMD_FRAME_EFORMAT);
  /* Headers: short, an unknown layout, a count past the message. */
  animd_frame_header h;
  uint8_t head[40] = {0};
  ck_assert_int_eq(animd_frame_header_read(head, 31, &h), ANIMD_FRAME_EFORMAT);
  head[4] = 8;
  ck_assert_int_eq(animd_frame_header_read(head, 40, &h), ANIMD_FRAME_EFORMAT);
  head[4] = 7;
  head[24] = 3;
  ck_assert_int_eq(animd_frame_header_read(head, 40, &h), ANIMD_FRAME_EFORMAT);
  head[24] = 2;
  head[7] = 0x80;
  ck_assert_int_eq(animd_frame_header_read(head, 40, &h), ANIMD_FRAME_OK);
  ck_assert_uint_eq(h.layout, 7);
  ck_assert_int_eq(h.answer, 1);
  ck_assert_uint_eq(h.count, 2);
  /* The vertices of a q16 block from its words alone. */
  for (uint32_t v = 0; v < 50; v++) {
    ck_assert_uint_eq(
        animd_q16_vertices((uint32_t)fmt_q16_size(v, true) / 4, 1), v);
    ck_assert_uint_eq(
        animd_q16_vertices((uint32_t)fmt_q16_size(v, false) / 4, 0), v);
  }
  free(q);
  free(f);
  free(d);
  free(state);
}
END_TEST

/* Without parents (NULL: each vertex's parent is the one before it) the
 * chain decodes byte for byte too, and costs more than with them. */
START_TEST(test_chain_without_parents) {
  float *f;
  uint8_t *q = make_q16(true, &f);
  size_t n = fmt_q16_size(V, true);
  uint8_t *d = malloc(fmt_q16_delta_bound(V, true));
  uint8_t *state = malloc(animd_delta_buffer_bytes(V, true));
  animd_delta st;
  animd_delta_init(&st, state, V, true);
  size_t with = 0, without = 0;
  for (int k = 0; k < 12; k++) {
    const uint8_t *a = k == 0 ? NULL : q + n * (k - 1);
    const uint8_t *b = k < 2 ? NULL : q + n * (k - 2);
    size_t len = fmt_q16_delta_encode(q + n * k, a, b, NULL, V, true,
                                      (uint32_t)k, scratch, d);
    const uint8_t *out = NULL;
    ck_assert_int_eq(animd_delta_decode(&st, d, len, &out), ANIMD_FRAME_OK);
    ck_assert_int_eq(memcmp(out, q + n * k, n), 0);
    without += len;
    with += fmt_q16_delta_encode(q + n * k, a, b, parents_of, V, true,
                                 (uint32_t)k, scratch, d);
  }
  ck_assert_uint_lt(with, without);
  free(q);
  free(f);
  free(d);
  free(state);
}
END_TEST

/* Squared distance of vertices i and k of a q16 payload. */
static int64_t dist2(const uint8_t *q, uint32_t i, uint32_t k) {
  int64_t s = 0;
  for (int a = 0; a < 3; a++) {
    const uint8_t *pi = q + 24 + 6 * i + 2 * a, *pk = q + 24 + 6 * k + 2 * a;
    int64_t x = (pi[0] | pi[1] << 8) - (pk[0] | pk[1] << 8);
    s += x * x;
  }
  return s;
}

/* Parents lie before their vertices; on points spread over the box the
 * bounded search finds the nearest earlier vertex (brute force) for all
 * but a few; identical points take the one just before; a line, a plane
 * and the largest sizes stay within their bounds. */
START_TEST(test_parents) {
  enum { N = 4000 };
  uint8_t *q = calloc(1, fmt_q16_size(N, false));
  uint32_t *d = malloc(sizeof *d * N);
  uint32_t seed = 12345;
  for (uint32_t i = 0; i < N; i++)
    for (int a = 0; a < 3; a++) {
      seed = seed * 1664525u + 1013904223u;
      uint16_t v = (uint16_t)(seed >> 16);
      q[24 + 6 * i + 2 * a] = (uint8_t)v;
      q[24 + 6 * i + 2 * a + 1] = (uint8_t)(v >> 8);
    }
  ck_assert_int_eq(fmt_q16_delta_parents(q, N, d), 0);
  ck_assert_uint_eq(d[0], 0);
  unsigned exact = 0;
  for (uint32_t i = 1; i < N; i++) {
    ck_assert_uint_ge(d[i], 1);
    ck_assert_uint_le(d[i], i);
    int64_t best = INT64_MAX;
    for (uint32_t k = 0; k < i; k++)
      if (dist2(q, i, k) < best) best = dist2(q, i, k);
    exact += dist2(q, i, i - d[i]) == best;
  }
  ck_assert_uint_ge(exact, (N - 1) * 99 / 100);
  /* Identical points: the one just before. */
  memset(q + 24, 7, 6 * N);
  ck_assert_int_eq(fmt_q16_delta_parents(q, N, d), 0);
  for (uint32_t i = 1; i < N; i++) ck_assert_uint_eq(d[i], 1);
  /* A line along x, out of order: parents before, at distance <= 2 steps
   * of the line for all but the first few. */
  for (uint32_t i = 0; i < N; i++) {
    uint16_t v = (uint16_t)((i * 7919u) % N * 16);
    memset(q + 24 + 6 * i, 0, 6);
    q[24 + 6 * i] = (uint8_t)v;
    q[24 + 6 * i + 1] = (uint8_t)(v >> 8);
  }
  ck_assert_int_eq(fmt_q16_delta_parents(q, N, d), 0);
  for (uint32_t i = 1; i < N; i++) ck_assert_uint_le(d[i], i);
  free(q);
  free(d);
}
END_TEST

Suite *formats_q16_delta_suite(void) {
  Suite *s = suite_create("formats_q16_delta");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_chain_normals);
  tcase_add_test(tc, test_chain_positions);
  tcase_add_test(tc, test_gap_needs_key);
  tcase_add_test(tc, test_corrupt);
  tcase_add_test(tc, test_chain_without_parents);
  tcase_add_test(tc, test_parents);
  suite_add_tcase(s, tc);
  return s;
}
