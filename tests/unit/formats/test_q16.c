/* Tests for the q16 vertex encoding (formats/q16.h). Every check decodes
 * with a decoder written here from the layout alone (bounding box, u16
 * positions, octahedral i16 normals, zero padding) and compares with the
 * float32 input: positions within (max - min) / 131070 per axis plus float
 * rounding, normals within 0.01 degrees. Real assets (CesiumMan, Fox, Bob
 * from the shared assets) are skipped, with a message, when absent. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/bundle.h"
#include "formats/q16.h"
#include "import_test_util.h"

#define NORMAL_TOL_DEG 0.01

/* ---- the decoder, from the layout
 * -------------------------------------------- */

static float rd_f32(const uint8_t *p) {
  uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
               (uint32_t)p[3] << 24;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static unsigned rd_u16(const uint8_t *p) {
  return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static int rd_i16(const uint8_t *p) {
  int v = (int)rd_u16(p);
  return v >= 32768 ? v - 65536 : v;
}

/* Positions (3V) and, when nrm is not NULL, unit normals (3V) in double. */
static void decode(const uint8_t *in, uint32_t v, double *pos, double *nrm) {
  double lo[3], hi[3];
  for (int a = 0; a < 3; a++) {
    lo[a] = rd_f32(in + 4 * a);
    hi[a] = rd_f32(in + 12 + 4 * a);
  }
  const uint8_t *q = in + 24;
  for (size_t k = 0; k < 3 * (size_t)v; k++)
    pos[k] = lo[k % 3] + rd_u16(q + 2 * k) / 65535.0 * (hi[k % 3] - lo[k % 3]);
  if (nrm == NULL) return;
  q += 6 * (size_t)v;
  for (uint32_t i = 0; i < v; i++) {
    double x = rd_i16(q + 4 * i) / 32767.0, y = rd_i16(q + 4 * i + 2) / 32767.0;
    double z = 1 - fabs(x) - fabs(y);
    if (z < 0) {
      double ox = x;
      x = (1 - fabs(y)) * (ox >= 0 ? 1 : -1);
      y = (1 - fabs(ox)) * (y >= 0 ? 1 : -1);
    }
    double l = sqrt(x * x + y * y + z * z);
    nrm[3 * i] = x / l;
    nrm[3 * i + 1] = y / l;
    nrm[3 * i + 2] = z / l;
  }
}

/* The angle between a float normal and a decoded one, degrees. */
static double angle_deg(const float *a, const double *b) {
  double cx = a[1] * b[2] - a[2] * b[1], cy = a[2] * b[0] - a[0] * b[2],
         cz = a[0] * b[1] - a[1] * b[0];
  double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  return atan2(sqrt(cx * cx + cy * cy + cz * cz), dot) * 180 / M_PI;
}

/* Encodes, decodes and checks every bound; returns the worst normal
 * error (degrees). */
static double round_trip(const float *pos, const float *nrm, uint32_t v) {
  size_t size = fmt_q16_size(v, nrm != NULL);
  ck_assert_uint_eq(size % 4, 0);
  ck_assert_uint_eq(size, (24 + (size_t)v * (nrm ? 10 : 6) + 3) / 4 * 4);
  uint8_t *buf = malloc(size + 8);
  memset(buf, 0xAB, size + 8);
  fmt_q16_encode(pos, nrm, v, buf);
  ck_assert_uint_eq(buf[size], 0xAB); /* Nothing written past the end. */
  for (size_t k = 24 + (size_t)v * (nrm ? 10 : 6); k < size; k++)
    ck_assert_uint_eq(buf[k], 0);
  double *dp = malloc(3 * (size_t)v * sizeof *dp);
  double *dn = nrm ? malloc(3 * (size_t)v * sizeof *dn) : NULL;
  decode(buf, v, dp, dn);
  float lo[3] = {INFINITY, INFINITY, INFINITY};
  float hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t k = 0; k < 3 * (size_t)v; k++) {
    lo[k % 3] = fminf(lo[k % 3], pos[k]);
    hi[k % 3] = fmaxf(hi[k % 3], pos[k]);
  }
  for (int a = 0; a < 3; a++) {
    ck_assert_float_eq(rd_f32(buf + 4 * a), lo[a]);
    ck_assert_float_eq(rd_f32(buf + 12 + 4 * a), hi[a]);
  }
  for (size_t k = 0; k < 3 * (size_t)v; k++) {
    int a = (int)(k % 3);
    double range = (double)hi[a] - lo[a];
    double mag = fmax(fabs(lo[a]), fabs(hi[a]));
    double tol = range / 131070 + 4 * FLT_EPSILON * mag;
    /* Tested before Check's assertion, which records its place on every
     * pass (a million passes here). */
    if (!(fabs(dp[k] - pos[k]) <= tol))
      ck_abort_msg("position %zu axis %d: %.9g decoded as %.9g (tol %g)", k / 3,
                   a, pos[k], dp[k], tol);
  }
  double worst = 0;
  for (uint32_t i = 0; nrm != NULL && i < v; i++) {
    const float *n = nrm + 3 * (size_t)i;
    if (n[0] == 0 && n[1] == 0 && n[2] == 0) continue;
    double e = angle_deg(n, dn + 3 * (size_t)i);
    if (!(e <= NORMAL_TOL_DEG))
      ck_abort_msg("normal %u (%.9g %.9g %.9g) off by %g degrees", i, n[0],
                   n[1], n[2], e);
    if (e > worst) worst = e;
  }
  free(buf);
  free(dp);
  free(dn);
  return worst;
}

/* ---- cases
 * -------------------------------------------------------------------- */

START_TEST(test_sizes) {
  ck_assert_uint_eq(fmt_q16_size(0, false), 24);
  ck_assert_uint_eq(fmt_q16_size(1, false), 32); /* 30, padded. */
  ck_assert_uint_eq(fmt_q16_size(2, false), 36);
  ck_assert_uint_eq(fmt_q16_size(1, true), 36); /* 34, padded. */
  ck_assert_uint_eq(fmt_q16_size(10000, false), 60024);
  ck_assert_uint_eq(fmt_q16_size(10000, true), 100024);
}
END_TEST

START_TEST(test_degenerate_bounds) {
  /* Every vertex at one point: max == min on every axis, every q is 0
   * and decodes to the point exactly. */
  float pos[3 * 5], nrm[3 * 5];
  for (int i = 0; i < 5; i++) {
    pos[3 * i] = 1.25f;
    pos[3 * i + 1] = -3.5f;
    pos[3 * i + 2] = 1e-3f;
    nrm[3 * i] = 0;
    nrm[3 * i + 1] = 1;
    nrm[3 * i + 2] = 0;
  }
  uint8_t buf[96];
  ck_assert_uint_le(fmt_q16_size(5, true), sizeof buf);
  fmt_q16_encode(pos, nrm, 5, buf);
  for (int k = 0; k < 15; k++) ck_assert_uint_eq(rd_u16(buf + 24 + 2 * k), 0);
  double dp[15];
  decode(buf, 5, dp, NULL);
  for (int k = 0; k < 15; k++) ck_assert(dp[k] == (double)pos[k]);
  round_trip(pos, nrm, 5);
  /* One flat axis among others. */
  float flat[6] = {0, 2, 7, 1, 2, 9};
  uint8_t b2[48];
  fmt_q16_encode(flat, NULL, 2, b2);
  ck_assert_uint_eq(rd_u16(b2 + 24 + 2), 0);
  ck_assert_uint_eq(rd_u16(b2 + 24 + 8), 0);
  round_trip(flat, NULL, 2);
  /* No vertex at all: a zero box. */
  uint8_t b3[24];
  fmt_q16_encode(NULL, NULL, 0, b3);
  for (int a = 0; a < 6; a++) ck_assert(rd_f32(b3 + 4 * a) == 0);
}
END_TEST

START_TEST(test_vertex_at_max) {
  /* The vertex at max is 65535 exactly, the one at min 0, on every axis,
   * with values whose range is not a power of two. */
  float pos[9] = {-0.3f, 1.7f, 5.0f, 0.9f, -2.2f, 5.1f, 0.1f, 0.0f, 5.05f};
  uint8_t buf[48];
  fmt_q16_encode(pos, NULL, 3, buf);
  const uint8_t *q = buf + 24;
  ck_assert_uint_eq(rd_u16(q + 0), 0);      /* x min */
  ck_assert_uint_eq(rd_u16(q + 6), 65535);  /* x max */
  ck_assert_uint_eq(rd_u16(q + 2), 65535);  /* y max */
  ck_assert_uint_eq(rd_u16(q + 8), 0);      /* y min */
  ck_assert_uint_eq(rd_u16(q + 4), 0);      /* z min */
  ck_assert_uint_eq(rd_u16(q + 10), 65535); /* z max */
  double dp[9];
  decode(buf, 3, dp, NULL);
  ck_assert(dp[3] == (double)pos[3]); /* lo + 1 * (hi - lo) */
  round_trip(pos, NULL, 3);
}
END_TEST

START_TEST(test_normals_on_the_seam) {
  /* The fold's edges: the equator, the axes of the lower hemisphere, the
   * south pole (a corner of the square, folded with sign(0) = +1) and
   * points a hair below the equator. */
  const double s = sqrt(0.5);
  const float cases[][3] = {
      {1, 0, 0},
      {-1, 0, 0},
      {0, 1, 0},
      {0, -1, 0},
      {0, 0, 1},
      {0, 0, -1},
      {(float)s, 0, (float)-s},
      {(float)-s, 0, (float)-s},
      {0, (float)s, (float)-s},
      {0, (float)-s, (float)-s},
      {(float)s, (float)s, 0},
      {(float)-s, (float)s, 0},
      {(float)s, (float)-s, 0},
      {0.6f, 0.8f, -1e-7f},
      {-0.6f, 0.8f, -1e-7f},
      {0.6f, -0.8f, -1e-7f},
      {1e-7f, 0, -1},
      {-1e-7f, -1e-7f, -1},
      {0, 0, -1e-30f},
  };
  size_t n = sizeof cases / sizeof cases[0];
  float pos[3 * 32] = {0}, nrm[3 * 32];
  memcpy(nrm, cases, sizeof cases);
  round_trip(pos, nrm, (uint32_t)n);
  uint8_t buf[512];
  fmt_q16_encode(pos, nrm, (uint32_t)n, buf);
  const uint8_t *o = buf + 24 + 6 * n;
  /* South pole: the (+1, +1) corner; north pole: the centre. */
  ck_assert_int_eq(rd_i16(o + 4 * 5), 32767);
  ck_assert_int_eq(rd_i16(o + 4 * 5 + 2), 32767);
  ck_assert_int_eq(rd_i16(o + 4 * 4), 0);
  ck_assert_int_eq(rd_i16(o + 4 * 4 + 2), 0);
  /* -x: (-1, 0) on either side of the seam. */
  ck_assert_int_eq(rd_i16(o + 4 * 1), -32767);
  ck_assert_int_eq(rd_i16(o + 4 * 1 + 2), 0);
}
END_TEST

START_TEST(test_zero_and_long_normals) {
  float pos[6] = {0, 0, 0, 1, 1, 1};
  float nrm[6] = {0, 0, 0, 0, 3, 4}; /* zero, and length 5 */
  uint8_t buf[48];
  fmt_q16_encode(pos, nrm, 2, buf);
  const uint8_t *o = buf + 24 + 12;
  ck_assert_int_eq(rd_i16(o), 0);
  ck_assert_int_eq(rd_i16(o + 2), 0);
  round_trip(pos, nrm, 2);
}
END_TEST

START_TEST(test_random_normals) {
  /* 200,000 directions, uniform on the sphere (a fixed LCG). */
  enum { N = 200000 };
  float *pos = malloc(3 * N * sizeof *pos), *nrm = malloc(3 * N * sizeof *nrm);
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < N; i++) {
    double u[3];
    for (int k = 0; k < 3; k++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      u[k] = (double)(x >> 11) / 9007199254740992.0;
    }
    double z = 2 * u[0] - 1, phi = 2 * M_PI * u[1], r = sqrt(1 - z * z);
    nrm[3 * i] = (float)(r * cos(phi));
    nrm[3 * i + 1] = (float)(r * sin(phi));
    nrm[3 * i + 2] = (float)z;
    for (int k = 0; k < 3; k++)
      pos[3 * i + k] = (float)(100 * u[2] - 50) * (float)(k + 1);
  }
  double worst = round_trip(pos, nrm, N);
  fprintf(stderr,
          "q16: worst normal error over %d random directions: %.5f deg\n", N,
          worst);
  free(pos);
  free(nrm);
}
END_TEST

START_TEST(test_append) {
  float pos[6] = {0, 1, 2, 3, 4, 5};
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_puts(&b, "hdr");
  ck_assert_int_eq(fmt_q16_append(&b, pos, NULL, 2), 0);
  ck_assert_uint_eq(b.len, 3 + fmt_q16_size(2, false));
  uint8_t direct[36];
  fmt_q16_encode(pos, NULL, 2, direct);
  ck_assert_int_eq(memcmp(b.data + 3, direct, sizeof direct), 0);
  fmt_buf_free(&b);
}
END_TEST

/* ---- real assets
 * ----------------------------------------------------------------- */

static const struct {
  const char *rel, *ctype;
} real_assets[] = {
    {"gltf/khronos/CesiumMan.glb", "model/gltf-binary"},
    {"gltf/khronos/Fox.glb", "model/gltf-binary"},
    {"md5/bob/Bob.md5mesh", "application/x-md5mesh"},
};

START_TEST(test_real_assets) {
  const char *shared = getenv("ANIMD_SHARED");
  char path[1024];
  snprintf(path, sizeof path, "%s/assets/%s", shared ? shared : "../shared",
           real_assets[_i].rel);
  if (access(path, R_OK) != 0) {
    fprintf(stderr, "q16: SKIPPED %s: the shared assets are not there\n", path);
    return;
  }
  fmt_bundle_t b;
  asset_decode(real_assets[_i].rel, real_assets[_i].ctype, NULL, &b);
  ck_assert_uint_gt(b.mesh_count, 0);
  for (size_t m = 0; m < b.mesh_count; m++) {
    const anim_mesh_t *mesh = b.meshes[m].mesh;
    round_trip(mesh->positions, NULL, mesh->vertex_count);
    if (mesh->normals != NULL) {
      double worst =
          round_trip(mesh->positions, mesh->normals, mesh->vertex_count);
      fprintf(stderr, "q16: %s mesh %zu (%u vertices): worst normal %.5f deg\n",
              real_assets[_i].rel, m, mesh->vertex_count, worst);
    }
  }
  fmt_bundle_free(&b);
}
END_TEST

Suite *formats_q16_suite(void) {
  Suite *s = suite_create("formats_q16");
  TCase *tc = tcase_create("q16");
  tcase_add_test(tc, test_sizes);
  tcase_add_test(tc, test_degenerate_bounds);
  tcase_add_test(tc, test_vertex_at_max);
  tcase_add_test(tc, test_normals_on_the_seam);
  tcase_add_test(tc, test_zero_and_long_normals);
  tcase_add_test(tc, test_random_normals);
  tcase_add_test(tc, test_append);
  tcase_add_loop_test(tc, test_real_assets, 0,
                      (int)(sizeof real_assets / sizeof real_assets[0]));
  suite_add_tcase(s, tc);
  return s;
}
